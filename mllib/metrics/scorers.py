"""Named scorers: a metric plus what it consumes and which direction is better, for model selection.

Rule: a Scorer returns the metric value as-is (log-loss stays positive); `greater_is_better` tells
the caller how to rank, and `response` which model output to feed it: "label" (predict),
"proba" (P(y=1) or the (n, K) matrix from predict_proba) or "score" (any monotone score,
e.g. decision_function or the positive-class probability).
Notes: seed 004, D4:389-409 (choosing an error function for model selection). The classification
scorers f1 / precision / recall are binary with positive class 1.
SCORERS holds the classification scorers (the choices params.yaml offers for the pipeline's classifiers);
REGRESSION_SCORERS those of regressors (e.g. choosing a regression tree's ccp_alpha); get_scorer knows both.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

from .confusion import accuracy_score, balanced_accuracy_score, binary_metrics
from .probabilistic import brier_score, log_loss
from .ranking import average_precision_score, roc_auc_score
from .regression import mean_squared_error

_RESPONSES = ("proba", "label", "score")


@dataclass(frozen=True)
class Scorer:
    """name, func(y_true, response_values, sample_weight=None) -> float, ranking direction, input kind."""

    name: str
    func: Callable[..., float]
    greater_is_better: bool
    response: Literal["proba", "label", "score"]

    def __post_init__(self):
        if self.response not in _RESPONSES:
            raise ValueError(f"response must be one of {_RESPONSES}, got {self.response!r}")

    def score(self, y_true, response_values, sample_weight=None) -> float:
        """The metric value itself (not negated): compare scores using greater_is_better."""
        return float(self.func(y_true, response_values, sample_weight=sample_weight))


def _binary_entry(key: str) -> Callable[..., float]:
    def metric(y_true, y_pred, sample_weight=None) -> float:
        return binary_metrics(y_true, y_pred, sample_weight=sample_weight)[key]

    metric.__name__ = f"binary_{key}"
    return metric


SCORERS: dict[str, Scorer] = {
    scorer.name: scorer
    for scorer in (
        Scorer("roc_auc", roc_auc_score, True, "score"),
        Scorer("average_precision", average_precision_score, True, "score"),
        Scorer("accuracy", accuracy_score, True, "label"),
        Scorer("balanced_accuracy", balanced_accuracy_score, True, "label"),
        Scorer("f1", _binary_entry("f1"), True, "label"),
        Scorer("precision", _binary_entry("precision"), True, "label"),
        Scorer("recall", _binary_entry("recall"), True, "label"),
        Scorer("log_loss", log_loss, False, "proba"),
        Scorer("brier", brier_score, False, "proba"),
    )
}
REGRESSION_SCORERS: dict[str, Scorer] = {
    "mean_squared_error": Scorer("mean_squared_error", mean_squared_error, False, "label"),
}


def get_scorer(name) -> Scorer:
    """The Scorer registered under `name` (a Scorer is passed through); ValueError listing valid names."""
    if isinstance(name, Scorer):
        return name
    known = {**SCORERS, **REGRESSION_SCORERS}
    try:
        return known[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown scorer {name!r}; valid names: {sorted(known)}") from None
