"""The MLflow store is never silently replaced (pipeline/tracking/store.py). On the previous main, `truncate -s 0
mlflow.db`, one changed param and `dvc repro` exited 0 with "registered version 1 as candidate and champion": the
former champion, its runs and the registry history were gone and the new model was compared with nothing. Here that
run stops with one line naming mlflow.db and the copy to restore; after the restore command it prints and `dvc
repro`, the registry holds every earlier version and the new one. The same for a deleted store and for a store other
than the one the last run used."""

from __future__ import annotations

import os
import re
import shlex
import sqlite3
import subprocess

import pytest
from conftest import edit_params, sample_copy
from dvc_project import repro, sh, user_env

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory, built_sample):
    root = sample_copy(built_sample, tmp_path_factory.mktemp("store"))
    edit_params(root, "tracking.promotion.tolerance", 0.011)  # a new state, track alone reruns: version 2
    repro(root)
    return root


def versions(root) -> list[str]:
    """The registered versions, read from the file itself (a client's pooled connection would go on reading a
    deleted file's inode)."""
    with sqlite3.connect(root / "mlflow.db") as db:
        rows = db.execute("SELECT version FROM model_versions WHERE name = 'sample-binexp'").fetchall()
    return sorted((str(v) for (v,) in rows), key=int)


def refused(root, env=None) -> str:
    result = subprocess.run(["dvc", "repro"], cwd=root, capture_output=True, text=True, env=env or user_env())
    assert result.returncode != 0, result.stdout[-2000:]
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("error: track:")]
    assert "Traceback" not in result.stderr and "nothing was written" in line, line
    return line


def restore(root, line: str) -> None:
    command = re.search(r"`(cp [^`]+)`", line).group(1)
    assert subprocess.run(shlex.split(command), cwd=root).returncode == 0


@pytest.mark.parametrize("damage", ["emptied", "deleted"])
def test_a_lost_store_is_refused_and_restored_from_its_copy(project, damage):
    before = versions(project)
    assert before[:2] == ["1", "2"]
    store = project / "mlflow.db"
    if damage == "emptied":
        os.truncate(store, 0)
    else:
        store.unlink()
    edit_params(project, "tracking.promotion.tolerance", 0.012 if damage == "emptied" else 0.013)
    line = refused(project)
    assert "mlflow.db" in line and "mlflow-backups/" in line and re.search(r"recorded \d+ run\(s\)", line), line
    assert store.exists() is (damage == "emptied") and (not store.exists() or store.stat().st_size == 0)
    restore(project, line)
    repro(project)
    assert versions(project) == before + [str(len(before) + 1)]
    edit_params(project, "tracking.promotion.tolerance", 0.011)  # back to the state of version 2: found, not new
    assert "already recorded" in repro(project).stdout


def test_another_store_is_refused_until_the_switch_is_recorded(project, tmp_path):
    other = f"sqlite:///{tmp_path / 'other.db'}"
    env = {**user_env(), "MLFLOW_TRACKING_URI": other}
    edit_params(project, "tracking.promotion.tolerance", 0.014)  # track reruns (the environment is not a DVC dep)
    line = refused(project, env)
    assert other in line and "python -m pipeline.tracking.store use" in line, line
    assert not (tmp_path / "other.db").exists(), "the other store was not created"
    switched = subprocess.run(
        ["python", "-m", "pipeline.tracking.store", "use"], cwd=project, capture_output=True, text=True, env=env
    )
    assert switched.returncode == 0 and other in switched.stdout, switched.stderr
    result = subprocess.run(["dvc", "repro"], cwd=project, capture_output=True, text=True, env=env)
    assert result.returncode == 0 and "registered sample-binexp version 1" in result.stdout, result.stderr
    # and back to the repository's store: refused again until that switch is recorded too
    edit_params(project, "tracking.promotion.tolerance", 0.015)
    assert "mlflow.db" in refused(project)
    assert sh(project, "python", "-m", "pipeline.tracking.store", "use").returncode == 0
