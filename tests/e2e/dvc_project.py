"""Scratch DVC projects for the end-to-end tests: the project's code and pipeline copied beside a params.yaml and a
data file (tests/conftest.py), committed to a fresh git repository, and commands run there as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from conftest import copy_repo

COPY = ["mllib", "pipeline", "dvc.yaml", ".dvc/config", ".dvc/plots", ".dvcignore", ".gitignore", "data/schemas"]


def user_env() -> dict[str, str]:
    """The environment of a user who activated the project's virtual environment (default MLflow store)."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "DVC_NO_ANALYTICS": "1",
        "MLFLOW_DISABLE_TELEMETRY": "true",
    }
    env.pop("MLFLOW_TRACKING_URI", None)
    # the scratch project's own copy of mllib and pipeline is compiled by its first stage and read as bytecode by the
    # next twelve (with PYTHONDONTWRITEBYTECODE, set on CI machines, each stage compiled them again: ~0.5 s each)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def sh(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=user_env())


def git_repo(root: Path) -> Path:
    """Copy the pipeline's code into `root` (which holds params.yaml and the data) and commit it all."""
    copy_repo(root, COPY)
    for cmd in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sample project"],
    ):
        assert sh(root, *cmd).returncode == 0
    return root


def repro(root: Path, *args: str) -> subprocess.CompletedProcess:
    result = sh(root, "dvc", "repro", *args)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def output_md5s(root: Path) -> dict[str, str]:
    """{stage: path -> md5} of every output in the project's dvc.lock but track's (its record names a run)."""
    lock = yaml.safe_load((root / "dvc.lock").read_text())["stages"]
    return {
        f"{stage}: {out['path']}": out["md5"]
        for stage, entry in lock.items()
        if stage != "track"
        for out in entry.get("outs", [])
    }


def in_cache(root: Path, md5: str) -> bool:
    """The file or directory listing of this md5 is in the project's DVC cache."""
    return (root / ".dvc/cache/files/md5" / md5[:2] / md5[2:]).exists()


def tracked(root: Path) -> dict:
    """The MLflow record of the project's current pipeline state (reports/mlflow_run.json names the state): the
    default store's URI, a client, the experiment id, the parent run and, when it was registered, its version."""
    import json

    from mlflow import MlflowClient

    record = json.loads((root / "reports/mlflow_run.json").read_text())
    uri = f"sqlite:///{root.resolve() / 'mlflow.db'}"
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name(record["experiment"]).experiment_id
    runs = client.search_runs([experiment], filter_string=f"tags.`pipeline.state` = '{record['pipeline_state']}'")
    runs = [r for r in runs if not r.data.tags.get("pipeline.superseded_by")]  # interrupted runs, replaced
    assert len(runs) == 1, runs
    versions = client.search_model_versions(
        f"name = '{record['registered_model']}' and run_id = '{runs[0].info.run_id}'"
    )
    return {
        "tracking_uri": uri,
        "client": client,
        "experiment_id": experiment,
        "run_id": runs[0].info.run_id,
        "run": runs[0],
        "version": versions[0] if versions else None,
        **record,
    }


def served_model(root: Path):
    import mlflow

    record = tracked(root)
    client = record["client"]
    models = [
        m
        for m in client.search_logged_models(experiment_ids=[record["experiment_id"]])
        if m.source_run_id == record["run_id"]
    ]  # the model of this pipeline state's run
    assert len(models) == 1
    mlflow.set_tracking_uri(record["tracking_uri"])
    return mlflow.pyfunc.load_model(models[0].model_uri)


@contextmanager
def scoring_server(model):
    """MLflow's scoring server for the loaded pyfunc `model`, in a thread of this process: yields its URL."""
    import socket
    import threading
    import time

    import uvicorn
    from mlflow.pyfunc import scoring_server as server_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(server_app.init(model), host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}/invocations"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def send(url: str, body: bytes, content_type: str) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def assert_served_equals_evaluate(root: Path, not_features: list[str]) -> None:
    """The served model, given the raw test rows, returns the evaluate stage's probabilities and decisions (a
    regressor: its predictions and intervals)."""
    classes = json.loads((root / "data/processed/target.json").read_text())["classes"]
    test = pd.read_parquet(root / "data/processed/test.parquet")
    model = served_model(root)
    # in-process, MLflow checks the signature's types first: numbers as float64, labels as text
    typed = model.unwrap_python_model().contract.typed(test)
    served = model.predict(typed.join(test.drop(columns=[*typed.columns, *(c for c in not_features if c in test)])))
    features = test[typed.columns]
    expected = pd.read_parquet(root / "data/predictions/test.parquet")
    said = [part for flag in served["flags"] if flag for part in flag.split("; ")]  # each gap, said per row
    # gaps, the new levels of a high-cardinality column (a car's name) and numbers beyond the training rows' range,
    # said per row
    expected_flags = (
        "missing (imputed)",
        "missing (imputed, audited as its own group)",
        "missing (the level (missing))",  # a missing label: its own level (features.categorical_imputer)
        "missing (the level (missing), audited as its own group)",
        "missing (the level (missing), unseen in training: no level's column)",
        "unseen in training (no level's column)",
        "(extrapolated)",
    )
    assert all(part.endswith(expected_flags) for part in said), said[:5]
    with scoring_server(model) as url:  # MLflow's scoring server, the rows as text/csv: the same answer
        status, answer = send(url, features.to_csv(index=False).encode(), "text/csv")
    assert status == 200, answer
    by_server = pd.DataFrame(answer["predictions"])
    assert list(by_server.columns) == list(served.columns)
    for column in served.columns:
        if pd.api.types.is_float_dtype(served[column]):
            np.testing.assert_allclose(by_server[column], served[column], rtol=0, atol=1e-9)
        else:
            assert by_server[column].astype(str).tolist() == served[column].astype(str).tolist(), column
    if not classes:
        assert list(served.columns) == ["prediction", "lower", "upper", "reasons", "flags"]
        for column in ("prediction", "lower", "upper"):
            np.testing.assert_allclose(served[column], expected[column], rtol=0, atol=1e-12)
        return
    columns = [f"probability_{c}" for c in classes] + ["prediction", "accepted", "prediction_set", "reasons", "flags"]
    assert list(served.columns) == columns
    for k, c in enumerate(classes):
        np.testing.assert_allclose(served[f"probability_{c}"], expected[f"proba_{k}"], rtol=0, atol=1e-12)
    decided = np.array(classes, dtype=object)[expected["prediction"].to_numpy()]
    assert (served["prediction"].astype(str).to_numpy() == decided.astype(str)).all()
    np.testing.assert_array_equal(served["accepted"].to_numpy(), expected["accepted"].to_numpy())
    # each row's conformal set: the classes evaluate's in_set_<k> columns hold
    sets = [[str(c) for k, c in enumerate(classes) if row[f"in_set_{k}"]] for _, row in expected.iterrows()]
    assert [[str(c) for c in s] for s in served["prediction_set"]] == sets
