"""A team's tracking server: scripts/tracking-server.sh starts PostgreSQL (Debian's package, data in a temporary
folder, bound to 127.0.0.1) and `mlflow server` on it with a folder as the artifact store; the pipeline's track
stage logs to it over HTTP: the run with its metrics and datasets, the model's artifacts in the server's folder, and
the registered model version with its aliases."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import REPO, make_project
from dvc_project import git_repo, repro, sh, user_env

pytestmark = pytest.mark.slow
SCRIPT = REPO / "scripts" / "tracking-server.sh"


@pytest.fixture(scope="module")
def server():
    if not list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        pytest.fail("PostgreSQL is not installed: .ci/run installs Debian's postgresql package")
    # under /tmp itself: as root, PostgreSQL runs as the postgres user, who cannot enter pytest's private folders
    where = Path(tempfile.mkdtemp(prefix="tracking-server-", dir="/tmp"))
    started = subprocess.run(
        ["bash", str(SCRIPT), "start", str(where), "55433", "5056"], capture_output=True, text=True, env=user_env()
    )
    log = where / "mlflow.log"
    assert started.returncode == 0, started.stderr + (log.read_text()[-3000:] if log.exists() else "")
    yield started.stdout.strip(), where
    subprocess.run(["bash", str(SCRIPT), "stop", str(where)], capture_output=True)
    shutil.rmtree(where, ignore_errors=True)


def test_track_stage_logs_to_the_team_server(server, tmp_path, sample_csv):
    uri, where = server
    root = git_repo(make_project(tmp_path, sample_csv, **{"tracking.uri": uri}))
    result = repro(root)
    assert f"to {uri}" in result.stdout and not (root / "mlflow.db").exists() and not (root / "mlartifacts").exists()
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("sample-binexp")
    runs = client.search_runs([experiment.experiment_id], filter_string="tags.`pipeline.role` = 'parent'")
    assert len(runs) == 1
    run = runs[0]
    chosen = json.loads((root / "reports/metrics/train.json").read_text())["model"]
    assert run.data.metrics["test.roc_auc"] > 0.6 and run.data.params["model.name"] == chosen
    assert run.data.params["model.name_in_params"] == "auto"  # the model that ran, beside what params.yaml asked
    assert {i.dataset.name for i in run.inputs.dataset_inputs} == {"train", "test"}
    version = client.get_model_version_by_alias("sample-binexp", "candidate")
    assert version.run_id == run.info.run_id
    stored = list((where / "artifacts").rglob("MLmodel"))
    assert stored, "the model's artifacts are not in the server's artifact folder"
    second = sh(root, "dvc", "repro", "-f", "-s", "track")
    assert second.returncode == 0 and "already recorded" in second.stdout
