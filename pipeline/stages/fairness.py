"""The fairness stage: for each sensitive attribute and every intersection of them, per-group rates of the deployed
predictor's test decisions (the evaluate stage's predictions) with seeded bootstrap intervals (clusters of
data.group resampled together when it is set), the parity criteria and, for binary targets, which of them can hold
at once and two mitigations judged on test against the deployed decisions: per-group thresholds fitted on the
cross-fitted out-of-fold probabilities of the calibrate stage (never on test, never in-sample), and reweighing
(a clone of the deployed model refitted with Kamiran-Calders weights, decided through the same chain). Multiclass
targets get per-class rates, macro gaps and reweighing (pipeline/steps/fairness_audit.py says what is not defined)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pipeline.core import paths
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError, run_stage
from pipeline.core.frames import attribute_labels, read_proba
from pipeline.core.io import read_parquet, read_predictor, write_csv
from pipeline.core.json_types import JSON
from pipeline.core.records import TrainMetrics
from pipeline.core.task import Classification, Regression, Target
from pipeline.steps import fairness_audit
from pipeline.steps.feature_blocks import RowsInMemory, RowsOnParts, audited_rows

if TYPE_CHECKING:
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor


def audit_errors(
    target: Regression,
    params: JSON,
    predictor: DeployedRegressor,
    test: pd.DataFrame,
    predictions: pd.DataFrame,
    rows: RowsInMemory | RowsOnParts,
) -> JSON:
    """Errors, bias and interval coverage by group; the decision criteria and mitigations are not defined."""
    audited = fairness_audit.regression_fairness(predictions, test, params["fairness"], params["seed"], params["data"])
    print(*fairness_audit.regression_lines(audited["attributes"]), sep="\n")  # a line per attribute
    return audited


def audit_decisions(
    target: Classification,
    params: JSON,
    predictor: DeployedPredictor,
    test: pd.DataFrame,
    predictions: pd.DataFrame,
    rows: RowsInMemory | RowsOnParts,
) -> JSON:
    """Rates and parity criteria of the deployed decisions by group, per-group thresholds and reweighing (rows: the
    training and test rows the reweighed refit is fitted and judged on)."""
    data, cfg = params["data"], params["fairness"]
    sensitive, criterion = data["sensitive"], cfg["mitigation"]["criterion"]
    decisions = predictions["y"].to_numpy(), predictions["prediction"].to_numpy(), read_proba(predictions)
    seen = fairness_audit.favourable_outcomes(target, cfg["favourable_label"], *decisions)
    test_labels = attribute_labels(test, sensitive)
    clusters = test[data["group"]].to_numpy() if data["group"] else None
    attributes = fairness_audit.audit(
        target, seen.y, seen.decision, seen.P, test_labels, clusters, cfg, params["seed"], params["calibration"]
    )
    train = read_parquet(paths.TRAIN, "split", columns=[paths.ROW_ID, data["target"], *sensitive])
    oof = None  # the per-group thresholds' rows: calibrate's cross-fitted probabilities
    if criterion != "none":
        oof = read_parquet(paths.OOF_CALIBRATED, "calibrate", columns=[paths.ROW_ID, "y", "proba_1"])
    threshold = getattr(predictor, "decision_threshold_", None)
    mitigation = fairness_audit.threshold_report(
        target, cfg["mitigation"], sensitive, train, oof, test_labels, seen, threshold
    )
    y_train = target.encode(train[data["target"]])
    weighting = fairness_audit.training_weights(y_train, attribute_labels(train, sensitive))
    del train, oof  # the refit below holds every training row's features; not these columns as well
    trained = TrainMetrics.read()
    reweighed = fairness_audit.reweighing(target, predictor, rows, y_train, weighting, seen.y, test_labels,
                                          seen.decision, cfg["reweighing"], trained.model, trained.best_params,
                                          seen.flip)  # fmt: skip
    audited = {"attributes": attributes, "mitigation": mitigation, "reweighing": reweighed}
    print(*fairness_audit.summary_lines(audited, criterion), sep="\n")  # a line per attribute, then the mitigations
    return audited


# by task
AUDIT_TEST: dict[str, Callable[..., JSON]] = {
    "binary": audit_decisions,
    "multiclass": audit_decisions,
    "regression": audit_errors,
}


def main() -> None:
    params = load_params()
    data, cfg = params["data"], params["fairness"]
    target = Target.read(paths.TARGET)
    fairness_audit.favourable_is_negative(target, cfg["favourable_label"])  # a label that cannot apply stops here
    predictor = read_predictor(paths.PREDICTOR)
    predictions = read_parquet(paths.TEST_PREDICTIONS, "evaluate")
    audited: dict[str, Any] = {
        "attributes": {},
        "mitigation": {"criterion": cfg["mitigation"]["criterion"]},
        "reweighing": None,
    }
    with audited_rows(params, target) as (test, rows):
        if not np.array_equal(test[paths.ROW_ID].to_numpy(), predictions[paths.ROW_ID].to_numpy()):
            raise PipelineError(f"{paths.TEST_PREDICTIONS} does not match {paths.TEST}; rerun `dvc repro evaluate`")
        if data["sensitive"]:
            audited = AUDIT_TEST[target.task](target, params, predictor, test, predictions, rows)
        else:
            print("fairness: data.sensitive is empty; nothing to audit")
    header = fairness_audit.report_header(target, predictor, cfg, params["seed"], data["group"])
    target.fairness_record.of({**header, "bootstrap": header["bootstrap"].to_json(), **audited}).write()
    plot = pd.DataFrame(fairness_audit.plot_rows(target, audited["attributes"]), columns=fairness_audit.PLOT_COLUMNS)
    write_csv(plot, paths.FAIRNESS_PLOT)


if __name__ == "__main__":
    run_stage(main)
