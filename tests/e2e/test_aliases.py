"""Aliases follow the workspace (issue: after three queued README experiments `@candidate` and `@champion` were an
experiment never applied to the workspace). A state run outside the workspace (`dvc exp run --temp`, as a queued one
runs, in .dvc/tmp/exps/) is registered and decided, tagged with its experiment's name and verdict, and moves no alias;
applied and reproduced in the workspace, it becomes `candidate` and, passing the gate there, `champion`; the
committed params restored, `candidate` is the committed state's version again, and `dvc status` is clean."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLE_POLICY, make_project
from dvc_project import git_repo, repro, sh

pytestmark = pytest.mark.slow


def aliases(root):
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{root.resolve() / 'mlflow.db'}")
    model = client.get_registered_model("sample-binexp")
    versions = {str(v.version): v for v in client.search_model_versions("name = 'sample-binexp'")}
    return {alias: str(version) for alias, version in model.aliases.items()}, versions


def test_an_experiment_outside_the_workspace_moves_no_alias_until_applied(tmp_path, sample_csv):
    root = git_repo(make_project(tmp_path / "aliases", sample_csv, **SAMPLE_POLICY))
    for key, value in (("user.name", "t"), ("user.email", "t@t")):  # DVC's experiment commits need an identity
        assert sh(root, "git", "config", key, value).returncode == 0
    first = repro(root).stdout
    assert "== verdict: champion: every check passes" in first, first[-2000:]
    assert aliases(root)[0] == {"candidate": "1", "champion": "1"}
    for commit in (["git", "add", "-A"], ["git", "commit", "-qm", "base"]):
        assert sh(root, *commit).returncode == 0  # the baseline the README's restore recipe returns to

    run = sh(root, "dvc", "exp", "run", "--temp", "-n", "thresh07", "-S", "decision.reject_threshold=0.7")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    held, versions = aliases(root)
    assert held == {"candidate": "1", "champion": "1"}, held  # the experiment moved nothing a user serves
    assert versions["2"].tags["dvc.experiment"] == "thresh07"
    assert versions["2"].tags["promotion.decision"] == "passed the gate (experiment thresh07: no alias moved)"
    assert "== verdict: passed the gate (experiment thresh07: no alias moved)" in run.stdout, run.stdout[-2000:]

    applied = sh(root, "dvc", "exp", "apply", "thresh07")
    assert applied.returncode == 0, applied.stderr
    adopted = repro(root).stdout
    assert "version 2, registered by experiment thresh07, is the workspace's state now" in adopted, adopted[-2000:]
    held, versions = aliases(root)
    assert held == {"candidate": "2", "champion": "2"}, held
    assert versions["2"].tags["promotion.decision"] == "champion"

    restored = sh(root, "git", "restore", "params.yaml", "dvc.lock", "reports/metrics.json")
    assert restored.returncode == 0, restored.stderr
    assert sh(root, "dvc", "checkout").returncode == 0
    repro(root)
    held, _ = aliases(root)
    assert held["candidate"] == "1", held  # the workspace's state again; champion stays the best that passed
    status = sh(root, "dvc", "status", "--json")
    assert json.loads(status.stdout or "{}") == {}, status.stdout
