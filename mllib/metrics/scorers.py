"""Named scorers: a metric plus what it consumes and which direction is better, for model selection.

Rule: a Scorer returns the metric value as-is (log-loss stays positive); `greater_is_better` tells
the caller how to rank, and `response` which model output to feed it: "label" (predict),
"proba" (P(y=1) or the (n, K) matrix from predict_proba) or "score" (any monotone score,
e.g. decision_function or the positive-class probability).
Notes: seed 004, D4:389-409 (choosing an error function for model selection). The classification
scorers f1 / precision / recall are binary with positive class 1; roc_auc_ovr and f1_macro are their
multiclass counterparts (macro averages over the classes, one against the rest).
SCORERS holds the classification scorers (the choices params.yaml offers for the pipeline's classifiers), each
with the tasks it is defined for ("binary", "multiclass"); scorers_for(task) lists them.
REGRESSION_SCORERS those of regressors (e.g. choosing a regression tree's ccp_alpha); get_scorer knows both.

Sections cited: Ghent ML notes (seed 004): 3.1 Error Functions for Model Selection (389)"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..base import Options, check_value, lookup
from .confusion import accuracy_score, balanced_accuracy_score, binary_metrics, f1_macro
from .probabilistic import brier_score, log_loss
from .ranking import average_precision_score, roc_auc_ovr, roc_auc_score
from .regression import mean_absolute_error, mean_squared_error, r2_score

_RESPONSES = ("proba", "label", "score")
BINARY, MULTICLASS = ("binary",), ("multiclass",)
CLASSIFICATION = ("binary", "multiclass")


@dataclass(frozen=True)
class Scorer:
    """name, func(y_true, response_values, sample_weight=None) -> float, ranking direction, input kind, and the
    tasks it is defined for."""

    name: str
    func: Callable[..., float]
    greater_is_better: bool
    response: Literal["proba", "label", "score"]
    tasks: tuple[str, ...] = CLASSIFICATION

    def __post_init__(self):
        check_value("Scorer", "response", self.response, Options(_RESPONSES))

    def score(self, y_true, response_values, sample_weight=None) -> float:
        """The metric value itself (not negated): compare scores using greater_is_better."""
        return float(self.func(y_true, response_values, sample_weight=sample_weight))


def _binary_metric(key: str, y_true, y_pred, sample_weight=None) -> float:
    return binary_metrics(y_true, y_pred, sample_weight=sample_weight)[key]


def _binary_entry(key: str) -> Callable[..., float]:
    """One entry of the binary table as a scorer function (a partial of a module-level function: picklable, so
    a search can run in worker processes)."""
    return functools.partial(_binary_metric, key)


SCORERS: dict[str, Scorer] = {
    scorer.name: scorer
    for scorer in (
        Scorer("roc_auc", roc_auc_score, True, "score", BINARY),
        Scorer("roc_auc_ovr", roc_auc_ovr, True, "proba", MULTICLASS),
        Scorer("average_precision", average_precision_score, True, "score", BINARY),
        Scorer("accuracy", accuracy_score, True, "label"),
        Scorer("balanced_accuracy", balanced_accuracy_score, True, "label"),
        Scorer("f1", _binary_entry("f1"), True, "label", BINARY),
        Scorer("f1_macro", f1_macro, True, "label", MULTICLASS),
        Scorer("precision", _binary_entry("precision"), True, "label", BINARY),
        Scorer("recall", _binary_entry("recall"), True, "label", BINARY),
        Scorer("log_loss", log_loss, False, "proba"),
        Scorer("brier", brier_score, False, "proba"),
    )
}


def root_mean_squared_error(y_true, y_pred, sample_weight=None) -> float:
    return math.sqrt(mean_squared_error(y_true, y_pred, sample_weight))


REGRESSION = ("regression",)
REGRESSION_SCORERS: dict[str, Scorer] = {
    scorer.name: scorer
    for scorer in (
        Scorer("r2", r2_score, True, "label", REGRESSION),
        Scorer("rmse", root_mean_squared_error, False, "label", REGRESSION),
        Scorer("mae", mean_absolute_error, False, "label", REGRESSION),
        Scorer("mean_squared_error", mean_squared_error, False, "label", REGRESSION),
    )
}
# what `scoring: auto` means for each task
DEFAULT_SCORING = {"binary": "roc_auc", "multiclass": "roc_auc_ovr", "regression": "r2"}


def scorers_for(task: str) -> list[str]:
    """Names of the scorers defined for a task ("binary", "multiclass", "regression")."""
    return [name for name, s in {**SCORERS, **REGRESSION_SCORERS}.items() if task in s.tasks]


def get_scorer(name) -> Scorer:
    """The Scorer registered under `name` (a Scorer is passed through); ValueError listing valid names."""
    if isinstance(name, Scorer):
        return name
    return lookup({**SCORERS, **REGRESSION_SCORERS}, name, "scorer")
