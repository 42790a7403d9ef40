"""The partitioned path through DVC (pipeline/core/partitions.py): a scratch git repository whose data.path is a
directory of CSV parts (the default data's sample with its traps: tests/pipeline/test_partitions.py) and whose
compute.backend is dask, so `dvc repro` starts a 2-worker LocalCluster in validate, clean and split, which write
parts. Every stage runs to the report, a second `dvc repro` has nothing to do, and after `dvc exp`-style switching
to the local backend (the same directory read as one table in memory) every output of the later stages is
byte-identical: the data stages' parts hold exactly the in-memory path's rows."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import REPO, set_dotted
from dvc_project import git_repo, output_md5s, repro, sh
from partitioned_data import make_parts_project, sample_with_traps

pytestmark = pytest.mark.slow

LATER = ["features", "train", "assess", "calibrate", "evaluate", "fairness", "explain"]


def set_params(root: Path, **values) -> None:
    params = yaml.safe_load((root / "params.yaml").read_text())
    for key, value in values.items():
        set_dotted(params, key, value)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def test_partitioned_run_equals_in_memory_run(tmp_path):
    data = yaml.safe_load((REPO / "params.yaml").read_text())["data"]
    root = make_parts_project(tmp_path, sample_with_traps(), data, "csv")
    set_params(root, **{"compute.backend": "dask"})
    git_repo(root)
    first = repro(root)
    assert "in 3 parts" in first.stdout
    for table in ("interim/validated", "interim/quarantine", "interim/clean", "processed/train", "processed/test"):
        assert len(list((root / f"data/{table}.parquet").glob("part-*.parquet"))) == 3, table
    assert "Data and pipelines are up to date" in sh(root, "dvc", "repro").stdout
    partitioned = output_md5s(root)

    set_params(root, **{"compute.backend": "local"})
    repro(root)
    in_memory = output_md5s(root)
    for stage in LATER:
        mine = {k: v for k, v in partitioned.items() if k.startswith(f"{stage}:")}
        assert mine and mine == {k: in_memory[k] for k in mine}, stage
    assert (root / "data/interim/clean.parquet").is_file()
