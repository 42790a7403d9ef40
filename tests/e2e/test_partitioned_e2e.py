"""The partitioned path through DVC (pipeline/core/partitions.py): a scratch git repository whose data.path is a
directory of CSV parts (the default data's sample with its traps: tests/pipeline/test_partitions.py) and whose
compute.backend is dask, so `dvc repro` starts a 2-worker LocalCluster: validate, clean and split write parts, the
features are fitted per split from mergeable statistics (no matrix written) and logistic regression from sums over
the parts (gradient boosting from their bin codes; ridge, on a regression target, from their Gram matrix). Every
stage runs to the report and a second `dvc repro` has nothing to do. After switching to the local backend (the
same directory read as one table in memory; run to the fairness stage, the last that writes a compared output) the
data stages' outputs and the folds are byte-identical, and the fitted transformers, the model's coefficients, the
out-of-fold scores and every metric agree within 1e-9 (sums over parts and over the whole table differ in their last
bits). A model that needs every row in one matrix is refused by name before any fit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, set_dotted
from dvc_project import git_repo, output_md5s, repro, sh
from partitioned_data import make_parts_project, sample_with_traps

pytestmark = pytest.mark.slow

IDENTICAL = ["validate: reports/validation.json", "clean: reports/cleaning.json", "split: reports/split.json",
             "split: data/processed/folds.parquet", "split: data/processed/target.json"]  # fmt: skip
COMPARED = ["models/features.npz", "models/model.npz", "models/predictor.npz", "reports/metrics/train.json",
            "reports/metrics/test.json", "reports/metrics/calibration.json", "reports/metrics/fairness.json",
            "reports/search.json", "reports/features.json", "data/predictions/oof.parquet"]  # fmt: skip
TOLERANCE = 1e-9


def set_params(root: Path, **values) -> None:
    params = yaml.safe_load((root / "params.yaml").read_text())
    for key, value in values.items():
        set_dotted(params, key, value)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def contents(path: Path):
    """A compared output as plain values: JSON as is, arrays and frames as lists of numbers."""
    if path.suffix == ".json":
        return json.loads(path.read_text())
    if path.suffix == ".npz":
        with np.load(path) as arrays:
            return {name: arrays[name].tolist() for name in arrays.files}
    return pd.read_parquet(path).to_dict(orient="list")


def assert_close(a, b, where: str) -> None:
    """Equal structure and text, numbers within TOLERANCE (relative to their size, at least 1)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            assert_close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and not isinstance(a, bool):
        assert a == b or (np.isnan(a) and np.isnan(b)) or abs(a - b) <= TOLERANCE * max(1.0, abs(a)), (where, a, b)
    else:
        assert a == b, (where, a, b)


MODELS = {
    "logistic_regression": {"model.name": "logistic_regression"},  # its default grid
    "gradient_boosting": {  # a grid of one, small: the trees grown from the parts' bin codes, the early-stopping
        # hold-out of whole data.group groups on both paths
        "model.name": "gradient_boosting",
        "search.grid.gradient_boosting": {"learning_rate": [0.1]},
        "model.params.gradient_boosting": {"max_iter": 20, "early_stopping": True, "n_iter_no_change": 3},
    },
    "ridge": {  # a regression target: the Gram matrix summed over the parts
        "data.target": "lnmeddol",
        "data.positive_label": None,
        "data.drop": [
            "binexp",
            *(c for c in yaml.safe_load((REPO / "params.yaml").read_text())["data"]["drop"] if c != "lnmeddol"),
        ],
        "model.name": "ridge",
    },
}


@pytest.mark.parametrize("model", list(MODELS))
def test_partitioned_run_equals_in_memory_run(tmp_path, model):
    data = yaml.safe_load((REPO / "params.yaml").read_text())["data"]
    root = make_parts_project(tmp_path, sample_with_traps(), data, "csv")
    set_params(root, **{"compute.backend": "dask", **MODELS[model]})
    git_repo(root)
    sh(root, "dvc", "config", "--local", "cache.type", "hardlink,symlink")  # the cache holds no second copy
    first = repro(root)
    assert "in 3 parts" in first.stdout
    for table in ("interim/validated", "interim/quarantine", "interim/clean"):
        assert len(list((root / f"data/{table}.parquet").glob("part-*.parquet"))) == 3, table
    for table in ("processed/train", "processed/test"):  # views: the rows each keeps of clean's parts
        assert len(list((root / f"data/{table}.parquet").glob("rows-*.npy"))) == 3, table
    assert not list((root / "data/features").glob("*.npy"))  # no matrix written on the partitioned path
    for part in (root / "data/interim/clean.parquet").glob("part-*.parquet"):
        assert part.stat().st_nlink == 2, part  # the workspace's part is the cache's file
    assert "Data and pipelines are up to date" in sh(root, "dvc", "repro").stdout
    partitioned = output_md5s(root)
    kept = {path: contents(root / path) for path in COMPARED}

    set_params(root, **{"compute.backend": "local"})
    repro(root, "fairness")  # the last stage a compared output comes from; explain to monitor ran above
    in_memory = output_md5s(root)
    # the data stages' tables are parts on one path and one file on the other (their rows: test_partitions.py)
    for path in IDENTICAL:
        assert partitioned[path] == in_memory[path], path
    for path in COMPARED:
        assert_close(kept[path], contents(root / path), path)
    assert (root / "data/interim/clean.parquet").is_file()


def test_a_model_that_needs_every_row_is_refused_by_name(tmp_path):
    data = yaml.safe_load((REPO / "params.yaml").read_text())["data"]
    root = make_parts_project(tmp_path, sample_with_traps(), data, "parquet")
    set_params(root, **{"compute.backend": "dask", "model.name": "knn"})
    git_repo(root)
    result = sh(root, "dvc", "repro", "train")
    assert result.returncode != 0
    message = [line for line in (result.stdout + result.stderr).splitlines() if "model 'knn'" in line]
    assert (
        message
        and "the models fitted from parts are explainable_boosting, gradient_boosting, logistic_regression"
        in message[0]
    ), result.stderr[-2000:]
    assert "compute.backend: local" in message[0]
    assert not (root / "models/model.json").exists()
