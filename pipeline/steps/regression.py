"""The calibrate and evaluate stages' work for a regression target: the deployed regressor with its conformal
intervals (mllib.deploy.DeployedRegressor, mllib.conformal), and the test metrics of its predictions.

Intervals come from the out-of-fold residuals of the train stage: CV+ (the fold models' predictions at a new row
shifted by every training row's residual) or split conformal (the final model's prediction -/+ the conformal
quantile of the absolute residuals); the Gaussian process and Bayesian linear regression add their own predictive
interval. Metrics: RMSE, MAE, R^2, the mean residual, interval coverage and width, the validation-vs-test gap.
"""

from __future__ import annotations

import numpy as np

from mllib.conformal import CVPlusRegressor, SplitConformalRegressor, interval_summary
from mllib.deploy import DeployedRegressor

from ..core.errors import PipelineError
from ..core.evaluation_records import IntervalsFit, RegressionCalibration
from ..core.records import TrainMetrics
from ..core.task import Regression
from .evaluation import gap_report, with_intervals

PLOT_ROWS = 20_000  # the residual plot's test rows, at most: every k-th row of a larger test set, stated in test.json


def assemble_regressor(
    y: np.ndarray, pred: np.ndarray, fold: np.ndarray, cfg: dict, fitted: dict
) -> tuple[DeployedRegressor, RegressionCalibration]:
    """The deployed regressor from the final features and model, the fold pipelines (fitted: {features, model,
    fold_features, fold_models}, as the features and train stages wrote them) and the out-of-fold predictions `pred`
    of the rows in `fold`; and its calibrate-stage report."""
    coverage = cfg["interval_coverage"]
    cv_plus = CVPlusRegressor(coverage).fit(y, pred, fold)
    n_folds = cv_plus.n_folds_  # repeated splits validate no row first after the first repeat
    predictor = DeployedRegressor(
        features=fitted["features"],
        model=fitted["model"],
        split=SplitConformalRegressor(coverage).fit(y, pred),
        cv_plus=cv_plus,
        fold_features=fitted["fold_features"][:n_folds],
        fold_models=fitted["fold_models"][:n_folds],
        interval_method=cfg["interval_method"],
    )
    try:
        predictor.fit()
    except ValueError as exc:
        raise PipelineError(
            f"calibrate: the fold artifacts do not match the out-of-fold predictions ({exc}); rerun "
            "`dvc repro -f features train`"
        ) from None
    residual = np.abs(y - pred)
    report = RegressionCalibration(
        task="regression",
        n_rows=int(y.size),
        oof=Regression.point_metrics(y, pred),
        intervals=IntervalsFit(
            method=cfg["interval_method"],
            coverage=coverage,
            n_folds=n_folds,
            split_threshold=predictor.split.threshold_,
            fitted_on="out-of-fold residuals of the train stage's fold models",
            residual_quantiles=dict(zip(("50%", "90%", "99%"), np.quantile(residual, [0.5, 0.9, 0.99]).tolist())),
        ),
        not_converged=[],  # conformal intervals are quantiles: no solver, no cap
    )
    return predictor, report


def row_outputs(predictor: DeployedRegressor, X) -> dict[str, np.ndarray]:
    """What the test report needs of the rows X: the predictions and the intervals of each method (computed where the
    rows are: a part at a time on the partitioned path)."""
    pred = predictor.predict(X)
    outputs = {"prediction": pred}
    outputs["lower"], outputs["upper"] = predictor.predict_interval(X, prediction=pred)
    if predictor.cv_plus is not None:
        other = "split" if predictor.interval_method == "cv_plus" else "cv_plus"
        outputs["other_lower"], outputs["other_upper"] = predictor.predict_interval(X, method=other, prediction=pred)
    own = predictor.model_interval(X)
    if own is not None:
        outputs["model_lower"], outputs["model_upper"] = own
    return outputs


def test_report(
    target: Regression,
    predictor: DeployedRegressor,
    outputs: dict,
    y: np.ndarray,
    train_metrics: TrainMetrics,
    y_train,
    params: dict,
    clusters: np.ndarray | None = None,
) -> tuple[dict, dict, dict]:
    """(test.json, plot rows, per-row columns) of the deployed regressor on the test rows (outputs: row_outputs of
    them), with the no-skill baseline's metrics (the training rows' mean predicted for every test row) beside
    them and each figure's bootstrap interval (clusters: the data.group value of each row, or None)."""
    pred, lower, upper = outputs["prediction"], outputs["lower"], outputs["upper"]
    intervals = {
        "deployed": predictor.interval_method,
        "coverage_target": predictor.coverage_,
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
        **target.point_metrics(y, pred),
        "intervals": intervals,
        "cv_vs_test": gap_report(train_metrics, target, y, None, pred),
        "baseline": {"model": "mean of the training rows", **target.point_metrics(y, np.full(y.size, y_train.mean()))},
        "bootstrap": with_intervals(
            lambda rows: target.test_figures(y[rows], pred[rows], lower[rows], upper[rows]), y.size, params, clusters
        ),
    }
    every = max(1, -(-y.size // PLOT_ROWS))  # more points show nothing more and make files of hundreds of MB
    shown = list(zip(y[::every].tolist(), pred[::every].tolist()))
    metrics["residual_plot"] = {"rows": len(shown), "of": int(y.size), "every": int(every)}
    plots = {"residuals": [{"actual": a, "predicted": p, "residual": a - p} for a, p in shown]}
    columns = {"y": y, "prediction": pred, "lower": lower, "upper": upper}
    return metrics, plots, columns
