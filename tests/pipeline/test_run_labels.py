"""Words that follow the run: the pooled out-of-fold score beside the per-split mean (with a note when they
disagree), figure titles that name the run's split strategy, and partial-dependence axes in the run's terms (a
regression target's units, not a probability)."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.metrics import get_scorer
from pipeline.core.explanation_records import OneWayCurve
from pipeline.core.task import Target
from pipeline.reporting import figures
from pipeline.steps.explanations import OUTPUT_NAMES
from pipeline.steps.training import pooled_score


def _result(valid_scores, oof_values):
    return {"valid_scores": valid_scores, "mean_valid_score": float(np.mean(valid_scores)), "oof_values": oof_values}


def test_pooled_r2_beside_the_mean_of_unstable_per_split_scores():
    """Two splits, each one group's rows with little spread: per-split R^2 is very negative while the predictions
    are close over the whole range, so the pooled R^2 is high and the note says the mean is unstable."""
    y = np.array([10.0, 10.2, 9.8, 50.0, 50.3, 49.7])
    predictions = [np.array([10.5, 10.4, 10.6]), np.array([49.5, 49.4, 49.6])]
    splits = [(np.array([3, 4, 5]), np.array([0, 1, 2])), (np.array([0, 1, 2]), np.array([3, 4, 5]))]
    r2 = get_scorer("r2")
    per_split = [r2.score(y[v], p) for (_, v), p in zip(splits, predictions)]
    out = pooled_score(_result(per_split, predictions), y, splits, r2)
    assert out["pooled"] == pytest.approx(r2.score(np.concatenate([y[:3], y[3:]]), np.concatenate(predictions)))
    assert out["pooled"] > 0.99 and out["mean"] < -2
    assert out["unstable"] and "pooled out-of-fold" in out["note"]


def test_no_note_when_the_splits_agree():
    rng = np.random.default_rng(0)
    y = rng.normal(size=200)
    splits = [(np.setdiff1d(np.arange(200), v), v) for v in np.array_split(np.arange(200), 5)]
    predictions = [y[v] + rng.normal(0, 0.3, v.size) for _, v in splits]
    r2 = get_scorer("r2")
    out = pooled_score(
        _result([r2.score(y[v], p) for (_, v), p in zip(splits, predictions)], predictions), y, splits, r2
    )
    assert not out["unstable"] and out["note"] is None


@pytest.fixture
def titles(monkeypatch):
    """The titles and axis labels of the figures drawn (the PNG bytes are not inspected)."""
    seen = []

    def capture(fig):
        ax = fig.axes[0]
        seen.append({"title": ax.get_title(), "ylabel": ax.get_ylabel()})
        return b""

    monkeypatch.setattr(figures, "png_bytes", capture)
    return seen


def test_curve_titles_name_the_runs_splits(titles):
    rows = [{"rows": 10, "train": 0.9, "valid": 0.8}, {"rows": 20, "train": 0.85, "valid": 0.82}]
    figures.learning_curve(rows, "roc_auc", "stratified splits")
    sweep = [{"parameter": "lam", "value": v, "train": 0.9, "valid": 0.8, "valid_std": 0.01} for v in (0.1, 1.0)]
    figures.hyperparameter_curve(sweep, "roc_auc", "kfold splits")
    assert [t["title"] for t in titles] == ["Learning curve (stratified splits)", "Validation curve (kfold splits)"]


def test_partial_dependence_axis_is_in_the_runs_terms(titles):
    regression = Target(column="invest", task="regression", classes=[], reason="")
    binary = Target(column="survived", task="binary", classes=["no", "yes"], reason="")
    assert OUTPUT_NAMES["regression"](regression) == "predicted invest (its units)"
    assert OUTPUT_NAMES["binary"](binary) == "p(survived = yes), deployed predictor"
    curve = OneWayCurve(feature="value", grid=[1.0, 2.0], average=[3.0, 4.0], ice=[[3.0, 4.0]])
    figures.partial_dependence(curve, ["invest"], OUTPUT_NAMES["regression"](regression))
    assert titles[-1]["ylabel"] == "predicted invest (its units)"
