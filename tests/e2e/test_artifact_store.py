"""The artifact store is part of the store (pipeline/tracking/store.py), and the monitor checks the model it was
given (pipeline/tracking/monitor_run.py). On the previous main: an edited threshold in models/predictor.json was used
by the monitor as if it were the registered version, and the batch was blamed; after `rm -rf mlartifacts` the next
`dvc repro` registered a new version while version 1 no longer loaded (`No such artifact`), and mlflow-backups/ held
only the database; the monitor, run in a copied repository before any track, wrote its run's files into the
original's mlartifacts/; a mlflow.db whose header was overwritten was reported as a store that cannot be reached,
with no word of the copy that restores it."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys

import pandas as pd
import pytest
from conftest import edit_params, sample_copy
from dvc_project import repro, sh, tracked

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory, built_sample):
    root = sample_copy(built_sample, tmp_path_factory.mktemp("artifacts"))
    test = pd.read_parquet(root / "data/processed/test.parquet").drop(columns=["_row_id"])
    (root / "data/new").mkdir()
    test.to_csv(root / "data/new/rows.csv", index=False)
    return root


def registered(root) -> str:
    """`dvc repro`'s output, asserting that track registered a new version."""
    out = repro(root).stdout
    assert re.search(r"registered\s+sample-binexp\s+version", out), out[-3000:]  # the line may be wrapped
    return out


def versions(root) -> list[str]:
    with sqlite3.connect(root / "mlflow.db") as db:
        rows = db.execute("SELECT version FROM model_versions WHERE name = 'sample-binexp'").fetchall()
    return sorted((str(v) for (v,) in rows), key=int)


def monitor(root) -> subprocess.CompletedProcess:
    return sh(root, "python", "-m", "pipeline.stages.monitor", "data/new/rows.csv")


def refused(result: subprocess.CompletedProcess, start: str) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    (line,) = [line for line in lines if line.startswith(f"error: {start}")]
    return line


def run_quoted(root, line: str, command: str) -> None:
    """Run the command the line quotes (`cp ...`, `dvc checkout ...`) as the user would."""
    quoted = re.search(rf"`({command} [^`]+)`", line).group(1)
    done = subprocess.run(shlex.split(quoted), cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, quoted + done.stderr[-2000:]


def set_threshold(node, value: float) -> int:
    """Set every 'threshold' in the predictor's JSON to `value`; how many were set."""
    if isinstance(node, dict):
        n = sum(set_threshold(v, value) for v in node.values())
        if isinstance(node.get("threshold"), float):
            node["threshold"] = value
            n += 1
        return n
    return sum(set_threshold(v, value) for v in node) if isinstance(node, list) else 0


def test_an_edited_predictor_is_refused_naming_the_file_and_the_command_that_restores_it(project):
    assert monitor(project).returncode == 0
    path = project / "models/predictor.json"
    predictor = json.loads(path.read_text())
    assert set_threshold(predictor, 0.97) >= 1
    path.write_text(json.dumps(predictor, indent=1, sort_keys=True) + "\n")
    line = refused(monitor(project), "monitor: models/predictor.json is not the predictor of sample-binexp version")
    assert "`dvc checkout --force models/predictor.json models/predictor.npz`" in line and len(line) < 300, line
    run_quoted(project, line, "dvc checkout")
    result = monitor(project)
    assert result.returncode == 0, result.stderr[-2000:]


def test_the_monitor_in_a_copied_repository_writes_into_the_copy(project, tmp_path):
    original = sorted(p.relative_to(project) for p in (project / "mlartifacts").rglob("*"))
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    result = monitor(copy)
    assert result.returncode == 0, result.stderr[-2000:]
    assert sorted(p.relative_to(project) for p in (project / "mlartifacts").rglob("*")) == original
    record = json.loads((copy / "reports/monitor.json").read_text())
    run = tracked(copy)["client"].get_run(record["mlflow"]["run_id"])
    assert run.info.artifact_uri.startswith((copy / "mlartifacts").as_uri()), run.info.artifact_uri
    assert list((copy / "mlartifacts").rglob("monitor.json")), "the monitor's report is the copy's artifact"
    edit_params(copy, "tracking.promotion.tolerance", 0.011)  # the copy's next track: a new version, all files here
    registered(copy)


def test_a_damaged_header_names_the_store_and_the_copy_that_restores_it(project):
    with open(project / "mlflow.db", "r+b") as stream:
        stream.write(b"\0" * 100)  # SQLite's header
    edit_params(project, "tracking.promotion.tolerance", 0.012)
    line = refused(sh(project, "dvc", "repro"), "track: the MLflow store")
    assert str(project / "mlflow.db") in line and "damaged" in line and "nothing was written" in line, line
    run_quoted(project, line, "cp")
    registered(project)


def test_lost_artifacts_are_refused_and_restored_from_their_copy(project):
    shutil.rmtree(project / "mlartifacts")
    edit_params(project, "tracking.promotion.tolerance", 0.013)
    line = refused(sh(project, "dvc", "repro"), "track: the model files of sample-binexp version(s) 1, 2")
    assert "nothing was written" in line and "`cp -R mlflow-backups/mlartifacts/. mlartifacts`" in line, line
    run_quoted(project, line, "cp")
    before = versions(project)  # track's record (reports/mlflow_run.json) went with the refused run
    registered(project)
    assert versions(project) == before + [str(len(before) + 1)]
    uri = tracked(project)["tracking_uri"]
    load = f"import mlflow; mlflow.set_tracking_uri({uri!r}); mlflow.pyfunc.load_model('models:/sample-binexp/1')"
    loaded = sh(project, sys.executable, "-c", load)
    assert loaded.returncode == 0, loaded.stderr[-2000:]


def test_artifacts_lost_with_no_copy_are_said_plainly_and_accepted_on_purpose(project):
    shutil.rmtree(project / "mlartifacts")
    shutil.rmtree(project / "mlflow-backups/mlartifacts")
    edit_params(project, "tracking.promotion.tolerance", 0.014)
    line = refused(sh(project, "dvc", "repro"), "track: the model files of sample-binexp version(s) 1, 2")
    assert "mlflow-backups/ holds no copy of them" in line and "store accept-lost" in line, line
    accepted = sh(project, "python", "-m", "pipeline.tracking.store", "accept-lost")
    assert accepted.returncode == 0 and "tagged store.artifacts=lost" in accepted.stdout, accepted.stderr
    registered(project)
    lost = tracked(project)["client"].get_model_version("sample-binexp", "1")
    assert lost.tags["store.artifacts"].startswith("lost")
