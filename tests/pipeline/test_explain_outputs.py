"""The explain stage's outputs on a small sample, per kind of model: TreeSHAP for a forest and the linear closed
form for logistic regression add up to the model's output to 1e-8 relative; LRP z+ (z^B at the standardised,
partly negative inputs) conserves the MLP's logit; permutation importance comes with Student-t intervals around
its mean; partial dependence covers the configured number of top features; the plot data and the report's
figures exist. With a label metric and a cost matrix, the explained decisions are those the evaluate stage made."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from conftest import MODEL_STAGES, SHARED_STAGES, cost_matrix_at_a_step, make_project, run_stages

from pipeline.core import paths
from pipeline.steps.feature_blocks import stated_sample

PDP_FEATURES = 2
SMALL = {
    "search.grid": {},
    "split.n_splits": 3,
    "explain.n_repeats": 5,  # 3 repeats (a t with 2 df) leave no column beyond its noise over 30 columns
    "explain.n_rows": 15,
    "explain.n_background": 10,
    "explain.grid_resolution": 5,
    "explain.pdp_features": PDP_FEATURES,
    "model.params": {
        "random_forest": {"n_estimators": 25, "min_samples_leaf": 10},
        "mlp": {"hidden_layer_sizes": [16]},
    },
}


@pytest.fixture(scope="module")
def featurised(tmp_path_factory, sample_csv):
    root = make_project(tmp_path_factory.mktemp("explain"), sample_csv, **SMALL)
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, SHARED_STAGES)
    return root


def project(featurised, sample_csv, tmp_path, **overrides):
    """A copy of the featurised project with more dotted params keys overridden (model stages only read them)."""
    root = tmp_path / "project"
    shutil.copytree(featurised, root)
    return make_project(root, sample_csv, **{**SMALL, **overrides})


def read(root, path):
    return json.loads((root / path).read_text())


@pytest.mark.parametrize(
    "name, method, relevance",
    [("random_forest", "tree", None), ("logistic_regression", "linear", None), ("mlp", "kernel", "lrp_z_plus")],
)
def test_explain_outputs(name, method, relevance, featurised, sample_csv, tmp_path, monkeypatch):
    root = project(
        featurised, sample_csv, tmp_path, **{"model.name": name, "explain.relevance": relevance or "lrp_epsilon"}
    )
    run_stages(root, monkeypatch, MODEL_STAGES + ["report"])

    attributions = read(root, paths.ATTRIBUTIONS)
    shapley = attributions["shapley"]
    assert shapley["method"] == method and len(shapley["values"]) == len(attributions["rows"]) == 15
    assert len(shapley["values"][0]) == len(attributions["columns"])
    assert "raw-column" in shapley["raw_columns"]  # what a per-raw-column sum means for this method
    if method in ("tree", "linear"):
        assert shapley["additivity_error_max_relative"] <= 1e-8
    if relevance:
        rel = attributions["relevance"]
        assert rel["method"] == relevance
        # z+ and z^B ignore the biases, so the logit is conserved wherever some positive contribution reaches it
        assert rel["conservation_error_median"] < 1e-10
    else:
        assert "relevance" not in attributions
    served_reasons_equal_the_attributions(root, attributions, exact=method in ("tree", "linear"))

    importance = read(root, paths.IMPORTANCE)
    assert importance["n_repeats"] == 5 and importance["confidence_level"] == 0.95
    assert [f["feature"] for f in importance["features"]] and {f["feature"] for f in importance["features"]} == set(
        attributions["columns"]
    )
    for f in importance["features"]:
        assert len(f["repeats"]) == 5 and f["ci_low"] <= f["mean"] <= f["ci_high"]
        assert f["ci_high"] - f["mean"] == pytest.approx(2.7764451051977987 * f["std"] / 5**0.5, rel=1e-9, abs=1e-15)

    pdp = read(root, paths.PARTIAL_DEPENDENCE)
    # the columns whose importance exceeds its noise (a one-sided t-test per column, Benjamini-Hochberg over them),
    # largest first: a column ranked higher but within its noise gets no curve
    from mllib.comparison import benjamini_hochberg

    spreads = [np.std(f["repeats"], ddof=1) for f in importance["features"]]
    floor = np.median(spreads)  # a column's spread at least the median one's
    p_values = [scipy.stats.t.sf(np.mean(f["repeats"]) / (max(sd, floor) / np.sqrt(5)), 4)
                for sd, f in zip(spreads, importance["features"])]  # fmt: skip
    beyond = [f["feature"] for f, keep in zip(importance["features"], benjamini_hochberg(p_values)) if keep]
    assert importance["beyond_noise"] == beyond
    top = beyond[:PDP_FEATURES]
    assert [c["feature"] for c in pdp["one_way"]] == top and len(top) == PDP_FEATURES
    for curve in pdp["one_way"]:
        assert len(curve["average"]) == len(curve["grid"]) <= 5 and len(curve["ice"]) == 15
    assert pdp["two_way"]["features"] == top

    for plot, column in [(paths.IMPORTANCE_PLOT, "importance"), (paths.SHAPLEY_PLOT, "mean_abs_shapley")]:
        frame = pd.read_csv(root / plot)
        assert len(frame) == len(attributions["columns"]) and frame[column].notna().all()
    assert set(pd.read_csv(root / paths.PDP_PLOT)["feature"]) <= set(top)
    figures = {p.name for p in (root / paths.FIGURES_DIR).iterdir()}
    assert {"importance.png", "shapley.png", "pdp_0.png", "pdp_1.png", "pdp_2d.png"} <= figures


def test_label_metric_explains_the_cost_matrix_decisions(featurised, sample_csv, tmp_path, monkeypatch):
    settings = {
        "model.name": "logistic_regression",
        "explain.scoring": "accuracy",
        "calibration.method": "isotonic",
        "explain.pdp_features": 0,
    }
    root = project(featurised, sample_csv, tmp_path, **settings)
    run_stages(root, monkeypatch, MODEL_STAGES[:4])
    cost = cost_matrix_at_a_step(pd.read_parquet(root / paths.TEST_PREDICTIONS)["proba_1"])
    t = cost[1][0] / (cost[1][0] + cost[0][1])
    make_project(root, sample_csv, **{**SMALL, **settings, "decision.cost_matrix": cost})
    run_stages(root, monkeypatch, MODEL_STAGES[2:])
    test, importance = read(root, paths.TEST_METRICS), read(root, paths.IMPORTANCE)
    assert importance["decision"]["rule"] == "cost_matrix" and importance["decision"]["threshold"] == t
    # isotonic steps put test rows exactly at t, where only the rule p >= t gives evaluate's decisions
    assert (pd.read_parquet(root / paths.TEST_PREDICTIONS)["proba_1"] == t).any()
    # the unpermuted baseline scores exactly the decisions evaluate made (not those at evaluate.threshold 0.5)
    assert importance["baseline"] == test["accuracy"]


def test_above_max_rows_explanations_use_a_stated_sample(featurised, sample_csv, tmp_path, monkeypatch, capsys):
    """explain.max_rows below the test rows: permutation importance, the explained rows and the background come from
    seeded samples of that many test and training rows, stated in both reports; the explained rows are named by
    their positions in the test table."""
    root = project(featurised, sample_csv, tmp_path, **{"model.name": "logistic_regression"})
    run_stages(root, monkeypatch, MODEL_STAGES[:4])
    n_test, n_train = len(pd.read_parquet(root / paths.TEST)), len(pd.read_parquet(root / paths.TRAIN))
    limit = n_test // 3
    make_project(root, sample_csv, **{**SMALL, "model.name": "logistic_regression", "explain.max_rows": limit})
    run_stages(root, monkeypatch, ["explain"])
    importance, attributions = read(root, paths.IMPORTANCE), read(root, paths.ATTRIBUTIONS)
    stated = (
        f"on {limit:,} of the {n_test:,} test rows (a seeded sample) and {limit:,} of the {n_train:,} training rows"
    )
    assert importance["sample"].startswith(stated) and attributions["sample"] == importance["sample"]
    assert stated in capsys.readouterr().out
    sampled = stated_sample(n_test, limit, seed=42, key=1)
    assert len(attributions["rows"]) == 15 and set(attributions["rows"]) <= set(sampled.tolist())
    assert max(attributions["rows"]) >= limit  # positions in the test table, not in the sample


def served_reasons_equal_the_attributions(root, attributions: dict, exact: bool) -> None:
    """The served answer's reasons for the explained test rows (pipeline/serving/reasons.py, through the served
    contract as the pyfunc model calls it) are their largest Shapley values, equal to attributions.json's (1e-9),
    with the rows' own values; a model explained by sampling serves none, and says why."""
    from pipeline.core.config import load_params
    from pipeline.core.explanation_records import Attributions
    from pipeline.core.io import read_predictor
    from pipeline.serving.contract import serve
    from pipeline.serving.reasons import TOP, reasons_settings
    from pipeline.serving.workspace import workspace_contract

    contract = workspace_contract(load_params(root / "params.yaml"))
    settings = reasons_settings(Attributions.read())
    rows = contract.typed(pd.read_parquet(root / paths.TEST).iloc[attributions["rows"]])  # as a request holds them
    out, _ = serve(read_predictor(root / paths.PREDICTOR), contract, rows, settings)
    if not exact:
        assert settings["method"] is None and "sampled" in settings["why"] and out["reasons"].isna().all()
        return
    values, columns = np.asarray(attributions["shapley"]["values"]), attributions["columns"]
    for i, reasons in enumerate(out["reasons"]):
        assert len(reasons) == TOP
        largest = np.sort(np.abs(values[i]))[::-1][:TOP]
        np.testing.assert_allclose([abs(r["contribution"]) for r in reasons], largest, rtol=0, atol=1e-9)
        for r in reasons:
            assert r["contribution"] == pytest.approx(values[i][columns.index(r["feature"])], abs=1e-9)
            raw = rows.iloc[i][r["feature"]]  # the row's own value, None when missing
            assert r["value"] == (None if pd.isna(raw) else raw), (r, raw)
