"""The calibrate and evaluate stages' work for a regression target: the deployed regressor with its conformal
intervals (mllib.deploy.DeployedRegressor, mllib.conformal), and the test metrics of its predictions.

Intervals come from the out-of-fold residuals of the train stage, on the scale the model is fitted on (y, or log(y +
c): pipeline/steps/target_transform.py; a log target's interval ends are mapped back by exp(.) - c, which keeps their
coverage): CV+ (the fold models' predictions at a new row shifted by every training row's residual) or split
conformal (the final model's prediction -/+ the conformal quantile of the residuals); the Gaussian process and
Bayesian linear regression add their own predictive interval. The residuals are absolute, |y - prediction| (one width
on the fitted scale), or normalized by sigma(prediction), the residuals' quantile at the interval's coverage as a curve
of the prediction, fitted without the fold it scales (mllib.conformal.ResidualScale: widths that follow the errors,
and their tails).
calibration.interval_score auto takes normalized residuals only where they improve the coverage along the prediction:
each out-of-fold row judged by the split-conformal interval fitted on the other folds' rows
(mllib.conformal.crossfitted_coverage), the rows cut into fifths of the out-of-fold prediction, and the worst fifth's
coverage compared; normalized must hold more rows in its worst fifth than absolute in its own by more than the
binomial standard error of a fifth's coverage, sqrt(c (1 - c) / (n / 5)).
Metrics: RMSE, MAE, R^2, the mean residual, interval coverage and width overall and in each fifth of the test
predictions (with their bootstrap intervals: the promotion gate reads the worst fifth's lower end), the
validation-vs-test gap, and what the floor at 0 changed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mllib.base import MixedMatrix
from mllib.conformal import (
    CVPlusRegressor,
    ResidualScale,
    SplitConformalRegressor,
    crossfitted_coverage,
    interval_summary,
    interval_summary_by_bin,
    quantile_bins,
)
from mllib.deploy import DeployedRegressor
from mllib.regression import LogTarget

from ..core.errors import PipelineError
from ..core.evaluation_records import FifthCoverage, IntervalScoreChoice, IntervalsFit, RegressionCalibration
from ..core.json_types import JSON
from ..core.records import TargetTransform, TrainMetrics
from ..core.task import Regression
from ..core.task_regression import FIFTHS
from .evaluation import gap_report, with_intervals
from .target_transform import log_name

PLOT_ROWS = 20_000  # the residual plot's test rows, at most: every k-th row of a larger test set, stated in test.json


def assemble_regressor(
    y: np.ndarray, pred: np.ndarray, fold: np.ndarray, cfg: JSON, fitted: dict[str, Any], transform: TargetTransform
) -> tuple[DeployedRegressor, RegressionCalibration]:
    """The deployed regressor from the final features and model, the fold pipelines (fitted: {features, model,
    fold_features, fold_models}, as the features and train stages wrote them) and the out-of-fold predictions `pred`
    (on the scale the model is fitted on) of the rows in `fold`, with the train stage's scale and floor (transform);
    and its calibrate-stage report."""
    coverage, model = cfg["interval_coverage"], fitted["model"]
    t = model.log_target(y) if isinstance(model, LogTarget) else y  # the scale the model is fitted on
    scale, fold_scales, choice = interval_scores(t, pred, fold, coverage, cfg["interval_score"])
    oof_scale = None if fold_scales is None else scale_at_rows(fold_scales, pred, fold)
    cv_plus = CVPlusRegressor(coverage).fit(t, pred, fold, oof_scale)
    n_folds = cv_plus.n_folds_  # repeated splits validate no row first after the first repeat
    predictor = DeployedRegressor(
        features=fitted["features"],
        model=model,
        split=SplitConformalRegressor(coverage).fit(t, pred, oof_scale),
        cv_plus=cv_plus,
        fold_features=fitted["fold_features"][:n_folds],
        fold_models=fitted["fold_models"][:n_folds],
        interval_method=cfg["interval_method"],
        floor=transform.floor,
        scale=scale,
        fold_scales=fold_scales,
    )
    try:
        predictor.fit()
    except ValueError as exc:
        raise PipelineError(
            f"calibrate: the fold artifacts do not match the out-of-fold predictions ({exc}); rerun "
            "`dvc repro -f features train`"
        ) from None
    residual = np.abs(t - pred)
    report = RegressionCalibration(
        task="regression",
        n_rows=int(y.size),
        oof=point_metrics(y, point_predictions(predictor, pred)),
        intervals=IntervalsFit(
            method=cfg["interval_method"],
            coverage=coverage,
            n_folds=n_folds,
            split_threshold=predictor.split.threshold_,
            fitted_on="out-of-fold residuals of the train stage's fold models",
            residual_quantiles=dict(zip(("50%", "90%", "99%"), np.quantile(residual, [0.5, 0.9, 0.99]).tolist())),
            scale=transform.fitted_on,
            score=choice.chosen,
            score_choice=choice,
        ),
        not_converged=[],  # conformal intervals are quantiles: no solver, no cap
    )
    return predictor, report


def intervals_summary(metrics: RegressionCalibration) -> str:
    """The calibrate stage's line on a regression target's intervals."""
    i = metrics.intervals
    return (
        f"calibrate: regression: {i.method} intervals at {i.coverage:g} from {metrics.n_rows} out-of-fold "
        f"residuals on the {i.scale} scale, {i.score_choice.statement} (split conformal: threshold "
        f"{i.split_threshold:.4g}); calibration.method is not used"
    )


def point_predictions(predictor: DeployedRegressor, fitted_scale: np.ndarray) -> np.ndarray:
    """Predictions on the model's fitted scale in y's units as the deployed regressor gives them: a log target's
    back-transform (its mean or median), at least the floor."""
    model = predictor.model
    return predictor.floored(model.from_log(fitted_scale) if isinstance(model, LogTarget) else fitted_scale)


def interval_scores(
    t: np.ndarray, pred: np.ndarray, fold: np.ndarray, coverage: float, setting: str
) -> tuple[ResidualScale | None, list[ResidualScale] | None, IntervalScoreChoice]:
    """(sigma fitted on every out-of-fold row, sigma_{-k} per fold k, the choice) for normalized residuals, or (None,
    None, the choice) for absolute ones: calibration.interval_score, auto by the worst fifth's cross-fitted coverage
    (module docstring). t: the target on the model's fitted scale, pred: the out-of-fold predictions on it."""
    residual = np.abs(t - pred)
    n_folds = int(fold.max()) + 1
    fold_scales = [ResidualScale(level=coverage).fit(pred[fold != k], residual[fold != k]) for k in range(n_folds)]
    covered = {
        "absolute": crossfitted_coverage(t, pred, fold, coverage),
        "normalized": crossfitted_coverage(t, pred, fold, coverage, fold_scales),
    }
    fifth = quantile_bins(pred, FIFTHS)
    fifths = [
        FifthCoverage(fifth=k + 1, n=int(np.sum(fifth == k)),
                      **{name: float(c[fifth == k].mean()) for name, c in covered.items()})
        for k in range(FIFTHS)
        if np.any(fifth == k)
    ]  # fmt: skip
    worst = {name: min(getattr(f, name) for f in fifths) for name in covered}
    standard_error = math.sqrt(coverage * (1 - coverage) / (t.size / FIFTHS))
    better = worst["normalized"] - worst["absolute"] > standard_error
    chosen = ("normalized" if better else "absolute") if setting == "auto" else setting
    figures = (
        f"worst fifth of the out-of-fold predictions, cross-fitted: absolute {worst['absolute']:.3f}, normalized "
        f"{worst['normalized']:.3f} (target {coverage:g}; standard error of a fifth's coverage {standard_error:.3f})"
    )
    verdict = {
        ("auto", "normalized"): "normalized residuals: they hold more rows in the worst fifth by more than the noise",
        ("auto", "absolute"): "absolute residuals: normalized ones do not improve the worst fifth beyond the noise",
    }.get((setting, chosen), f"{chosen} residuals, as calibration.interval_score sets")
    choice = IntervalScoreChoice(setting=setting, chosen=chosen, fifths=fifths, worst_absolute=worst["absolute"],
                                 worst_normalized=worst["normalized"], standard_error=standard_error,
                                 statement=f"{verdict} ({figures})")  # fmt: skip
    if chosen == "absolute":
        return None, None, choice
    return ResidualScale(level=coverage).fit(pred, residual), fold_scales, choice


def scale_at_rows(fold_scales: list[ResidualScale], pred: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """sigma_{-k(i)}(pred_i) of every out-of-fold row: the scale of its fold, fitted without it."""
    scale = np.empty(pred.size)
    for k, sigma in enumerate(fold_scales):
        scale[fold == k] = sigma.predict(pred[fold == k])
    return scale


def row_outputs(predictor: DeployedRegressor, X: MixedMatrix) -> dict[str, np.ndarray]:
    """What the test report needs of the rows X: the predictions (before and after the floor) and the intervals of
    each method (computed where the rows are: a part at a time on the partitioned path)."""
    unclipped = predictor.predict_unclipped(X)
    outputs = {"prediction": predictor.floored(unclipped), "unclipped": unclipped}
    outputs["lower"], outputs["upper"] = predictor.predict_interval(X)
    if predictor.cv_plus is not None:
        other = "split" if predictor.interval_method == "cv_plus" else "cv_plus"
        outputs["other_lower"], outputs["other_upper"] = predictor.predict_interval(X, method=other)
    own = predictor.model_interval(X)
    if own is not None:
        outputs["model_lower"], outputs["model_upper"] = own
    return outputs


def deployed_target(predictor: DeployedRegressor, column: str, unclipped: np.ndarray) -> JSON:
    """test.json's target_transform: the scale the deployed model is fitted on, what its predictions are, the floor
    and the test predictions it raised, and where the explainers' attributions add up."""
    model, floor = predictor.model, predictor.floor
    if isinstance(model, LogTarget):
        fitted_on = log_name(column, model.shift_)
        minus = f" - {model.shift_:g}" if model.shift_ else ""
        predictions = (
            f"means: exp(f(x)) x {model.smearing_:.6g}{minus}, f the {fitted_on} prediction and {model.smearing_:.6g} "
            "Duan's smearing estimate (the mean of exp(residual) over the training rows)"
            if model.back_transform == "mean"
            else f"medians: exp(f(x)){minus}, f the {fitted_on} prediction"
        )
        low, high = model.log_range_
        at_low, at_high = (int(np.sum(unclipped == model.from_log(np.array([end]))[0])) for end in (low, high))
        predictions += (
            f"; f held in the training rows' range of {fitted_on}, [{low:.6g}, {high:.6g}], before exp ({at_high} test "
            f"predictions at its top, {at_low} at its bottom: a linear f extrapolated by exp has no bound)"
        )
        attributions = (
            f"{fitted_on}: TreeSHAP and the linear closed form add up to the model's log-scale prediction f(x) (the "
            f"prediction is exp of it{' times the smearing estimate' if model.back_transform == 'mean' else ''}); "
            f"KernelSHAP, permutation importance and partial dependence read the prediction in {column}'s units"
        )
    else:
        fitted_on, predictions = column, f"the model's prediction of {column}"
        attributions = f"{column}'s units (TreeSHAP and the linear closed form: the model's output before the floor)"
    return {
        "fitted_on": fitted_on,
        "predictions": predictions,
        "floor": floor,
        "clipped": 0 if floor is None else int(np.sum(unclipped < floor)),
        "lowest_unclipped": float(np.min(unclipped)),
        "attributions_add_up_on": attributions,
    }


def computed_on(predictor: DeployedRegressor, column: str) -> str:
    """The scale and score of the conformal intervals: "log(price), normalized residuals"."""
    model = predictor.model
    scale = log_name(column, model.shift_) if isinstance(model, LogTarget) else column
    return f"{scale}, {'normalized' if predictor.fold_scales is not None else 'absolute'} residuals"


def test_report(
    target: Regression,
    predictor: DeployedRegressor,
    outputs: dict[str, np.ndarray],
    y: np.ndarray,
    train_metrics: TrainMetrics,
    y_train: np.ndarray,
    params: JSON,
    clusters: np.ndarray | None = None,
) -> tuple[JSON, JSON, dict[str, np.ndarray]]:
    """(test.json, plot rows, per-row columns) of the deployed regressor on the test rows (outputs: row_outputs of
    them), with the no-skill baseline's metrics (the training rows' mean predicted for every test row) beside
    them and each figure's bootstrap interval (clusters: the data.group value of each row, or None)."""
    pred, lower, upper = outputs["prediction"], outputs["lower"], outputs["upper"]
    fifth = quantile_bins(pred, FIFTHS)  # fixed by the test predictions; each draw's rows keep their fifth
    intervals = {
        "deployed": predictor.interval_method,
        "coverage_target": predictor.coverage_,
        "computed_on": computed_on(predictor, target.column),
        "by_fifth": interval_summary_by_bin(y, lower, upper, pred, FIFTHS),
        predictor.interval_method: interval_summary(y, lower, upper),
    }
    if "other_lower" in outputs:
        other = "split" if predictor.interval_method == "cv_plus" else "cv_plus"
        intervals[other] = interval_summary(y, outputs["other_lower"], outputs["other_upper"])
    if "model_lower" in outputs:
        intervals["model"] = {
            "source": f"{type(predictor.model).__name__} predictive distribution, mean -/+ z std",
            **interval_summary(y, outputs["model_lower"], outputs["model_upper"]),
        }
    metrics = {
        "task": "regression",
        "n": int(y.size),
        **point_metrics(y, pred),
        "intervals": intervals,
        "cv_vs_test": gap_report(train_metrics, target, y, None, pred),
        "baseline": {"model": "mean of the training rows", **point_metrics(y, np.full(y.size, y_train.mean()))},
        "bootstrap": with_intervals(
            lambda rows: test_figures(y[rows], pred[rows], lower[rows], upper[rows], fifth[rows]),
            y.size,
            params,
            clusters,
        ),
        "target_transform": deployed_target(predictor, target.column, outputs["unclipped"]),
    }
    every = max(1, -(-y.size // PLOT_ROWS))  # more points show nothing more and make files of hundreds of MB
    shown = list(zip(y[::every].tolist(), pred[::every].tolist()))
    metrics["residual_plot"] = {"rows": len(shown), "of": int(y.size), "every": int(every)}
    plots = {"residuals": [{"actual": a, "predicted": p, "residual": a - p} for a, p in shown]}
    columns = {"y": y, "prediction": pred, "lower": lower, "upper": upper}
    return metrics, plots, columns


def point_metrics(y: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    """RMSE, MAE, R^2 and the mean residual of the predictions `pred`."""
    from mllib.metrics import mean_absolute_error, mean_squared_error, r2_score

    return {
        "rmse": float(np.sqrt(mean_squared_error(y, pred))),
        "mae": mean_absolute_error(y, pred),
        "r2": r2_score(y, pred),
        "mean_residual": float(np.mean(y - pred)),
    }


def test_figures(
    y: np.ndarray, pred: np.ndarray, lower: np.ndarray, upper: np.ndarray, fifth: np.ndarray
) -> dict[str, float]:
    """The test figures given an interval (evaluate.n_boot): the point metrics and the deployed intervals'
    coverage, overall and in each fifth of the test predictions (fifth: each row's, 0..4; NaN where a draw has
    none of its rows)."""
    covered = (lower <= y) & (y <= upper)
    by_fifth = {
        f"coverage_fifth_{k + 1}": float(covered[fifth == k].mean()) if np.any(fifth == k) else math.nan
        for k in range(FIFTHS)
    }
    return point_metrics(y, pred) | {"coverage": float(np.mean(covered))} | by_fifth
