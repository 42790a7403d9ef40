"""The typed records (pipeline/core/records.py): the validate and split stages write them, clean and the report read
them. A field renamed in a record fails the writer's test (shown by running that test on a copy of the code with the
field renamed), a stale file fails its reader with a message naming the fields, and every key the readers take of
a record is one of its fields."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest
from conftest import REPO, copy_repo, make_project, run_stages

from pipeline.core.errors import PipelineError
from pipeline.core.records import RECORDS, Assessment, FairnessReport, SplitReport, TrainMetrics, ValidationReport

STAGES = REPO / "pipeline" / "stages"
READERS = [*(REPO / "pipeline" / "reporting").glob("*.py"), *(REPO / "pipeline" / "tracking").glob("*.py"),
           *(STAGES / f"{stage}.py" for stage in ("clean", "assess", "evaluate", "fairness"))]  # fmt: skip
# how the readers name the records: the report's inputs r[<name>], and the variables that hold one
VARIABLES = {
    "validation": ValidationReport,
    "train": TrainMetrics,
    "trained": TrainMetrics,
    "assessment": Assessment,
    "fairness": FairnessReport,
}
READ_AS = {**RECORDS, **VARIABLES}


def test_the_validate_and_split_stages_write_their_records(sample_csv, tmp_path, monkeypatch):
    root = make_project(tmp_path, sample_csv)
    run_stages(root, monkeypatch, ["validate", "clean", "split"])
    validation, split = ValidationReport.read(), SplitReport.read()
    assert validation["rows_in"] == validation["rows_kept"] + validation["rows_quarantined"]
    cleaned = json.loads((root / "reports/cleaning.json").read_text())
    assert split["rows"]["train"] + split["rows"]["test"] == cleaned["rows_out"]
    assert split["task"] == validation["task"] == "binary"


def test_a_file_that_does_not_match_its_record_names_the_fields_and_the_stage(sample_csv, tmp_path, monkeypatch):
    root = make_project(tmp_path, sample_csv)
    run_stages(root, monkeypatch, ["validate", "clean", "split"])
    written = json.loads(SplitReport.json_file.read_text())
    written["n_folds"] = written.pop("n_splits")
    SplitReport.json_file.write_text(json.dumps(written))
    with pytest.raises(PipelineError, match=r"missing \['n_splits'\], unexpected \['n_folds'\].*dvc repro split"):
        SplitReport.read()


def keys_read(path) -> list[tuple[str, str, int]]:
    """(record name, key, line) of each r["<record>"]["<key>"], <record>["<key>"] and <Record>.read()["<key>"] in a
    reader's source."""
    classes = {cls.__name__: name for name, cls in RECORDS.items()}
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)):
            continue
        inner = node.value
        if (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Attribute)
            and isinstance(inner.func.value, ast.Name)
            and inner.func.value.id in classes
        ):
            found.append((classes[inner.func.value.id], node.slice.value, node.lineno))
            continue
        if (
            isinstance(inner, ast.Subscript)
            and isinstance(inner.value, ast.Name)
            and inner.value.id == "r"
            and isinstance(inner.slice, ast.Constant)
            and inner.slice.value in RECORDS
        ):
            found.append((inner.slice.value, node.slice.value, node.lineno))
        elif isinstance(inner, ast.Name) and inner.id in VARIABLES:
            found.append((inner.id, node.slice.value, node.lineno))
    return found


def test_every_key_a_reader_takes_of_a_record_is_one_of_its_fields():
    read = [(path, *k) for path in READERS for k in keys_read(path)]
    assert len(read) > 40  # the model card, the data section, the trust section, the headline, tracking
    assert {name for _, name, _, _ in read} >= {"validation", "split", "train", "trained", "fairness", "assessment"}
    unknown = [
        f"{path.relative_to(REPO)}:{line}: {name}[{key!r}]"
        for path, name, key, line in read
        if key not in READ_AS[name].field_names()
    ]
    assert not unknown, "keys that are not fields of their record:\n" + "\n".join(unknown)


@pytest.mark.parametrize("record, field", [(SplitReport, "rows_never_validated"), (ValidationReport, "rows_kept")])
def test_renaming_a_field_fails_the_writers_test(record, field, tmp_path):
    """The writer's test above, run on a copy of the code whose record calls `field` something else."""
    copy = copy_repo(tmp_path / "repo", ("pipeline", "mllib", "tests", "params.yaml", "data/raw", "pyproject.toml"))
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
