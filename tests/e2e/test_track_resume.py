"""Nothing lost in the registry: a pipeline state counts as recorded in MLflow only when its run FINISHED and its model
version carries the gate's decision. Each fault below interrupted track between starting its run and deciding the
version; on today's main every later `dvc repro` then said "already recorded" and exited 0 with no version, ever.
Here the next plain `dvc repro` marks the interrupted run superseded (ended, tagged with its replacement) and records
the state. Also: a column name longer than MLflow's 250-character limit on names is shortened deterministically
(the full names in the run's mlflow_names.json), and an MLflow failure is one line, not a chain of tracebacks."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import edit_params, sample_copy
from dvc_project import repro, sh, tracked, user_env

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory, built_sample):
    root = sample_copy(built_sample, tmp_path_factory.mktemp("resume"))
    return root


def new_experiment(root: Path, name: str) -> None:
    """A tracking change only: just the track stage reruns, into a fresh experiment and registered model."""
    edit_params(root, "tracking.experiment", name)


def parent_runs(root: Path, experiment: str) -> list[tuple[str, str, dict]]:
    """(run id, status, tags) of the experiment's parent runs, read from the store directly."""
    with sqlite3.connect(root / "mlflow.db") as db:
        rows = db.execute(
            "SELECT r.run_uuid, r.status FROM runs r JOIN experiments e ON r.experiment_id = e.experiment_id "
            "JOIN tags t ON t.run_uuid = r.run_uuid "
            "WHERE e.name = ? AND t.key = 'pipeline.role' AND t.value = 'parent'",
            (experiment,),
        ).fetchall()
        return [
            (run, status, dict(db.execute("SELECT key, value FROM tags WHERE run_uuid = ?", (run,)).fetchall()))
            for run, status in rows
        ]


def assert_recorded_with_one_superseded(root: Path, experiment: str, interrupted_status: str) -> None:
    record = tracked(root)  # exactly one live run of the state, with its version
    assert record["version"] is not None
    assert record["version"].tags["promotion.decision"] in ("champion", "candidate only")
    runs = parent_runs(root, experiment)
    (stale,) = [r for r in runs if r[0] != record["run_id"]]
    assert stale[1] == interrupted_status and stale[2]["pipeline.superseded_by"] == record["run_id"]
    assert sh(root, "dvc", "status", "--json").stdout.strip() in ("{}", "")


def test_sigkill_during_track_then_repro_records_the_state(project):
    new_experiment(project, "resume-after-kill")
    process = subprocess.Popen(
        ["dvc", "repro"], cwd=project, env=user_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.time() + 120
    while time.time() < deadline and not any(r[1] == "RUNNING" for r in parent_runs_safe(project)):
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGSTOP)  # frozen while its run is open (the run lasts about a second)
    assert any(r[1] == "RUNNING" for r in parent_runs_safe(project)), "track never started its run"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    (killed,) = parent_runs(project, "resume-after-kill")
    assert killed[1] == "RUNNING"  # what a kill leaves behind
    result = repro(project)
    assert "marked superseded" in result.stdout
    assert_recorded_with_one_superseded(project, "resume-after-kill", "KILLED")


def parent_runs_safe(root: Path) -> list:
    try:
        return parent_runs(root, "resume-after-kill")
    except sqlite3.Error:  # the store is being created or written
        return []


def test_an_unwritable_artifact_store_fails_in_one_line_then_repro_records_the_state(project):
    """The experiment's artifact location a file, not a directory (what a read-only or full artifact store looks like
    to MLflow). Not mlartifacts/ itself: the registered versions' files would be gone, which track refuses before it
    writes (tests/e2e/test_artifact_store.py)."""
    from mlflow import MlflowClient

    new_experiment(project, "resume-after-store-fault")
    blocked = project / "blocked-artifacts"
    blocked.write_text("not a directory")
    client = MlflowClient(f"sqlite:///{project / 'mlflow.db'}")
    client.create_experiment("resume-after-store-fault", artifact_location=blocked.as_uri())
    try:
        result = sh(project, "dvc", "repro")
        assert result.returncode != 0
        message = [line for line in result.stderr.splitlines() if line.startswith("error: track")]
        assert len(message) == 1 and "run `dvc repro` again" in message[0], result.stderr[-2000:]
        assert "Traceback" not in result.stderr
        (failed,) = parent_runs(project, "resume-after-store-fault")
        assert failed[1] == "FAILED"
    finally:
        blocked.unlink()
    repro(project)
    assert_recorded_with_one_superseded(project, "resume-after-store-fault", "FAILED")


def test_a_version_registered_without_its_decision_is_completed(project):
    """Killed between registering the version and tagging its decision: the next repro decides that version instead
    of logging the state again."""
    new_experiment(project, "resume-after-registration")
    repro(project)
    record = tracked(project)
    client, name, version = record["client"], record["registered_model"], record["version"]
    client.set_model_version_tag(name, version.version, "promotion.decision", "pending")  # as registration leaves it
    client.delete_registered_model_alias(name, "champion")
    (project / "reports/mlflow_run.json").unlink()  # track's output gone: DVC reruns it
    result = repro(project)
    assert "registration did not complete; completing it" in result.stdout
    after = tracked(project)
    assert after["run_id"] == record["run_id"] and after["version"].version == version.version
    assert after["version"].tags["promotion.decision"] == "champion"
    assert len(parent_runs(project, "resume-after-registration")) == 1


def test_a_locked_store_is_one_line(project):
    """Another process holding mlflow.db (a read-only store looks the same to SQLite): one line naming the store,
    not five chained SQLAlchemy tracebacks."""
    holder = sqlite3.connect(project / "mlflow.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = sh(project, "python", "-m", "pipeline.stages.track")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.returncode == 1 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: track: cannot use the MLflow tracking store") and "database is locked" in line


def test_other_inputs_do_not_replace_the_champion(project):
    """The same registered model, a version trained without one of the champion's input columns: clients of
    @champion would break on it, so it stays candidate, and its reasons say which columns changed."""
    new_experiment(project, "contract")
    repro(project)
    first = tracked(project)["version"]
    assert first.tags["promotion.decision"] == "champion" and "contract.inputs" in first.tags
    drop = yaml.safe_load((project / "params.yaml").read_text())["data"]["drop"]
    edit_params(project, "data.drop", [*drop, "fmde"])
    repro(project)
    second = tracked(project)["version"]
    assert second.tags["promotion.decision"] == "candidate only"
    assert "inputs differ (added [], removed ['fmde:numeric'])" in second.description
    edit_params(project, "data.drop", drop)


def test_a_column_name_longer_than_mlflows_limit(project):
    """A 300-character sensitive column: its metric names are shortened (start + hash), the full ones in the run's
    mlflow_names.json, and the state is recorded with exit 0."""
    long_name = "female_" + "x" * 293
    frame = pd.read_csv(project / "data/raw/sample.csv").rename(columns={"female": long_name})
    frame.to_csv(project / "data/raw/sample.csv", index=False)
    edit_params(project, "data.schema", None)  # the worked schema names `female`
    edit_params(project, "data.sensitive", [long_name, "black"])
    new_experiment(project, "long-column-names")
    repro(project)
    record = tracked(project)
    names = record["client"].download_artifacts(record["run_id"], "mlflow_names.json", str(project / ".dvc/tmp"))
    renamed = yaml.safe_load(Path(names).read_text())
    assert any(long_name in full for full in renamed.values())
    assert all(len(short) <= 250 for short in renamed) and all(len(k) <= 250 for k in record["run"].data.metrics)
    assert record["version"].tags["promotion.decision"] in ("champion", "candidate only")
