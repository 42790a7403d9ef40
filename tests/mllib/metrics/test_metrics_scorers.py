"""Scorer registry: names, directions, response kinds, raw values, unknown names."""

import dataclasses

import numpy as np
import pytest
import sklearn.metrics as skm

from mllib.metrics import DEFAULT_SCORING, SCORERS, Scorer, get_scorer, log_loss, scorers_for
from mllib.metrics.scorers import REGRESSION_SCORERS

EXPECTED = {  # name: (greater_is_better, response, tasks)
    "roc_auc": (True, "score", ("binary",)),
    "roc_auc_ovr": (True, "proba", ("multiclass",)),
    "average_precision": (True, "score", ("binary",)),
    "accuracy": (True, "label", ("binary", "multiclass")),
    "balanced_accuracy": (True, "label", ("binary", "multiclass")),
    "f1": (True, "label", ("binary",)),
    "f1_macro": (True, "label", ("multiclass",)),
    "precision": (True, "label", ("binary",)),
    "recall": (True, "label", ("binary",)),
    "log_loss": (False, "proba", ("binary", "multiclass")),
    "brier": (False, "proba", ("binary", "multiclass")),
}


def _binary_problem(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 200)
    y[:2] = [0, 1]
    proba = np.clip(np.round(rng.normal(0.3 + 0.4 * y, 0.2), 2), 0, 1)  # ties included
    return y, proba, (proba >= 0.5).astype(int), rng.uniform(0.1, 2.0, 200)


def test_registry_names_directions_and_responses():
    assert set(SCORERS) == set(EXPECTED)
    for name, (greater, response, tasks) in EXPECTED.items():
        scorer = get_scorer(name)
        assert scorer is SCORERS[name]
        assert (scorer.name, scorer.greater_is_better, scorer.response, scorer.tasks) == (
            name,
            greater,
            response,
            tasks,
        )
    for task in ("binary", "multiclass"):
        assert scorers_for(task) == [n for n, e in EXPECTED.items() if task in e[2]]
    assert scorers_for("regression") == list(REGRESSION_SCORERS)
    assert DEFAULT_SCORING == {"binary": "roc_auc", "multiclass": "roc_auc_ovr", "regression": "r2"}


@pytest.mark.parametrize("seed", range(5))
def test_scores_equal_the_reference_metric_values(seed):
    y, proba, labels, w = _binary_problem(seed)
    reference = {
        "roc_auc": skm.roc_auc_score(y, proba, sample_weight=w),
        "average_precision": skm.average_precision_score(y, proba, sample_weight=w),
        "accuracy": skm.accuracy_score(y, labels, sample_weight=w),
        "balanced_accuracy": skm.balanced_accuracy_score(y, labels, sample_weight=w),
        "f1": skm.f1_score(y, labels, sample_weight=w),
        "precision": skm.precision_score(y, labels, sample_weight=w),
        "recall": skm.recall_score(y, labels, sample_weight=w),
        "log_loss": skm.log_loss(y, proba, sample_weight=w),
        "brier": skm.brier_score_loss(y, proba, sample_weight=w),
    }
    inputs = {"score": proba, "proba": proba, "label": labels}
    assert set(reference) == {n for n, e in EXPECTED.items() if "binary" in e[2]}
    for name, expected in reference.items():
        scorer = get_scorer(name)
        value = scorer.score(y, inputs[scorer.response], sample_weight=w)
        assert isinstance(value, float)
        assert value == pytest.approx(expected, abs=1e-12), name


def test_regression_scorer_is_known_to_get_scorer_but_not_a_classification_choice():
    for name, func, greater in (
        ("r2", skm.r2_score, True),
        ("mae", skm.mean_absolute_error, False),
        ("rmse", skm.root_mean_squared_error, False),
    ):
        assert get_scorer(name).greater_is_better is greater and get_scorer(name).response == "label"
        assert get_scorer(name).score(np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 3.0])) == pytest.approx(
            func([1.0, 2.0, 4.0], [1.5, 2.0, 3.0]), rel=1e-12
        )
    scorer = get_scorer("mean_squared_error")
    assert scorer is REGRESSION_SCORERS["mean_squared_error"] and "mean_squared_error" not in SCORERS
    assert (scorer.greater_is_better, scorer.response) == (False, "label")
    rng = np.random.default_rng(0)
    y, pred, w = rng.normal(size=50), rng.normal(size=50), rng.uniform(0.1, 2.0, 50)
    assert scorer.score(y, pred, sample_weight=w) == pytest.approx(
        skm.mean_squared_error(y, pred, sample_weight=w), rel=1e-12
    )


def test_losses_are_returned_positive_not_negated():
    y, proba, _, _ = _binary_problem()
    value = get_scorer("log_loss").score(y, proba)
    assert value > 0 and value == log_loss(y, proba)


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match=r"unknown scorer 'auc'.*'roc_auc'"):
        get_scorer("auc")
    with pytest.raises(ValueError, match="unknown scorer None; choose from"):
        get_scorer(None)


def test_scorer_is_frozen_validated_and_passed_through():
    scorer = get_scorer("f1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        scorer.name = "other"
    with pytest.raises(ValueError, match="response"):
        Scorer("x", log_loss, False, "probability")
    custom = Scorer("neg_count", lambda y, v, sample_weight=None: -float(np.sum(v)), True, "label")
    assert get_scorer(custom) is custom
    assert custom.score([0, 1], [1, 1]) == -2.0


def test_binary_label_scorers_reject_multiclass():
    with pytest.raises(ValueError, match="binary"):
        get_scorer("f1").score([0, 1, 2], [0, 1, 2])


@pytest.mark.parametrize("seed", range(5))
def test_multiclass_scores_equal_the_reference_metric_values(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, 300)
    proba = rng.dirichlet(np.ones(4), size=300)
    proba[np.arange(300), y] += rng.uniform(0, 0.5, 300)  # informative, so the metrics are not all at chance
    proba /= proba.sum(axis=1, keepdims=True)
    labels = proba.argmax(axis=1)
    reference = {
        "roc_auc_ovr": skm.roc_auc_score(y, proba, multi_class="ovr", average="macro"),
        "accuracy": skm.accuracy_score(y, labels),
        "balanced_accuracy": skm.balanced_accuracy_score(y, labels),
        "f1_macro": skm.f1_score(y, labels, average="macro"),
        "log_loss": skm.log_loss(y, proba),
        "brier": skm.brier_score_loss(y, proba),
    }
    assert set(reference) == set(scorers_for("multiclass"))
    for name, expected in reference.items():
        scorer = get_scorer(name)
        value = scorer.score(y, proba if scorer.response == "proba" else labels)
        assert value == pytest.approx(expected, abs=1e-12), name
