"""The whole pipeline through DVC and MLflow on a small sample, in a scratch git repository: `dvc repro`
runs every stage; a second run has nothing to do; a params change invalidates exactly the stages after the
one that reads it; MLflow holds one parent run with a child per search candidate and a pyfunc model that
reproduces the evaluate stage's test predictions from raw rows."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import REPO, make_project

pytestmark = pytest.mark.slow
COPY = ["mllib", "pipeline", "dvc.yaml", ".dvc/config", ".dvc/plots", ".dvcignore", ".gitignore"]


def sh(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "DVC_NO_ANALYTICS": "1", "MLFLOW_DISABLE_TELEMETRY": "true"}
    env.pop("MLFLOW_TRACKING_URI", None)
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env)


def downstream(stage: str) -> set[str]:
    """`stage` and every stage that depends on its outputs, directly or not (from dvc.yaml)."""
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    outs = {s: [o if isinstance(o, str) else next(iter(o)) for k in ("outs", "metrics", "plots") for o in spec.get(k, [])]
            for s, spec in stages.items()}
    found, frontier = {stage}, [stage]
    while frontier:
        current = frontier.pop()
        for s, spec in stages.items():
            if s not in found and any(d == o or d.startswith(o + "/") or o.startswith(d + "/")
                                      for d in spec.get("deps", []) for o in outs[current]):
                found.add(s)
                frontier.append(s)
    return found


@pytest.fixture(scope="module")
def repo(tmp_path_factory, sample_csv) -> Path:
    root = make_project(tmp_path_factory.mktemp("e2e"), sample_csv)
    for item in COPY:
        src, dst = REPO / item, root / item
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__")) if src.is_dir() else shutil.copy(src, dst)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sample project"]):
        assert sh(root, *cmd).returncode == 0
    result = sh(root, "dvc", "repro")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def status(root: Path) -> set[str]:
    result = sh(root, "dvc", "status", "--json")
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout or "{}"))


def test_repro_produces_every_report(repo):
    metrics = json.loads((repo / "reports/metrics/test.json").read_text())
    assert 0.6 < metrics["roc_auc"] <= 1
    assert (repo / "reports/report.html").read_text().startswith("<!DOCTYPE html>")
    assert status(repo) == set()


def test_second_repro_does_nothing(repo):
    result = sh(repo, "dvc", "repro")
    assert result.returncode == 0
    assert "Running stage" not in result.stdout
    assert "up to date" in result.stdout


@pytest.mark.parametrize("key, value, first_stage", [
    ("search.grid.logistic_regression.lam", [0.5, 5.0], "train"),
    ("model.params", {"logistic_regression": {"max_iter": 50}}, "train"),
    ("calibration.method", "none", "calibrate"),
    ("calibration.n_bins", 15, "calibrate"),
])
def test_params_change_invalidates_only_later_stages(repo, key, value, first_stage):
    original = (repo / "params.yaml").read_text()
    params = yaml.safe_load(original)
    *parents, leaf = key.split(".")
    node = params
    for p in parents:
        node = node[p]
    node[leaf] = value
    try:
        (repo / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        changed = status(repo)
    finally:
        (repo / "params.yaml").write_text(original)
    assert first_stage in changed
    assert changed <= downstream(first_stage), f"{key} also invalidates {sorted(changed - downstream(first_stage))}"


def test_mlflow_parent_run_children_and_model(repo):
    import mlflow
    from mlflow import MlflowClient

    record = json.loads((repo / "reports/mlflow_run.json").read_text())
    assert record["tracking_uri"] == f"sqlite:///{repo.resolve() / 'mlflow.db'}"
    client = MlflowClient(tracking_uri=record["tracking_uri"])
    parent = client.get_run(record["run_id"])
    assert parent.data.tags["pipeline.role"] == "parent"
    assert parent.data.params["split.n_splits"] == "5"
    assert parent.data.metrics["test.roc_auc"] == pytest.approx(json.loads((repo / "reports/metrics/test.json").read_text())["roc_auc"])
    assert any(k.startswith("dvc.md5.") for k in parent.data.tags)
    children = client.search_runs([record["experiment_id"]], filter_string=f"tags.`mlflow.parentRunId` = '{record['run_id']}'")
    search = json.loads((repo / "reports/search.json").read_text())
    assert len(children) == len(search["candidates"])
    assert all(len(client.get_metric_history(c.info.run_id, "valid_roc_auc")) == 5 for c in children)

    models = client.search_logged_models(experiment_ids=[record["experiment_id"]])
    assert len(models) == 1
    mlflow.set_tracking_uri(record["tracking_uri"])
    model = mlflow.pyfunc.load_model(models[0].model_uri)
    test = pd.read_parquet(repo / "data/processed/test.parquet")
    served = model.predict(test.drop(columns=["_row_id", "binexp", "zper"]))
    expected = pd.read_parquet(repo / "data/predictions/test.parquet")
    assert served["probability"].to_numpy() == pytest.approx(expected["proba"].to_numpy(), abs=1e-12)
    assert (served["prediction"].to_numpy() == expected["prediction"].to_numpy()).all()


def test_tracking_the_same_state_again_reuses_the_run(repo):
    before = json.loads((repo / "reports/mlflow_run.json").read_text())
    result = sh(repo, "dvc", "repro", "-f", "-s", "track")
    assert result.returncode == 0, result.stderr
    assert "already recorded" in result.stdout
    assert json.loads((repo / "reports/mlflow_run.json").read_text())["run_id"] == before["run_id"]
