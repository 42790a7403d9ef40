"""The typed records (pipeline/core/records.py): the stages write them, later stages, the report and tracking read them
as dataclasses (mypy, strict on pipeline/, checks every attribute they take). A field renamed in a record fails the
writer's test (shown by running that test on a copy of the code with the field renamed), a stale file (or a stale
nested part) fails its reader with a message naming the fields, the path and the stage to rerun, and a record written
back gives the same bytes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import copy_repo, make_project, run_stages

from pipeline.core.errors import PipelineError
from pipeline.core.records import CopiesAcrossSplit, SplitReport, TrainTest, ValidationReport


def test_the_validate_and_split_stages_write_their_records(sample_csv, tmp_path, monkeypatch):
    root = make_project(tmp_path, sample_csv)
    run_stages(root, monkeypatch, ["validate", "clean", "split"])
    validation, split = ValidationReport.read(), SplitReport.read()
    assert validation.rows_in == validation.rows_kept + validation.rows_quarantined
    cleaned = json.loads((root / "reports/cleaning.json").read_text())
    assert split.rows.train + split.rows.test == cleaned["rows_out"]
    assert split.task == validation.task == "binary"


def test_a_file_that_does_not_match_its_record_names_the_fields_and_the_stage(sample_csv, tmp_path, monkeypatch):
    root = make_project(tmp_path, sample_csv)
    run_stages(root, monkeypatch, ["validate", "clean", "split"])
    written = json.loads(SplitReport.json_file.read_text())
    written["n_folds"] = written.pop("n_splits")
    SplitReport.json_file.write_text(json.dumps(written))
    with pytest.raises(PipelineError, match=r"missing \['n_splits'\], unexpected \['n_folds'\].*dvc repro split"):
        SplitReport.read()


def test_a_nested_part_that_does_not_match_names_its_path_and_the_stage(sample_csv, tmp_path, monkeypatch):
    root = make_project(tmp_path, sample_csv)
    run_stages(root, monkeypatch, ["validate", "clean", "split"])
    written = json.loads(SplitReport.json_file.read_text())
    written["rows"]["training"] = written["rows"].pop("train")
    SplitReport.json_file.write_text(json.dumps(written))
    with pytest.raises(PipelineError, match=r"split.json.rows does not match .*\(TrainTest\): missing \['train'\], "
                       r"unexpected \['training'\].*dvc repro split"):  # fmt: skip
        SplitReport.read()


def test_a_record_round_trips_through_its_file_with_its_parts(sample_csv, tmp_path, monkeypatch):
    root = make_project(tmp_path, sample_csv)
    run_stages(root, monkeypatch, ["validate", "clean", "split"])
    split = SplitReport.read()
    assert isinstance(split.rows, TrainTest) and split.rows.train + split.rows.test > 0
    assert isinstance(split.copies_across_split, CopiesAcrossSplit)
    before = SplitReport.json_file.read_bytes()
    split.write()
    assert SplitReport.json_file.read_bytes() == before


@pytest.mark.parametrize("record, field", [(SplitReport, "rows_never_validated"), (ValidationReport, "rows_kept")])
def test_renaming_a_field_fails_the_writers_test(record, field, tmp_path):
    """The writer's test above, run on a copy of the code whose record calls `field` something else."""
    copy = copy_repo(
        tmp_path / "repo", ("pipeline", "mllib", "tests", "params.yaml", "data/raw", "data/schemas", "pyproject.toml")
    )
    records = copy / "pipeline" / "core" / "records.py"
    source = records.read_text()
    declaration = f"    {field}: "
    assert source.count(declaration) == 1
    records.write_text(source.replace(declaration, f"    {field}_renamed: "))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/pipeline/test_records.py::test_the_validate_and_split_stages_write_their_records"],
        cwd=copy, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-2000:]
    assert f"unexpected keyword argument '{field}'" in result.stdout, result.stdout[-2000:]
    assert record.__name__ in result.stdout
