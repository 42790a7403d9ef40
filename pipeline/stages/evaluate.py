"""The evaluate stage: the test set, used once (seed 004, D4:200, 543), through the deployed predictor
(models/predictor: features -> model -> calibrator -> decision rule), so these are the decisions fairness,
explain and the served model make too. Metrics, curves, the reject option, every figure's bootstrap interval and the
rule beside the no-skill rule (what the promotion gate reads) are pipeline/steps/evaluation.py's.

Sections cited: Ghent ML notes (seed 004): 1.5 Model Selection: hyperparameter analysis (200)"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pipeline.core import build, paths
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.evaluation_records import ComparisonOnTest
from pipeline.core.io import read_parquet, read_predictor, write_csv, write_json, write_parquet
from pipeline.core.json_types import JSON
from pipeline.core.partitions import data_mode
from pipeline.core.records import FeaturesReport, TrainMetrics
from pipeline.core.summaries import sensitive_groupings
from pipeline.core.task import Classification, Regression, Target
from pipeline.steps import drift
from pipeline.steps.comparison import test_gains
from pipeline.steps.evaluation import with_intervals
from pipeline.steps.measures import measure
from pipeline.steps.row_outputs import test_outputs

if TYPE_CHECKING:
    from mllib.base import BaseEstimator
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

HEADLINE_LABELS = {"binary": "ROC AUC", "multiclass": "macro one-vs-rest ROC AUC", "regression": "R^2"}  # by task


def write_plots(target: Target, predictor: DeployedPredictor | DeployedRegressor, metrics: JSON, plots: JSON) -> None:
    """Print the headline and write the plot files, for the target's kind."""
    WRITE_PLOTS[target.task](target, predictor, metrics, plots)


def write_regression(target: Regression, predictor: DeployedRegressor, metrics: JSON, plots: JSON) -> None:
    intervals, scale = metrics["intervals"], metrics["target_transform"]
    deployed = intervals[predictor.interval_method]
    print(
        f"evaluate: test RMSE {metrics['rmse']:.4g}, MAE {metrics['mae']:.4g}, R^2 {metrics['r2']:.4f}; "
        f"{predictor.interval_method} intervals ({intervals['computed_on']}): coverage {deployed['coverage']:.3f} "
        f"(target {predictor.coverage_:g}), mean width {deployed['mean_width']:.4g}; by fifth of the predictions: "
        + ", ".join(f"{b['coverage']:.3f} ({b['n']} rows)" for b in intervals["by_fifth"])
        + (f"; {scale['clipped']} predictions raised to {scale['floor']:g}" if scale["floor"] is not None else "")
    )
    write_json(plots["residuals"], paths.RESIDUALS)
    for path in (paths.ROC_CURVE, paths.PR_CURVE, paths.RISK_COVERAGE, paths.RELIABILITY_TEST):
        write_json([], path)  # classification plots: nothing to draw for a regression target
    write_csv(pd.DataFrame(columns=["actual", "predicted"]), paths.CONFUSION)


def write_classification(target: Classification, predictor: DeployedPredictor, metrics: JSON, plots: JSON) -> None:
    headline = f"{HEADLINE_LABELS[target.task]} {metrics[target.headline_metric]:.4f}"
    reject, conformal = metrics["selective"]["reject_option"], metrics["conformal"]
    print(
        f"evaluate: test {headline}, accuracy {metrics['accuracy']:.4f} ({predictor.rule_} decisions); reject option: "
        f"coverage {reject['coverage']:.3f}, selective risk {reject['selective_risk']:.4f}; conformal sets: coverage "
        f"{conformal['coverage']:.3f} (target {conformal['set_coverage']:g}), mean size "
        f"{conformal['mean_set_size']:.2f}"
    )
    write_json(plots["roc"], paths.ROC_CURVE)
    write_json(plots["pr"], paths.PR_CURVE)
    write_csv(pd.DataFrame(plots["confusion"]), paths.CONFUSION)
    write_json(plots["risk_coverage"], paths.RISK_COVERAGE)
    write_json([], paths.RESIDUALS)  # regression only
    write_json(plots["reliability"], paths.RELIABILITY_TEST)


# by task
WRITE_PLOTS: dict[str, Callable[..., None]] = {
    "binary": write_classification,
    "multiclass": write_classification,
    "regression": write_regression,
}


def comparison_on_test(
    params: JSON,
    target: Target,
    trained: TrainMetrics,
    y_train: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray | None,
    model: BaseEstimator,
) -> ComparisonOnTest | None:
    """The chosen model's test score minus each other compared model's, with paired bootstrap intervals drawn as the
    test figures' are (whole data.group clusters, else within strata)."""
    data = params["data"]
    groups_train = (
        read_parquet(paths.TRAIN, "split", columns=[data["group"]])[data["group"]].to_numpy() if data["group"] else None
    )
    scorer = build.scorer("search.scoring", trained.scoring, target)
    return test_gains(
        params["model"],
        params["seed"],
        trained,
        scorer,
        y_train,
        groups_train,
        y,
        model,
        lambda figures_of, n: with_intervals(figures_of, n, params, clusters=groups, strata=target.strata(y)),
    )


def main() -> None:
    params = load_params()
    data = params["data"]
    target = Target.read(paths.TARGET)
    predictor = read_predictor(paths.PREDICTOR)
    test, outputs = test_outputs(data_mode(params, paths.TRAIN), params, target, predictor)
    y = target.encode(test[data["target"]])
    y_train = target.encode(read_parquet(paths.TRAIN, "split", columns=[data["target"]])[data["target"]])  # baseline
    trained = TrainMetrics.read()
    groups = test[data["group"]].to_numpy() if data["group"] else None  # the intervals draw a group's rows together
    groupings = sensitive_groupings(test, data["sensitive"])
    metrics, plots, row_columns = measure(target, params, predictor, outputs, y, y_train, trained, groups, groupings)
    write_parquet(pd.DataFrame({paths.ROW_ID: test[paths.ROW_ID], **row_columns}), paths.TEST_PREDICTIONS)
    write_plots(target, predictor, metrics, plots)
    metrics["comparison"] = comparison_on_test(params, target, trained, y_train, y, groups, predictor.model)
    inputs = FeaturesReport.read()
    numeric, categorical = inputs.numeric, inputs.categorical
    group = [data["group"]] if data["group"] else []
    columns = [*numeric, *categorical, *group]
    train, test = (read_parquet(path, "split", columns=columns) for path in (paths.TRAIN, paths.TEST))
    time = inputs.time.column if inputs.time else None
    metrics["drift"] = drift.compare(
        train, test, numeric, categorical, params["monitor"], params["seed"], "test rows", data["group"], time=time
    )
    record = target.test_record.of(metrics)
    print(f"evaluate: drift: {record.drift.statement}")
    record.write()


if __name__ == "__main__":
    run_stage(main)
