"""The evaluate stage's intervals (pipeline/steps/evaluation.with_intervals and the AUC's widening): drawn within each
class, or by whole clusters of data.group; on a sample of evaluate.max_rows for larger test sets, rescaled and said;
the ROC AUC of few rows that separate perfectly is not certain (the issue's 17 rows at AUC 1.000 became champion)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import classification_target
from partial_records import partial

from pipeline.core.records import TrainMetrics
from pipeline.steps import evaluation
from pipeline.steps.evaluation import with_intervals

CFG = {"n_bins": 10, "binning": "uniform"}


def params(max_rows=None, group=None):
    return {"evaluate": {"n_boot": 100, "confidence_level": 0.95, "max_rows": max_rows, "target_risk": 0.1},
            "seed": 1, "data": {"group": group, "sensitive": []}, "calibration": CFG}  # fmt: skip


def scored(n, seed=0, separation=1.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = 1 / (1 + np.exp(-(separation * (2 * y - 1) + rng.normal(size=n))))
    return y, np.column_stack([1 - p, p]), (p >= 0.5).astype(np.int64)


def figures(target, y, P, d):
    return lambda rows: evaluation.test_figures(target, y[rows], P[rows], d[rows], 1, None, CFG)


def test_intervals_say_how_they_were_drawn():
    target, (y, P, d) = classification_target(2), scored(400)
    strata = with_intervals(figures(target, y, P, d), y.size, params(), strata=y)
    assert strata["unit"] == "stratified row" and "within each class" in strata["method"]
    low, high = strata["figures"]["roc_auc"]["interval"]
    assert low < strata["figures"]["roc_auc"]["value"] < high
    clusters = np.repeat(np.arange(100), 4)
    grouped = with_intervals(figures(target, y, P, d), y.size, params(group="pid"), clusters=clusters, strata=y)
    assert grouped["unit"] == "cluster" and grouped["n_units"] == 100 and "pid clusters" in grouped["method"]
    sampled = with_intervals(figures(target, y, P, d), y.size, params(max_rows=200), strata=y)
    assert "a seeded sample of 200 of the 400 units" in sampled["method"]
    assert sampled["figures"]["roc_auc"]["interval"][1] - sampled["figures"]["roc_auc"]["interval"][0] == \
        pytest.approx(high - low, rel=0.35)  # fmt: skip


def test_seventeen_rows_that_separate_perfectly_are_not_certain():
    y = np.array([0] * 12 + [1] * 5)
    p = np.r_[np.linspace(0.01, 0.3, 12), np.linspace(0.8, 0.99, 5)]
    P = np.column_stack([1 - p, p])
    decided = {
        "decision": (p >= 0.5).astype(np.int64),
        "accepted": np.ones(17, bool),
        "confidence": np.maximum(p, 1 - p),
    }
    rule = {"rule": "threshold", "threshold": 0.5, "cost_matrix": None, "plain_threshold": 0.5, "reject_threshold": 0.0,
            "set_coverage": 0.9}  # fmt: skip
    train = partial(TrainMetrics, {"scoring": "roc_auc", "cv_mean": 1.0, "cv_std": 0.0})
    sets, y_train = np.ones((17, 2), bool), np.r_[np.zeros(40, int), np.ones(20, int)]
    metrics, _ = evaluation.test_metrics(classification_target(2), y, P, P, decided, sets, params(), {}, train, rule,
                                         y_train)  # fmt: skip
    auc = metrics["bootstrap"]["figures"]["roc_auc"]
    assert metrics["roc_auc"] == 1.0 and auc["bootstrap_interval"] == pytest.approx([1.0, 1.0])  # no spread to draw
    assert (
        auc["interval"][0] == auc["score_interval"][0] == pytest.approx(0.707, abs=0.005)
    )  # 5 positives, 12 negatives
    assert "Hanley-McNeil score interval" in metrics["bootstrap"]["method"]
