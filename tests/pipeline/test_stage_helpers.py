"""Pure helpers of the calibrate, evaluate and fairness stages and pipeline/summaries.py."""
from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

from mllib.calibration import PlattScaling
from pipeline.stages.calibrate import cross_fitted
from pipeline.stages.evaluate import GAP_DIAGNOSIS, gap_report
from pipeline.stages.fairness import REPORTED, audit
from pipeline.summaries import calibration_quality, reliability_rows


def oof(n=300, k=3, seed=0):
    rng = np.random.default_rng(seed)
    score = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * score))).astype(np.int64)
    fold = np.arange(n) % k
    return score, y, fold


# ---- calibrate.cross_fitted -------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["platt", "none"])
def test_cross_fitted_output_is_probabilities(method):
    score, y, fold = oof()
    p = cross_fitted(method, score, y, fold)
    assert p.shape == y.shape and np.all((p > 0) & (p < 1))


def test_each_fold_is_scored_by_a_calibrator_fitted_on_the_other_folds():
    score, y, fold = oof()
    p = cross_fitted("platt", score, y, fold)
    for k in range(3):
        held = fold == k
        expected = PlattScaling().fit(score[~held], y[~held]).transform(score[held])
        np.testing.assert_allclose(p[held], expected, rtol=1e-12)


def test_labels_of_a_fold_never_reach_its_own_probabilities():
    score, y, fold = oof()
    before = cross_fitted("platt", score, y, fold)
    flipped = y.copy()
    flipped[fold == 0] = 1 - flipped[fold == 0]  # change labels in fold 0 only
    after = cross_fitted("platt", score, flipped, fold)
    np.testing.assert_array_equal(after[fold == 0], before[fold == 0])  # fold 0: fitted without its labels
    assert not np.allclose(after[fold != 0], before[fold != 0])          # the others did use fold 0


def test_cross_fitted_differs_from_in_sample_fit():
    score, y, fold = oof()
    in_sample = PlattScaling().fit(score, y).transform(score)
    assert not np.allclose(cross_fitted("platt", score, y, fold), in_sample)


# ---- evaluate.gap_report ----------------------------------------------------------------------------------

def test_gap_within_two_cv_standard_deviations():
    y = np.array([0, 0, 1, 1])
    p = np.array([0.1, 0.6, 0.4, 0.9])  # ROC AUC 0.75
    r = gap_report({"scoring": "roc_auc", "cv_mean": 0.8, "cv_std": 0.03}, y, p, (p >= 0.5).astype(int))
    assert r["scoring"] == "roc_auc" and r["test"] == pytest.approx(0.75)
    assert r["gap"] == pytest.approx(0.05)
    assert r["diagnosis"] == "within CV variation"


def test_gap_beyond_two_cv_standard_deviations():
    y = np.array([0, 0, 1, 1])
    p = np.array([0.1, 0.6, 0.4, 0.9])
    r = gap_report({"scoring": "roc_auc", "cv_mean": 0.8, "cv_std": 0.02}, y, p, (p >= 0.5).astype(int))
    assert r["diagnosis"] == GAP_DIAGNOSIS and "leakage" in r["diagnosis"]
    r = gap_report({"scoring": "roc_auc", "cv_mean": 0.6, "cv_std": 0.02}, y, p, (p >= 0.5).astype(int))
    assert r["gap"] == pytest.approx(-0.15) and r["diagnosis"] == GAP_DIAGNOSIS  # better on test is also a gap


def test_gap_label_scorer_uses_the_decisions():
    y = np.array([0, 0, 1, 1])
    p = np.array([0.1, 0.6, 0.4, 0.9])
    pred = np.array([0, 0, 1, 1])  # perfect decisions (e.g. another threshold) although p >= 0.5 gets 2 of 4
    r = gap_report({"scoring": "accuracy", "cv_mean": 1.0, "cv_std": 0.0}, y, p, pred)
    assert r["test"] == 1.0 and r["gap"] == 0.0 and r["diagnosis"] == "within CV variation"


def test_gap_probability_scorer_uses_the_probabilities():
    y = np.array([0, 1])
    p = np.array([0.2, 0.7])
    r = gap_report({"scoring": "brier", "cv_mean": 0.1, "cv_std": 0.1}, y, p, np.array([1, 0]))
    assert r["test"] == pytest.approx((0.2 ** 2 + 0.3 ** 2) / 2)


# ---- fairness.audit ---------------------------------------------------------------------------------------

def test_audit_per_group_rates_small_groups_and_gaps():
    y = np.array([1, 1, 0, 0, 1, 0, 1, 0, 0, 1])
    pred = np.array([1, 0, 0, 1, 1, 0, 1, 1, 1, 1])
    groups = np.array(["a"] * 4 + ["b"] * 6)
    report = audit(y, pred, groups, min_group_size=5)
    assert list(report["groups"]) == ["a", "b"]
    a, b = report["groups"]["a"], report["groups"]["b"]
    assert set(a) == set(REPORTED)
    assert (a["n"], a["n_pos"], b["n"], b["n_pos"]) == (4, 2, 6, 3)
    assert a["selection_rate"] == pytest.approx(2 / 4) and b["selection_rate"] == pytest.approx(5 / 6)
    assert a["tpr"] == pytest.approx(1 / 2) and b["tpr"] == pytest.approx(1.0)
    assert a["fpr"] == pytest.approx(1 / 2) and b["fpr"] == pytest.approx(2 / 3)
    assert report["small_groups"] == ["a"]
    gap = report["gaps"]["selection_rate"]
    assert gap["difference"] == pytest.approx(5 / 6 - 1 / 2)
    assert (gap["max_group"], gap["min_group"]) == ("b", "a")


def test_audit_group_of_exactly_min_size_is_not_small():
    y = np.array([0, 1, 0, 1, 0, 1, 1])
    groups = np.array(["a"] * 3 + ["b"] * 4)
    assert audit(y, y, groups, min_group_size=4)["small_groups"] == ["a"]
    assert audit(y, y, groups, min_group_size=3)["small_groups"] == []


def test_audit_undefined_rate_is_nan_not_zero():
    y = np.array([0, 0, 1, 0])
    pred = np.array([0, 1, 1, 0])
    report = audit(y, pred, np.array(["x", "x", "y", "y"]), min_group_size=1)
    assert math.isnan(report["groups"]["x"]["tpr"])  # no positives in group x
    assert report["small_groups"] == []


# ---- summaries --------------------------------------------------------------------------------------------

def test_calibration_quality_matches_reference():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.01, 0.99, 500)
    y = (rng.random(500) < p).astype(int)
    q = calibration_quality(y, p, {"n_bins": 10, "binning": "uniform"})
    assert set(q) == {"ece", "mce", "brier", "log_loss"}
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
    rows = reliability_rows(y, p, {"n_bins": 5, "binning": "uniform"}, "after")
    assert [r["bin"] for r in rows] == [0, 1, 2, 3, 4]
    assert all(r["calibration"] == "after" for r in rows)
    assert [r["count"] for r in rows] == [2, 0, 0, 0, 2]
    assert math.isnan(rows[1]["mean_predicted"]) and math.isnan(rows[1]["fraction_positive"])
    assert rows[0]["mean_predicted"] == pytest.approx(0.10) and rows[0]["fraction_positive"] == pytest.approx(0.5)
    assert rows[4]["fraction_positive"] == pytest.approx(0.5)
