"""The evaluate stage: the test set, used once (seed 004, D4:200, 543), through the deployed predictor
(models/predictor: features -> model -> calibrator -> decision rule), so these are the decisions fairness,
explain and the served model make too. Metrics, curves, the reject option, every figure's bootstrap interval and the
rule beside the no-skill rule (what the promotion gate reads) are pipeline/steps/evaluation.py's.

Sections cited: Ghent ML notes (seed 004): 1.5 Model Selection: hyperparameter analysis (200)"""

from __future__ import annotations

from functools import singledispatch

import pandas as pd

from mllib import io as mlio
from mllib.calibration import NoCalibration
from pipeline.core import paths
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.io import read_parquet, write_csv, write_json, write_parquet
from pipeline.core.records import TrainMetrics
from pipeline.core.summaries import sensitive_groupings
from pipeline.core.task import Classification, Regression, Target
from pipeline.steps.comparison import versus_runner_up
from pipeline.steps.evaluation import prediction_columns, rule_of, test_metrics
from pipeline.steps.regression import test_report
from pipeline.steps.row_outputs import test_outputs


@singledispatch
def evaluate(
    target: Target, params: dict, predictor, test: pd.DataFrame, outputs, y, y_train, trained: dict, clusters
) -> dict:
    """The deployed predictor's test metrics (returned), its predictions and plots (written), for the target's kind."""
    raise TypeError(f"no evaluate step for {type(target).__name__}")


@evaluate.register
def evaluate_regression(
    target: Regression, params: dict, predictor, test: pd.DataFrame, outputs, y, y_train, trained: dict, clusters
) -> dict:
    """Point metrics, the intervals' coverage and width, the residuals; the classification plots are empty files."""
    metrics, plots, columns = test_report(target, predictor, outputs, y, trained, y_train, params, clusters)
    deployed = metrics["intervals"][predictor.interval_method]
    print(
        f"evaluate: test RMSE {metrics['rmse']:.4g}, MAE {metrics['mae']:.4g}, R^2 {metrics['r2']:.4f}; "
        f"{predictor.interval_method} intervals: coverage {deployed['coverage']:.3f} (target "
        f"{predictor.coverage_:g}), mean width {deployed['mean_width']:.4g}"
    )
    write_parquet(pd.DataFrame({paths.ROW_ID: test[paths.ROW_ID], **columns}), paths.TEST_PREDICTIONS)
    write_json(plots["residuals"], paths.RESIDUALS)
    for path in (paths.ROC_CURVE, paths.PR_CURVE, paths.RISK_COVERAGE, paths.RELIABILITY_TEST):
        write_json([], path)  # classification plots: nothing to draw for a regression target
    write_csv(pd.DataFrame(columns=["actual", "predicted"]), paths.CONFUSION)
    return metrics


@evaluate.register
def evaluate_classification(
    target: Classification, params: dict, predictor, test: pd.DataFrame, outputs, y, y_train, trained: dict, clusters
) -> dict:
    """Probabilities, decisions, the reject option and conformal sets on test; metrics, curves, reliability rows."""
    scores = outputs["scores"]
    P, P_raw = predictor.proba_from_scores(scores), NoCalibration().fit(scores).predict_proba(scores)
    decided = predictor.decide(P)
    sets = predictor.conformal.predict_set(P)
    metrics, plots = test_metrics(
        target,
        y,
        P,
        P_raw,
        decided,
        sets,
        params,
        sensitive_groupings(test, params["data"]["sensitive"]),
        trained,
        rule_of(predictor),
        y_train,
        clusters,
    )
    headline = f"{target.headline_label} {metrics[target.headline_metric]:.4f}"
    reject, conformal = metrics["selective"]["reject_option"], metrics["conformal"]
    print(
        f"evaluate: test {headline}, accuracy {metrics['accuracy']:.4f} ({predictor.rule_} decisions); reject option: "
        f"coverage {reject['coverage']:.3f}, selective risk {reject['selective_risk']:.4f}; conformal sets: coverage "
        f"{conformal['coverage']:.3f} (target {conformal['set_coverage']:g}), mean size "
        f"{conformal['mean_set_size']:.2f}"
    )

    write_parquet(
        pd.DataFrame({paths.ROW_ID: test[paths.ROW_ID], **prediction_columns(y, scores, P_raw, P, decided, sets)}),
        paths.TEST_PREDICTIONS,
    )
    write_json(plots["roc"], paths.ROC_CURVE)
    write_json(plots["pr"], paths.PR_CURVE)
    write_csv(pd.DataFrame(plots["confusion"]), paths.CONFUSION)
    write_json(plots["risk_coverage"], paths.RISK_COVERAGE)
    write_json([], paths.RESIDUALS)  # regression only
    write_json(plots["reliability"], paths.RELIABILITY_TEST)
    return metrics


def main() -> None:
    params = load_params()
    data = params["data"]
    target = Target.read(paths.TARGET)
    predictor = mlio.load(paths.PREDICTOR)
    test, outputs = test_outputs(params, target, predictor)
    y = target.encode(test[data["target"]])
    y_train = target.encode(read_parquet(paths.TRAIN, "split", columns=[data["target"]])[data["target"]])  # baseline
    trained = TrainMetrics.read()
    groups = test[data["group"]].to_numpy() if data["group"] else None  # the intervals draw a group's rows together
    metrics = evaluate(target, params, predictor, test, outputs, y, y_train, trained, groups)
    metrics["comparison"] = versus_runner_up(
        params["model"], params["seed"], trained, target, y_train, y, predictor.model
    )
    write_json(metrics, paths.TEST_METRICS)


if __name__ == "__main__":
    run_stage(main)
