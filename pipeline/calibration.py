"""The calibrate stage's helpers: the calibration map of params.yaml (one-vs-rest for more than two classes),
its cross-fitted probabilities (each fold's rows by a map fitted without them), and the deployed predictor's
assembly from the fitted features, model and map with the decision rule of params.yaml `decision`."""

from __future__ import annotations

import numpy as np

from mllib import io as mlio
from mllib import registry
from mllib.base import clone
from mllib.calibration import OneVsRestCalibration
from mllib.deploy import DeployedPredictor
from mllib.model_selection import cross_fit

from . import build, paths
from .errors import PipelineError
from .summaries import binning_spec, calibration_report, group_calibration
from .task import Target

NATIVE_MULTICLASS = ("temperature", "none")  # take (n, K) scores; the others are wrapped one-vs-rest


def calibrator_of(cfg: dict, n_classes: int):
    """calibration.method with its settings from calibration.params (the registry defaults otherwise)."""
    method, settings = cfg["method"], cfg["params"].get(cfg["method"], {})
    build.check_hyperparameter_names(f"calibration.params.{method}", method, settings)
    calibrator = registry.CALIBRATORS[method](**settings)
    return calibrator if n_classes == 2 or method in NATIVE_MULTICLASS else OneVsRestCalibration(calibrator)


def cross_fitted(calibrator, score: np.ndarray, y: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """Each fold's (n, K) probabilities from a copy of `calibrator` fitted on the other folds' rows only."""
    splits = [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in np.unique(fold)]
    return cross_fit(
        lambda k, fit, valid: clone(calibrator).fit(score[fit], y[fit]).predict_proba(score[valid]), splits, len(y)
    )


def fitted_parameters(calibrator) -> dict | list:
    """The calibrator's fitted scalars (per class for a one-vs-rest calibrator)."""
    if isinstance(calibrator, OneVsRestCalibration):
        return [fitted_parameters(c) for c in calibrator.calibrators_]
    return {k: v for k, v in vars(calibrator).items() if k.endswith("_") and np.isscalar(v)}


def assemble(calibrator, conformal, target: Target, decision: dict) -> DeployedPredictor:
    predictor = DeployedPredictor(
        features=mlio.load(paths.FEATURE_TRANSFORMER),
        model=mlio.load(paths.MODEL),
        calibrator=calibrator,
        classes=target.classes,
        threshold=decision["threshold"],
        cost_matrix=decision["cost_matrix"],
        reject_threshold=decision["reject_threshold"],
        conformal=conformal,
    )
    try:
        return predictor.fit()
    except ValueError as exc:
        raise PipelineError(
            f"params.yaml: decision.cost_matrix does not fit the {target.n_classes} classes "
            f"{target.classes} of {target.column!r} ({exc})"
        ) from None


def calibration_metrics(cfg, target, calibrator, conformal, predictor, y, before, after, groupings, params) -> dict:
    """reports/metrics/calibration.json: the map and its settings, ECE / MCE / Brier / log loss of the out-of-fold
    probabilities before and after (cross-fitted), per sensitive group, the conformal threshold, the decision rule."""
    one_vs_rest = isinstance(calibrator, OneVsRestCalibration)
    return {
        "method": cfg["method"],
        "task": target.task,
        "one_vs_rest": one_vs_rest,
        "settings": calibrator.calibrator.get_params() if one_vs_rest else calibrator.get_params(deep=False),
        "binning": binning_spec(cfg),
        "n_rows": int(len(y)),
        "oof_before": calibration_report(y, before, cfg),
        "oof_after_crossfitted": calibration_report(y, after, cfg),
        "groups": group_calibration(y, before, after, groupings, cfg),
        "parameters": fitted_parameters(calibrator),
        "conformal": {
            "coverage": cfg["set_coverage"],
            "threshold": conformal.threshold_,
            "fitted_on": "cross-fitted out-of-fold probabilities",
            "n": conformal.n_calibration_,
        },
        "decision": {
            "rule": predictor.rule_,
            "threshold": predictor.decision_threshold_,
            "cost_matrix": params["decision"]["cost_matrix"],
            "reject_threshold": params["decision"]["reject_threshold"],
        },
    }
