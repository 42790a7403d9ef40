""".ci/compare_lock.py: the CI reproducibility check compares the output md5s of two dvc.lock files, every stage's
(track's record names the pipeline state, the same on every clone)."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("compare_lock", REPO / ".ci" / "compare_lock.py")
compare_lock = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_lock)

LOCK = {
    "schema": "2.0",
    "stages": {
        "validate": {
            "cmd": "python -m pipeline.stages.validate",
            "deps": [{"path": "data/raw/randhie.csv.gz", "md5": "d1"}],
            "outs": [
                {"path": "data/interim/validated.parquet", "md5": "v1", "size": 10},
                {"path": "reports/validation.json", "md5": "v2", "size": 3},
            ],
        },
        "features": {"outs": [{"path": "data/features", "md5": "f1.dir", "size": 9, "nfiles": 6}]},
        "track": {"outs": [{"path": "reports/mlflow_run.json", "md5": "t1"}]},
    },
}


def changed(stage: str, index: int, **fields) -> dict:
    lock = copy.deepcopy(LOCK)
    lock["stages"][stage]["outs"][index].update(fields)
    return lock


def test_identical_locks_have_no_differences():
    assert compare_lock.differences(LOCK, copy.deepcopy(LOCK)) == []


def test_changed_output_md5_is_reported():
    diffs = compare_lock.differences(LOCK, changed("validate", 1, md5="v2-other"))
    assert len(diffs) == 1
    assert "validate" in diffs[0] and "reports/validation.json" in diffs[0]
    assert "v2" in diffs[0] and "v2-other" in diffs[0]


def test_changed_directory_md5_is_reported():
    assert len(compare_lock.differences(LOCK, changed("features", 0, md5="f2.dir"))) == 1


def test_changed_track_output_is_a_difference():
    assert len(compare_lock.differences(LOCK, changed("track", 0, md5="t2"))) == 1


def test_changes_outside_outputs_are_ignored():
    other = copy.deepcopy(LOCK)
    other["stages"]["validate"]["deps"][0]["md5"] = "d2"  # a dep change shows up in the outputs if it matters
    other["stages"]["validate"]["cmd"] = "python -m x"
    other["stages"]["validate"]["outs"][0]["size"] = 11
    assert compare_lock.differences(LOCK, other) == []


def test_missing_stage_or_output_is_a_difference():
    fewer = copy.deepcopy(LOCK)
    del fewer["stages"]["features"]
    diffs = compare_lock.differences(LOCK, fewer)
    assert len(diffs) == 1 and "data/features" in diffs[0] and "None" in diffs[0]
    fewer_outs = copy.deepcopy(LOCK)
    fewer_outs["stages"]["validate"]["outs"].pop()
    assert len(compare_lock.differences(fewer_outs, LOCK)) == 1


def test_empty_locks():
    assert compare_lock.differences({}, {"stages": None}) == []
    assert len(compare_lock.differences({}, LOCK)) == 4  # every output is new


@pytest.fixture
def lock_files(tmp_path):
    def write(name, lock):
        path = tmp_path / name
        path.write_text(yaml.safe_dump(lock))
        return str(path)

    return write


def test_main_exit_status(lock_files, capsys):
    a = lock_files("a.lock", LOCK)
    b = lock_files("b.lock", copy.deepcopy(LOCK))
    c = lock_files("c.lock", changed("validate", 0, md5="v1-other"))
    assert compare_lock.main([a, b]) == 0
    assert "identical" in capsys.readouterr().out
    assert compare_lock.main([a, c]) == 1
    out = capsys.readouterr().out
    assert out.startswith("error: 1 output md5s differ") and "data/interim/validated.parquet" in out
    assert compare_lock.main([a, lock_files("t.lock", changed("track", 0, md5="t9"))]) == 1  # track's record too


def test_real_lock_equals_itself():
    if not (REPO / "dvc.lock").exists():
        pytest.skip("no dvc.lock")
    lock = yaml.safe_load((REPO / "dvc.lock").read_text())
    assert compare_lock.differences(lock, copy.deepcopy(lock)) == []
    assert any(k.startswith("track:") for k in compare_lock.output_md5s(lock))
