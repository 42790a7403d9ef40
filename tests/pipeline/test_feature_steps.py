"""Every features step of params.yaml selects its transformer by registry name: each accepted name (default
params) runs the features stage on a small sample and gives finite matrices of one width for every split;
an unknown name or parameter stops with a message naming the key. Parametrised over the names the pipeline
accepts that are registered, so a newly registered transformer is covered at once."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, make_project, run_stages

from mllib.registry import FEATURE_STEPS
from pipeline.core import paths
from pipeline.core.build import feature_transformer
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError

CASES = [(step, name) for step, names in FEATURE_STEPS.items() for name in names]
# exact whitening of one-hot columns is singular; the stage's message says to regularise (tested below);
# category labels have no mean
PARAMS = {
    ("projection", "cholesky_whitening"): {"reg": 1e-6},
    ("categorical_imputer", "group_imputer"): {"strategy": "most_frequent"},
}


@pytest.fixture(scope="module")
def split_project(tmp_path_factory, sample_csv):
    root = make_project(tmp_path_factory.mktemp("steps"), sample_csv, **{"split.n_splits": 2})
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, ["validate", "clean", "split"])
    return root


def with_step(split_project, tmp_path, step, name, params=None):
    root = tmp_path / "p"
    shutil.copytree(split_project, root)
    cfg = yaml.safe_load((root / "params.yaml").read_text())
    cfg["features"][step] = {"name": name, "params": {} if params is None else params}
    (root / "params.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return root


@pytest.mark.parametrize("step,name", CASES, ids=[f"{s}={n}" for s, n in CASES])
def test_every_step_choice_runs_the_features_stage(step, name, split_project, tmp_path, monkeypatch):
    root = with_step(split_project, tmp_path, step, name, PARAMS.get((step, name)))
    run_stages(root, monkeypatch, ["features"])
    widths = set()
    for path in sorted((root / paths.FEATURES_DIR).glob("*.npy")):
        Z = np.load(path)
        assert np.isfinite(Z).all(), path.name
        widths.add(Z.shape[1])
    report = json.loads((root / paths.FEATURES_REPORT).read_text())
    assert len(report["final"]["features"]) in widths
    if name == "lda":
        assert widths == {1}  # at most K - 1 discriminant directions for a binary target


def test_unknown_step_name_names_the_key(split_project, tmp_path, monkeypatch):
    root = with_step(split_project, tmp_path, "scaler", "zscore")
    monkeypatch.chdir(root)
    with pytest.raises(PipelineError, match=r"features.scaler.name must be one of \[.*standard_scaler"):
        load_params()


def test_unknown_step_parameter_names_the_key(split_project, tmp_path, monkeypatch):
    """Checked by the features stage, which builds the step (validating params.yaml imports no algorithm)."""
    root = with_step(split_project, tmp_path, "numeric_imputer", "simple_imputer", {"strategy": "median", "k": 3})
    with pytest.raises(
        PipelineError, match=r"features.numeric_imputer.params.k: simple_imputer has no hyperparameter 'k'"
    ):
        run_stages(root, monkeypatch, ["features"])


def test_bad_step_value_stops_the_stage_naming_the_features_section(split_project, tmp_path, monkeypatch):
    root = with_step(split_project, tmp_path, "numeric_imputer", "simple_imputer", {"strategy": "mode"})
    with pytest.raises(
        PipelineError, match=r"features: fitting the features \(numeric_imputer=simple_imputer.*mode.*features\.\*"
    ):
        run_stages(root, monkeypatch, ["features"])


def test_exact_whitening_of_one_hot_columns_asks_for_regularisation(split_project, tmp_path, monkeypatch):
    root = with_step(split_project, tmp_path, "projection", "cholesky_whitening")
    with pytest.raises(PipelineError, match=r"projection=cholesky_whitening.*singular.*reg"):
        run_stages(root, monkeypatch, ["features"])


def test_group_imputer_takes_its_group_column_by_name(split_project, tmp_path, monkeypatch):
    """Impute each gappy numeric column with the median within groups of another numeric column, named in params."""
    params = {"group_column": "xage", "strategy": "median"}
    root = with_step(split_project, tmp_path, "numeric_imputer", "group_imputer", params)
    run_stages(root, monkeypatch, ["features"])
    root_bad = with_step(split_project, tmp_path / "bad", "numeric_imputer", "group_imputer", {"group_column": "zip"})
    with pytest.raises(PipelineError, match=r"group_column 'zip' is not a numeric feature column"):
        run_stages(root_bad, monkeypatch, ["features"])


def test_group_imputer_imputes_a_categorical_column_within_another_named_one(split_project, tmp_path, monkeypatch):
    params = {"group_column": "site", "strategy": "most_frequent"}
    root = with_step(split_project, tmp_path, "categorical_imputer", "group_imputer", params)
    run_stages(root, monkeypatch, ["features"])
    root_bad = with_step(
        split_project, tmp_path / "bad", "categorical_imputer", "group_imputer", {"group_column": "xage"}
    )
    with pytest.raises(
        PipelineError,
        match=r"categorical_imputer.params.group_column 'xage' is not a categorical feature "
        r"column; categorical columns: \['plan', 'site'\]",
    ):
        run_stages(root_bad, monkeypatch, ["features"])


def test_categorical_group_imputer_fills_the_most_frequent_category_of_the_rows_group():
    """plan missing in some rows: each gets the most frequent plan of its own site among the fit rows (the
    smallest on ties), and a row of a site unseen at fit gets the most frequent plan overall."""
    rng = np.random.default_rng(0)
    n = 300
    site = rng.choice(["1", "2", "3", "4"], n)
    plan = np.where(rng.random(n) < 0.6, np.char.add("p", site), rng.choice(["p1", "p2", "p9"], n)).astype(object)
    plan[rng.random(n) < 0.2] = None
    X = np.column_stack([rng.normal(size=n), plan, site]).astype(object)
    X[:, 0] = X[:, 0].astype(float)
    cfg = yaml.safe_load((REPO / "params.yaml").read_text())["features"]
    cfg["categorical_imputer"] = {
        "name": "group_imputer",
        "params": {"group_column": "site", "strategy": "most_frequent"},
    }
    fit = np.arange(n) < 200
    transformer = feature_transformer(cfg, ["x"], ["plan", "site"], seed=42).fit(X[fit])
    frame = pd.DataFrame({"plan": plan[fit], "site": site[fit]}).dropna()
    mode = {s: sorted(g["plan"].mode())[0] for s, g in frame.groupby("site")}
    X_new = X[~fit].copy()
    X_new[0, 2] = "7"  # a site not seen at fit
    X_new[0, 1] = None
    imputed = transformer.transformers_[1][1].steps[0][1].transform(X_new[:, 1:])
    overall = sorted(pd.Series(plan[fit]).dropna().mode())[0]
    expected = [p if p is not None else mode.get(s, overall) for p, s in zip(X_new[:, 1], X_new[:, 2])]
    assert imputed[:, 0].tolist() == expected
    assert any(p is None for p in X_new[:, 1]) and len({mode[s] for s in mode}) > 1  # a test that can fail


def test_seed_reaches_every_random_component(tmp_path):
    """params.yaml `seed` sets the random_state of the model and of random feature steps (unless params.yaml fixes
    it): a different seed gives a different random forest, the same seed the same bytes."""
    from mllib import io as mlio
    from mllib.preprocessing import RBFFeatures
    from pipeline.core.build import component_seed, model, seeded

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(120, 4)), rng.integers(0, 2, size=120)
    cfg = {"params": {"random_forest": {"n_estimators": 5, "max_features": 1}}}

    def saved(seed: int, name: str) -> bytes:
        mlio.save(model("random_forest", cfg, seed).fit(X, y), tmp_path / name)
        return (tmp_path / f"{name}.npz").read_bytes()

    assert saved(42, "a") == saved(42, "b") != saved(7, "c")
    assert model("random_forest", cfg, 42).random_state == component_seed(42, "model") != component_seed(7, "model")
    assert seeded(RBFFeatures, {"random_state": 3}, 42, "features.expansion") == {"random_state": 3}  # fixed by params
    assert component_seed(42, "model") != component_seed(42, "features.expansion")
