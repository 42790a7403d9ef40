"""The deployed predictor measured on labelled rows, for the target's kind: the test rows (evaluate) and a labelled
batch (the monitor) get the same figures with the same intervals. Returns (metrics, plot rows, per-row columns);
the caller writes them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from mllib.base import GroupLabels
from mllib.calibration import NoCalibration

from ..core.json_types import JSON
from ..core.records import TrainMetrics
from ..core.task import Classification, Regression, Target
from .evaluation import prediction_columns, rule_of, test_metrics
from .regression import test_report

if TYPE_CHECKING:
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

Measured = tuple[JSON, JSON, dict[str, np.ndarray]]  # (metrics, plot rows, per-row columns)


def measure(
    target: Target,
    params: JSON,
    predictor: DeployedPredictor | DeployedRegressor,
    outputs: dict[str, np.ndarray],
    y: np.ndarray,
    y_train: np.ndarray,
    trained: TrainMetrics,
    clusters: np.ndarray | None,
    groupings: dict[str, GroupLabels],
) -> Measured:
    """(metrics, plots, columns) of the deployed predictor on rows with targets y (outputs: row_outputs of them)."""
    return MEASURE[target.task](target, params, predictor, outputs, y, y_train, trained, clusters, groupings)


def measure_regression(
    target: Regression,
    params: JSON,
    predictor: DeployedRegressor,
    outputs: dict[str, np.ndarray],
    y: np.ndarray,
    y_train: np.ndarray,
    trained: TrainMetrics,
    clusters: np.ndarray | None,
    groupings: dict[str, GroupLabels],
) -> Measured:
    """Point metrics, the intervals' coverage and width, the residuals."""
    return test_report(target, predictor, outputs, y, trained, y_train, params, clusters)


def measure_classification(
    target: Classification,
    params: JSON,
    predictor: DeployedPredictor,
    outputs: dict[str, np.ndarray],
    y: np.ndarray,
    y_train: np.ndarray,
    trained: TrainMetrics,
    clusters: np.ndarray | None,
    groupings: dict[str, GroupLabels],
) -> Measured:
    """Probabilities, decisions, the reject option and conformal sets; metrics, curves, reliability rows."""
    scores = outputs["scores"]
    P, P_raw = predictor.proba_from_scores(scores), NoCalibration().fit(scores).predict_proba(scores)
    decided = predictor.decide(P)
    sets = predictor.conformal.predict_set(P)
    metrics, plots = test_metrics(
        target, y, P, P_raw, decided, sets, params, groupings, trained, rule_of(predictor), y_train, clusters
    )
    return metrics, plots, prediction_columns(y, scores, P_raw, P, decided, sets)


# by task
MEASURE: dict[str, Callable[..., Measured]] = {
    "binary": measure_classification,
    "multiclass": measure_classification,
    "regression": measure_regression,
}
