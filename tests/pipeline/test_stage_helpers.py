"""Pure helpers of the calibrate, evaluate and fairness stages and pipeline/core/summaries.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import classification_target
from partial_records import partial
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

from mllib import registry
from mllib.calibration import (
    HistogramBinning,
    OneVsRestCalibration,
    PlattScaling,
    expected_calibration_error,
    maximum_calibration_error,
)
from mllib.decisions import bayes_threshold
from mllib.fairness import GroupThresholdOptimizer, criterion_gap, fairness_report
from mllib.linear import LogisticRegression
from mllib.metrics import brier_score
from pipeline.core.records import TrainMetrics
from pipeline.core.summaries import GROUP_RATES, calibration_report, group_calibration, reliability_rows
from pipeline.steps.calibration import calibrator_of, cross_fitted
from pipeline.steps.evaluation import GAP_DIAGNOSIS, cost_report, gap_report, selective_report
from pipeline.steps.fairness_audit import (
    accuracies,
    compatibility,
    every_criterion,
    macro_gaps,
    mitigate,
    plot_rows,
)
from pipeline.steps.feature_blocks import fit_weighted

T2 = classification_target(2)


def two(p):
    """(n, 2) class probabilities of p(positive)."""
    p = np.asarray(p, dtype=float)
    return np.column_stack([1 - p, p])


def oof(n=300, k=3, seed=0):
    rng = np.random.default_rng(seed)
    score = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * score))).astype(np.int64)
    fold = np.arange(n) % k
    return score, y, fold


# ---- calibrate.cross_fitted -------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["platt", "none", "temperature"])
def test_cross_fitted_output_is_probabilities(method):
    score, y, fold = oof()
    P = cross_fitted(registry.CALIBRATORS[method](), score, y, fold)
    assert P.shape == (y.size, 2) and np.all((P > 0) & (P < 1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("method", ["isotonic", "histogram_binning"])
def test_cross_fitted_piecewise_calibrators_give_probabilities(method):
    score, y, fold = oof()
    P = cross_fitted(registry.CALIBRATORS[method](), score, y, fold)
    assert P.shape == (y.size, 2) and np.all((P >= 0) & (P <= 1))
    assert (
        calibration_report(classification_target(P.shape[1]), y, P, {"n_bins": 10, "binning": "uniform"})["ece"] < 0.1
    )


def test_each_fold_is_scored_by_a_calibrator_fitted_on_the_other_folds():
    score, y, fold = oof()
    p = cross_fitted(PlattScaling(), score, y, fold)[:, 1]
    for k in range(3):
        held = fold == k
        expected = PlattScaling().fit(score[~held], y[~held]).transform(score[held])
        np.testing.assert_allclose(p[held], expected, rtol=1e-12)


def test_labels_of_a_fold_never_reach_its_own_probabilities():
    score, y, fold = oof()
    before = cross_fitted(PlattScaling(), score, y, fold)[:, 1]
    flipped = y.copy()
    flipped[fold == 0] = 1 - flipped[fold == 0]  # change labels in fold 0 only
    after = cross_fitted(PlattScaling(), score, flipped, fold)[:, 1]
    np.testing.assert_array_equal(after[fold == 0], before[fold == 0])  # fold 0: fitted without its labels
    assert not np.allclose(after[fold != 0], before[fold != 0])  # the others did use fold 0


def test_cross_fitted_differs_from_in_sample_fit():
    score, y, fold = oof()
    in_sample = PlattScaling().fit(score, y).transform(score)
    assert not np.allclose(cross_fitted(PlattScaling(), score, y, fold)[:, 1], in_sample)


def test_calibrator_of_takes_the_chosen_methods_settings_only():
    cfg = {
        "method": "histogram_binning",
        "params": {"histogram_binning": {"n_bins": 4, "prior_strength": 0.0}, "platt": {"smooth_targets": False}},
    }
    c = calibrator_of(cfg, classification_target(2))
    assert isinstance(c, HistogramBinning) and (c.n_bins, c.prior_strength, c.strategy) == (4, 0.0, "quantile")
    assert calibrator_of({**cfg, "method": "platt"}, classification_target(2)).smooth_targets is False
    assert (
        calibrator_of({"method": "platt", "params": {}}, classification_target(2)).get_params()
        == PlattScaling().get_params()
    )


@pytest.mark.parametrize(
    "method, one_vs_rest",
    [("platt", True), ("isotonic", True), ("histogram_binning", True), ("temperature", False), ("none", False)],
)
def test_calibrator_of_more_than_two_classes(method, one_vs_rest):
    c = calibrator_of({"method": method, "params": {}}, classification_target(3))
    assert isinstance(c, OneVsRestCalibration) == one_vs_rest
    assert isinstance(c.calibrator if one_vs_rest else c, registry.CALIBRATORS[method])


def test_calibrator_of_refuses_an_unknown_setting():
    from pipeline.core.errors import PipelineError

    with pytest.raises(PipelineError, match="calibration.params.platt.bins"):
        calibrator_of({"method": "platt", "params": {"platt": {"bins": 3}}}, classification_target(2))


def test_cross_fitted_multiclass_rows_are_distributions_fitted_without_their_fold():
    rng = np.random.default_rng(4)
    S = rng.normal(size=(300, 3))
    y = np.argmax(S + rng.normal(size=(300, 3)), axis=1)
    fold = np.arange(300) % 3
    for calibrator in (
        calibrator_of({"method": "platt", "params": {}}, classification_target(3)),
        registry.CALIBRATORS["temperature"](),
    ):
        P = cross_fitted(calibrator, S, y, fold)
        assert P.shape == (300, 3)
        np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
        held = fold == 2
        from mllib.base import clone

        expected = clone(calibrator).fit(S[~held], y[~held]).predict_proba(S[held])
        np.testing.assert_allclose(P[held], expected, rtol=1e-12)


def test_cross_fitted_keeps_the_settings_of_the_calibrator():
    score, y, fold = oof()
    p = cross_fitted(HistogramBinning(n_bins=4, prior_strength=0.0), score, y, fold)[:, 1]
    for k in range(3):
        held = fold == k
        # prior 0 and quantile bins: each held-out score gets its bin's raw frequency among the other folds
        edges = np.quantile(score[~held], [0.25, 0.5, 0.75])
        fit_bin, held_bin = (
            np.searchsorted(edges, score[~held], side="right"),
            np.searchsorted(edges, score[held], side="right"),
        )
        frequency = np.array([y[~held][fit_bin == b].mean() for b in range(4)])
        np.testing.assert_allclose(p[held], frequency[held_bin], rtol=1e-12)
    raw = cross_fitted(PlattScaling(smooth_targets=False), score, y, fold)[:, 1]
    assert not np.allclose(raw, cross_fitted(PlattScaling(), score, y, fold)[:, 1])
    held = fold == 1
    np.testing.assert_allclose(
        raw[held], PlattScaling(smooth_targets=False).fit(score[~held], y[~held]).transform(score[held])
    )


# ---- evaluate.gap_report ----------------------------------------------------------------------------------


def test_gap_within_two_cv_standard_deviations():
    y = np.array([0, 0, 1, 1])
    p = np.array([0.1, 0.6, 0.4, 0.9])  # ROC AUC 0.75
    r = gap_report(
        partial(TrainMetrics, {"scoring": "roc_auc", "cv_mean": 0.8, "cv_std": 0.03}),
        T2,
        y,
        two(p),
        (p >= 0.5).astype(int),
    )
    assert r["scoring"] == "roc_auc" and r["test"] == pytest.approx(0.75)
    assert r["gap"] == pytest.approx(0.05)
    assert r["diagnosis"] == "within CV variation"


def test_gap_beyond_two_cv_standard_deviations():
    y = np.array([0, 0, 1, 1])
    p = np.array([0.1, 0.6, 0.4, 0.9])
    r = gap_report(
        partial(TrainMetrics, {"scoring": "roc_auc", "cv_mean": 0.8, "cv_std": 0.02}),
        T2,
        y,
        two(p),
        (p >= 0.5).astype(int),
    )
    assert r["diagnosis"] == GAP_DIAGNOSIS and "leakage" in r["diagnosis"]
    r = gap_report(
        partial(TrainMetrics, {"scoring": "roc_auc", "cv_mean": 0.6, "cv_std": 0.02}),
        T2,
        y,
        two(p),
        (p >= 0.5).astype(int),
    )
    assert r["gap"] == pytest.approx(-0.15) and r["diagnosis"] == GAP_DIAGNOSIS  # better on test is also a gap


def test_gap_label_scorer_uses_the_decisions():
    y = np.array([0, 0, 1, 1])
    p = np.array([0.1, 0.6, 0.4, 0.9])
    pred = np.array([0, 0, 1, 1])  # perfect decisions (e.g. another threshold) although p >= 0.5 gets 2 of 4
    r = gap_report(partial(TrainMetrics, {"scoring": "accuracy", "cv_mean": 1.0, "cv_std": 0.0}), T2, y, two(p), pred)
    assert r["test"] == 1.0 and r["gap"] == 0.0 and r["diagnosis"] == "within CV variation"


def test_gap_probability_scorer_uses_the_probabilities():
    y = np.array([0, 1])
    p = np.array([0.2, 0.7])
    r = gap_report(
        partial(TrainMetrics, {"scoring": "brier", "cv_mean": 0.1, "cv_std": 0.1}), T2, y, two(p), np.array([1, 0])
    )
    assert r["test"] == pytest.approx((0.2**2 + 0.3**2) / 2)


# ---- fairness helpers -------------------------------------------------------------------------------------


def _scored_groups(n=600, seed=3):
    """Calibrated-looking probabilities whose group 'b' is scored lower than 'a' at the same label: a single
    threshold gives the groups different TPRs."""
    rng = np.random.default_rng(seed)
    g = np.where(rng.random(n) < 0.5, "a", "b")
    y = (rng.random(n) < np.where(g == "a", 0.6, 0.4)).astype(np.int64)
    p = 1 / (1 + np.exp(-(1.5 * (2 * y - 1) + rng.normal(size=n) - 0.8 * (g == "b"))))
    return p, y, g


def test_mitigation_reaches_a_smaller_gap_on_the_rows_it_was_fitted_on():
    p, y, g = _scored_groups()
    p_test, y_test, g_test = _scored_groups(seed=4)
    deployed = (p_test >= 0.5).astype(int)
    m = mitigate(p, y, g, p_test, y_test, g_test, "equal_opportunity", 0.01, 0.5, deployed)
    optimiser = GroupThresholdOptimizer("equal_opportunity", 0.01, base_threshold=0.5).fit(p, y, g)
    assert m["applied"] and m["thresholds"] == optimiser.report(p_test, y_test, g_test)["thresholds"]
    fit = m["fitted_oof"]
    assert fit["gap_before"] == pytest.approx(criterion_gap(y, (p >= 0.5).astype(int), g, "equal_opportunity"))
    assert fit["gap_after"] < fit["gap_before"] and fit["gap_after"] <= 0.01 + 0.02  # tolerance + TPR grid step
    decided = optimiser.predict(p_test, g_test)
    assert m["test"]["gap_after"] == pytest.approx(criterion_gap(y_test, decided, g_test, "equal_opportunity"))
    assert m["test"]["accuracy_cost"] == pytest.approx(m["test"]["accuracy_before"] - m["test"]["accuracy_after"])
    assert m["test"]["accuracy_before"] == pytest.approx(np.mean(deployed == y_test))
    # "before" is whatever was deployed, never recomputed from the probabilities
    other = np.where(np.arange(len(p_test)) % 7 == 0, 1 - deployed, deployed)
    moved = mitigate(p, y, g, p_test, y_test, g_test, "equal_opportunity", 0.01, 0.5, other)["test"]
    assert moved["accuracy_before"] == pytest.approx(np.mean(other == y_test)) != m["test"]["accuracy_before"]
    assert moved["gap_before"] == pytest.approx(criterion_gap(y_test, other, g_test, "equal_opportunity"))


def test_mitigation_that_cannot_be_fitted_is_reported_with_its_reason():
    p, y, g = _scored_groups()
    y = np.where(g == "b", 0, y)  # group b has no positives: its TPR is undefined
    m = mitigate(p, y, g, p, y, g, "equal_opportunity", 0.0, 0.5, (p >= 0.5).astype(int))
    assert m == {"applied": False, "reason": m["reason"]} and "no positives" in m["reason"]


def test_every_criterion_gaps_of_two_decision_sets():
    y = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    g = np.array(["a"] * 4 + ["b"] * 4)
    before = np.array([1, 1, 1, 0, 1, 0, 0, 0])  # selection a 3/4, b 1/4; TPR a 1, b 1/2; FPR a 1/2, b 0
    after = np.array([1, 1, 0, 0, 1, 1, 0, 0])  # perfect for both groups
    out = every_criterion(y, before, after, g)
    assert set(out) == {"demographic_parity", "equal_opportunity", "equalized_odds", "predictive_parity"}
    assert out["demographic_parity"] == {"gap_before": pytest.approx(0.5), "gap_after": 0.0}
    assert out["equal_opportunity"]["gap_before"] == pytest.approx(0.5) and out["equalized_odds"][
        "gap_before"
    ] == pytest.approx(0.5)
    assert out["predictive_parity"]["gap_before"] == pytest.approx(1 - 2 / 3)  # precision a 2/3, b 1


def test_accuracies_of_the_deployed_and_the_changed_decisions():
    y = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    deployed = np.array([1, 1, 1, 0, 1, 0, 0, 0])
    reweighed = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    out = accuracies(y, deployed, reweighed)
    assert out["accuracy_before"] == pytest.approx(6 / 8) and out["accuracy_after"] == 1.0
    assert out["accuracy_cost"] == pytest.approx(-2 / 8)  # negative: reweighing gained accuracy here


def test_macro_gaps_of_multiclass_decisions():
    y = np.array([0, 1, 2, 0, 1, 2])
    g = np.array(["a"] * 3 + ["b"] * 3)
    before = np.array([0, 1, 2, 0, 0, 0])  # b: everything decided 0
    out = macro_gaps(classification_target(3), y, before, y, g)
    assert out["demographic_parity"]["gap_after"] == 0.0
    # selection rates a: 1/3 each; b: (1, 0, 0): per-class gaps 2/3, 1/3, 1/3, macro 4/9
    assert out["demographic_parity"]["gap_before"] == pytest.approx(4 / 9)


def test_fit_weighted_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(np.int64)
    w = rng.integers(1, 4, size=200).astype(float)
    model = LogisticRegression(lam=1.0)
    assert fit_weighted(model, X, y, w) is None
    repeated = LogisticRegression(lam=1.0).fit(np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)))
    np.testing.assert_allclose(model.predict_proba(X), repeated.predict_proba(X), atol=1e-8)


def test_fit_weighted_reports_a_model_without_sample_weight_plainly():
    class Unweighted:
        def fit(self, X, y):
            raise AssertionError("must not be called")

    assert fit_weighted(Unweighted(), np.zeros((4, 1)), np.array([0, 1, 0, 1]), np.ones(4)) == (
        "not supported: Unweighted cannot be fitted with sample weights"
    )
    reason = fit_weighted(LogisticRegression(), np.zeros((4, 1)), np.array([0, 1, 0, 1]), -np.ones(4))
    assert reason.startswith("the weighted refit failed: ") and "sample_weight" in reason


def test_compatibility_uses_only_groups_that_enter_the_criteria():
    audit = {
        "groups": {
            "a": {"small": False, "base_rate": 0.3},
            "b": {"small": False, "base_rate": 0.6},
            "c": {"small": True, "base_rate": 0.9},
            "d": {"small": False, "base_rate": 1.0},
        }
    }
    c = compatibility(audit)
    assert c["groups"] == ["a", "b"] and c["base_rates"] == [0.3, 0.6] and not c["equal_base_rates"]
    assert not c["sets"]["equalized_odds+predictive_parity"]["possible"]
    equal = compatibility(
        {"groups": {"a": {"small": False, "base_rate": 0.4}, "b": {"small": False, "base_rate": 0.4}}}
    )
    assert equal["equal_base_rates"] and equal["sets"]["all"]["possible"]
    assert "cannot be judged" in compatibility({"groups": {"a": {"small": False, "base_rate": 0.4}}})["statement"]


def test_plot_rows_name_each_group_with_its_attribute_and_carry_intervals():
    audit = fairness_report(
        np.array([0, 1, 1, 0, 1, 0]),
        np.array([0, 1, 0, 0, 1, 1]),
        {"sex": np.array(["0", "0", "0", "1", "1", "1"]), "race": np.array(["x", "y"] * 3)},
        n_boot=20,
        min_group_size=1,
    )
    rows = plot_rows(T2, audit)
    assert {r["group"] for r in rows} == {
        "sex=0",
        "sex=1",
        "race=x",
        "race=y",
        "sex=0,race=x",
        "sex=0,race=y",
        "sex=1,race=x",
        "sex=1,race=y",
    }
    assert {r["metric"] for r in rows} == set(GROUP_RATES)
    first = next(r for r in rows if r["group"] == "sex=0" and r["metric"] == "tpr")
    assert first["value"] == pytest.approx(1 / 2) and first["ci_low"] <= first["value"] <= first["ci_high"]


# ---- summaries --------------------------------------------------------------------------------------------


def test_calibration_report_matches_reference():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.01, 0.99, 500)
    y = (rng.random(500) < p).astype(int)
    q = calibration_report(T2, y, two(p), {"n_bins": 10, "binning": "uniform"})
    assert set(q) == {"ece", "mce", "brier", "log_loss", "n_bins_used", "n_nonempty_bins", "n", "brier_decomposition"}
    assert q["brier"] == pytest.approx(brier_score_loss(y, p))
    assert q["log_loss"] == pytest.approx(sk_log_loss(y, p))
    edges = np.linspace(0, 1, 11)
    idx = np.clip(np.digitize(p, edges[1:-1], right=False), 0, 9)
    gaps = [abs(p[idx == b].mean() - y[idx == b].mean()) for b in range(10) if np.any(idx == b)]
    weights = [np.mean(idx == b) for b in range(10) if np.any(idx == b)]
    assert q["ece"] == pytest.approx(np.dot(gaps, weights))
    assert q["mce"] == pytest.approx(max(gaps))


def test_reliability_rows_one_per_bin_with_label_and_empty_bins():
    y = np.array([0, 1, 1, 0])
    p = np.array([0.05, 0.15, 0.95, 0.92])
    rows = reliability_rows(T2, y, two(p), {"n_bins": 5, "binning": "uniform"}, "after")
    assert [r["bin"] for r in rows] == [0, 1, 2, 3, 4]
    assert all(r["calibration"] == "after" for r in rows)
    assert [r["count"] for r in rows] == [2, 0, 0, 0, 2]
    assert math.isnan(rows[1]["mean_predicted"]) and math.isnan(rows[1]["fraction_positive"])
    assert rows[0]["mean_predicted"] == pytest.approx(0.10) and rows[0]["fraction_positive"] == pytest.approx(0.5)
    assert rows[4]["fraction_positive"] == pytest.approx(0.5)


def test_calibration_report_records_bins_and_an_exact_brier_decomposition():
    rng = np.random.default_rng(2)
    p = rng.uniform(0.01, 0.99, 400)
    y = (rng.random(400) < p).astype(int)
    r = calibration_report(T2, y, two(p), {"n_bins": 8, "binning": "quantile"})
    assert r["n"] == 400 and r["n_bins_used"] == 8 and r["n_nonempty_bins"] == 8
    bins = {"n_bins": 8, "strategy": "quantile"}  # the configured binning, not the uniform default
    assert r["ece"] == expected_calibration_error(y, p, **bins) and r["mce"] == maximum_calibration_error(y, p, **bins)
    assert r["ece"] != expected_calibration_error(y, p, n_bins=8)
    d = r["brier_decomposition"]
    assert d["reliability"] - d["resolution"] + d["uncertainty"] + d["within_bin"] == pytest.approx(
        brier_score(y, p), abs=1e-12
    )
    assert d["uncertainty"] == pytest.approx(y.mean() * (1 - y.mean()))


def test_group_calibration_within_each_group_before_and_after():
    rng = np.random.default_rng(5)
    g = np.where(rng.random(600) < 0.5, "0", "1")
    truth = rng.uniform(0.05, 0.95, 600)
    y = (rng.random(600) < truth).astype(int)
    skewed = np.where(g == "1", truth**3, truth)  # group 1 badly calibrated before
    out = group_calibration(T2, y, two(skewed), two(truth), {"sex": g}, {"n_bins": 10, "binning": "uniform"})
    assert list(out) == ["sex"] and list(out["sex"]) == ["0", "1"]
    one = out["sex"]["1"]
    assert one["n"] == int(np.sum(g == "1")) and one["base_rate"] == pytest.approx(y[g == "1"].mean())
    assert one["before"]["ece"] > 0.15 > one["after"]["ece"]
    assert out["sex"]["0"]["before"] == out["sex"]["0"]["after"]  # unchanged probabilities, same numbers


def test_multiclass_calibration_is_judged_on_the_top_label_with_classwise_ece():
    rng = np.random.default_rng(8)
    logits = rng.normal(size=(600, 3)) * 2
    P = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(3, p=row) for row in P])
    r = calibration_report(classification_target(P.shape[1]), y, P, {"n_bins": 10, "binning": "uniform"})
    top_right = (np.argmax(P, axis=1) == y).astype(int)
    assert r["ece"] == expected_calibration_error(top_right, P.max(axis=1), n_bins=10)
    assert r["ece_of"] == "top label" and 0 <= r["classwise_ece"] < 0.1 and "brier_decomposition" not in r
    assert r["brier"] == pytest.approx(np.mean(np.sum((P - np.eye(3)[y]) ** 2, axis=1)))
    assert r["log_loss"] == pytest.approx(sk_log_loss(y, P))
    rows = reliability_rows(classification_target(P.shape[1]), y, P, {"n_bins": 5, "binning": "uniform"}, "after")
    assert sum(row["count"] for row in rows) == 600


# ---- evaluate: decisions --------------------------------------------------------------------------------


def test_positive_at_p_at_least_the_bayes_threshold_is_a_minimum_expected_cost_decision():
    cost = np.array([[0, 5], [1, 0]])  # a false negative costs 5 false positives
    t = bayes_threshold(cost)
    assert t == pytest.approx(1 / 6) and bayes_threshold([[0, 1], [1, 0]]) == pytest.approx(0.5)
    p = np.array([0.0, 0.1, t, 0.2, 0.5, 0.9, 1.0])
    pred = (p >= t).astype(int)
    np.testing.assert_array_equal(pred, [0, 0, 1, 1, 1, 1, 1])
    costs = np.stack([cost[a, 0] * (1 - p) + cost[a, 1] * p for a in (0, 1)], axis=1)  # R(a | x), a = 0, 1
    np.testing.assert_allclose(costs[np.arange(len(p)), pred], costs.min(axis=1), rtol=1e-15)
    assert costs[2, 0] == pytest.approx(costs[2, 1]) == pytest.approx(5 / 6)  # p = t: either decision costs 5/6


def test_cost_report_realised_and_expected_costs():
    y = np.array([0, 0, 1, 1, 1])
    p = np.array([0.1, 0.3, 0.2, 0.6, 0.9])
    cost = [[0, 5], [1, 0]]
    decision = (p >= bayes_threshold(cost)).astype(int)
    r = cost_report(T2, y, two(p), decision, cost, 0.5)
    # t = 1/6: decide 1 for p in {0.3, 0.2, 0.6, 0.9}: one false positive (cost 1), no false negative
    assert r["realised_cost"] == pytest.approx(1 / 5)
    # at 0.5: false negative at p = 0.2 (cost 5)
    assert r["realised_cost_plain_rule"] == pytest.approx(5 / 5)
    expected = [min(5 * q, 1 - q) for q in p]  # posterior expected cost of the cheaper decision (the one taken)
    assert r["expected_cost_posterior"] == pytest.approx(np.mean(expected), rel=1e-12)


def test_cost_report_multiclass_against_the_largest_probability():
    y = np.array([0, 1, 2, 2])
    P = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.4, 0.35, 0.25], [0.1, 0.2, 0.7]])
    cost = np.array([[0, 1, 10], [1, 0, 10], [1, 1, 0]])  # missing class 2 costs 10
    decision = np.argmin(P @ cost.T, axis=1)
    r = cost_report(classification_target(P.shape[1]), y, P, decision, cost.tolist(), 0.5)
    assert r["realised_cost"] == pytest.approx(np.mean(cost[decision, y]))
    assert r["realised_cost_plain_rule"] == pytest.approx(np.mean(cost[np.argmax(P, axis=1), y]))
    assert r["expected_cost_posterior"] == pytest.approx(np.mean((P @ cost.T).min(axis=1)))
    assert r["realised_cost"] < r["realised_cost_plain_rule"]


def test_selective_report_reject_option_and_risk_coverage():
    rng = np.random.default_rng(7)
    p = rng.uniform(0, 1, 500)
    y = (rng.random(500) < p).astype(int)
    pred = (p >= 0.5).astype(int)
    confidence = np.maximum(p, 1 - p)
    decided = {"decision": pred, "confidence": confidence, "accepted": confidence >= 0.7}
    report, curve = selective_report(y, decided, 0.7, 0.1)
    confident = confidence >= 0.7
    reject = report["reject_option"]
    assert reject["coverage"] == pytest.approx(confident.mean())
    assert reject["selective_risk"] == pytest.approx(np.mean(pred[confident] != y[confident]))
    assert reject["accuracy_accepted"] == pytest.approx(1 - reject["selective_risk"])
    assert (
        curve["coverage"][-1] == 1.0 and curve["risk"][-1] == pytest.approx(np.mean(pred != y)) == report["error_rate"]
    )
    assert report["e_aurc"] == pytest.approx(report["aurc"] - report["optimal_aurc"]) and report["e_aurc"] > 0
    at = report["at_target_risk"]
    assert at["achievable"] and at["risk"] <= 0.1
    assert np.mean(pred[confidence >= at["threshold"]] != y[confidence >= at["threshold"]]) == pytest.approx(at["risk"])
    never = selective_report(y, {**decided, "accepted": np.ones(500, bool)}, 0.0, 0.1)[0]["reject_option"]
    assert never["coverage"] == 1.0
