"""Aliases follow the workspace (issue: after three queued tutorial experiments `@candidate` and `@champion` were an
experiment never applied to the workspace; a file of another target became a version of the health model). The
tutorial's recipes (docs/tutorial/experiment.md) as a user runs them: queued experiments (run in .dvc/tmp/exps/) are
registered and decided, tagged with their experiment's name and verdict, and move no alias; one applied and reproduced
in the workspace becomes `candidate` and, passing the gate there, `champion`; the restore recipe makes the committed
state's version `candidate` again; a file of another target gets its own registered model, and restoring leaves `dvc
status` clean and the first model's aliases as they were."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import MULTICLASS_DATA, REPO, SAMPLE_POLICY, make_project
from dvc_project import git_repo, repro, sh

pytestmark = pytest.mark.slow


def aliases(root, name="sample-binexp"):
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{root.resolve() / 'mlflow.db'}")
    model = client.get_registered_model(name)
    versions = {str(v.version): v for v in client.search_model_versions(f"name = '{name}'")}
    return {alias: str(version) for alias, version in model.aliases.items()}, versions


def restore(root) -> str:
    """The tutorial's restore recipe, run as written (`git restore ... && dvc checkout && dvc repro`): its output."""
    page = (REPO / "docs" / "tutorial" / "experiment.md").read_text()
    line = next(x for x in page.splitlines() if x.startswith("git restore params.yaml"))
    recipe = line.split("#")[0].strip()
    assert recipe.endswith("&& dvc checkout && dvc repro"), recipe
    done = sh(root, "bash", "-c", f"set -e; {recipe}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def clean_status(root) -> dict:
    status = sh(root, "dvc", "status", "--json")
    assert status.returncode == 0, status.stderr
    return json.loads(status.stdout or "{}")


def test_queued_experiments_and_another_file_move_no_alias_of_the_workspace(tmp_path, sample_csv, multiclass_csv):
    root = git_repo(make_project(tmp_path / "aliases", sample_csv, **SAMPLE_POLICY))
    for key, value in (("user.name", "t"), ("user.email", "t@t")):  # DVC's experiment commits need an identity
        assert sh(root, "git", "config", key, value).returncode == 0
    first = repro(root).stdout
    assert "== verdict: champion: every check passes" in first, first[-2000:]
    assert aliases(root)[0] == {"candidate": "1", "champion": "1"}
    for commit in (["git", "add", "-A"], ["git", "commit", "-qm", "base"]):
        assert sh(root, *commit).returncode == 0  # the baseline the tutorial's restore recipe returns to

    queued = {"thresh07": ["decision.reject_threshold=0.7"], "uncalibrated": ["calibration.method=none"]}
    for name, settings in queued.items():  # the tutorial's queued experiments
        sets = [arg for setting in settings for arg in ("-S", setting)]
        assert sh(root, "dvc", "exp", "run", "--queue", "-n", name, *sets).returncode == 0
    run = sh(root, "dvc", "exp", "run", "--run-all", "-j", "1")  # `dvc queue start`, waiting for the queue
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    held, versions = aliases(root)
    assert held == {"candidate": "1", "champion": "1"}, held  # the experiments moved nothing a user serves
    by_experiment = {v.tags.get("dvc.experiment"): v for v in versions.values()}
    assert set(by_experiment) == {None, *queued}, by_experiment
    decided = by_experiment["thresh07"].tags["promotion.decision"]
    assert decided == "passed the gate (experiment thresh07: no alias moved)", decided
    assert "== verdict: passed the gate (experiment thresh07: no alias moved)" in run.stdout, run.stdout[-2000:]
    thresh07 = str(by_experiment["thresh07"].version)

    applied = sh(root, "dvc", "exp", "apply", "thresh07")
    assert applied.returncode == 0, applied.stderr
    adopted = repro(root).stdout
    expected = f"version {thresh07}, registered by experiment thresh07, is the workspace's state now"
    assert expected in adopted, adopted[-2000:]
    held, versions = aliases(root)
    assert held == {"candidate": thresh07, "champion": thresh07}, held
    assert versions[thresh07].tags["promotion.decision"] == "champion"

    restore(root)
    held, _ = aliases(root)
    assert held["candidate"] == "1", held  # the workspace's state again; champion stays the best that passed
    assert clean_status(root) == {}
    before = aliases(root)[0]

    # the how-to "Use your own data" (docs/how-to/own-data.md): a file of another target, then the restore recipe
    (root / MULTICLASS_DATA["path"]).write_bytes(multiclass_csv.read_bytes())
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["data"] = dict(MULTICLASS_DATA)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    repro(root)
    own, own_versions = aliases(root, "grades-grade")
    assert list(own_versions) == ["1"] and own["candidate"] == "1", (own, own_versions)
    assert aliases(root)[0] == before  # the health model's registry untouched
    restored = restore(root)
    assert "Running stage 'validate'" not in restored  # the new file in data/raw/ is no dependency of validate
    assert clean_status(root) == {}
    assert aliases(root)[0] == before
    assert sh(root, "git", "status", "--porcelain", "--untracked-files=no").stdout == ""  # the committed baseline
