"""The calibrate stage: map the model's scores to probabilities that mean what they say (seed 004,
D4:1935-1982), fitted on out-of-fold predictions only, never on test; for K > 2 classes temperature scaling (and
none) take the class scores directly, platt / beta / isotonic / histogram_binning one-vs-rest and renormalised
(the choice: pipeline/steps/calibration.py). The "after" figures are cross-fitted: fold k is scored by a map fitted
on the other folds' out-of-fold rows (chaining forward in time: the earlier folds'), so they are honest; the same
probabilities are written per row for the fairness stage and fit the conformal sets (calibration.set_coverage).
Then the deployed predictor is assembled: the fitted features, model and calibrator with the decision rule of
params.yaml `decision`, one artifact (models/predictor) that evaluate, fairness, explain and the served model use.
Quality is reported overall and within each sensitive group: ECE / MCE with the binning spec, Brier, log loss,
reliability rows with counts and the empty bins kept.

Sections cited: Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1935)"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from mllib import io as mlio
from mllib.conformal import SplitConformalClassifier
from pipeline.core import paths
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.frames import proba_columns, read_scores
from pipeline.core.io import read_estimators, read_model, read_parquet, write_json, write_parquet
from pipeline.core.json_types import JSON
from pipeline.core.records import TrainMetrics
from pipeline.core.summaries import reliability_rows, sensitive_groupings
from pipeline.core.task import Classification, Regression, Target
from pipeline.core.timeline import chains_forward
from pipeline.steps import calibration
from pipeline.steps.regression import assemble_regressor, intervals_summary, point_predictions


def calibrate(target: Target, oof: pd.DataFrame, params: JSON) -> None:
    """The deployed predictor of the target's kind, fitted on the out-of-fold rows `oof`."""
    CALIBRATE[target.task](target, oof, params)


def regression_intervals(target: Regression, oof: pd.DataFrame, params: JSON) -> None:
    """A regression target: no calibration map; the deployed regressor with its conformal intervals, on the scale
    the train stage fitted the model on (the out-of-fold `score`s are on it) and with its floor."""
    cfg = params["calibration"]
    y, pred, fold = oof["y"].to_numpy(), oof["score"].to_numpy(), oof["fold"].to_numpy()
    fitted = {
        "features": read_model(paths.FEATURE_TRANSFORMER, "features"),
        "model": read_model(paths.MODEL, "train"),
        "fold_features": read_estimators(paths.FOLD_FEATURES, "features"),
        "fold_models": read_estimators(paths.FOLD_MODELS, "train"),
    }
    predictor, metrics = assemble_regressor(y, pred, fold, cfg, fitted, TrainMetrics.read().target_transform)
    print(intervals_summary(metrics))
    mlio.save(predictor, paths.PREDICTOR)
    prediction = point_predictions(predictor, pred)  # in y's units, as deployed
    write_parquet(
        pd.DataFrame({paths.ROW_ID: oof[paths.ROW_ID], "fold": fold, "y": y, "prediction": prediction}),
        paths.OOF_CALIBRATED,
    )
    metrics.write()
    write_json([], paths.RELIABILITY_OOF)


def calibration_map(target: Classification, oof: pd.DataFrame, params: JSON) -> None:
    """A classification target: the calibration map chosen on cross-fitted scores, the conformal sets and the
    decision rule."""
    cfg, sensitive = params["calibration"], params["data"]["sensitive"]
    y, score, fold = oof["y"].to_numpy(), read_scores(oof), oof["fold"].to_numpy()
    forward = chains_forward(params["split"], params["data"])  # each period's map fitted on the earlier periods
    calibrator, choice, before, after = calibration.fit_map(cfg, target, score, y, fold, forward)
    for line in calibration.choice_lines(cfg, choice):
        print(line)
    scored = calibration.scored_rows(fold, forward)
    if note := calibration.scored_note(scored):
        print(note)
    oof, y, fold = oof[scored].reset_index(drop=True), y[scored], fold[scored]
    conformal = SplitConformalClassifier(coverage=cfg["set_coverage"]).fit(after, y)
    features, model = read_model(paths.FEATURE_TRANSFORMER, "features"), read_model(paths.MODEL, "train")
    predictor = calibration.assemble(features, model, calibrator, conformal, target, params["decision"])
    train = read_parquet(paths.TRAIN, "split", columns=[paths.ROW_ID, *sensitive])
    groupings = sensitive_groupings(train, sensitive, rows=oof[paths.ROW_ID])
    del train
    only_fitted = int((~scored).sum()) if forward else None
    metrics = calibration.calibration_metrics(
        cfg, choice, target, calibrator, conformal, predictor, y, before, after, groupings, params, only_fitted
    )
    print(calibration.calibration_summary(cfg, choice, metrics, conformal, predictor))
    mlio.save(predictor, paths.PREDICTOR)
    write_parquet(
        pd.DataFrame({paths.ROW_ID: oof[paths.ROW_ID], "fold": fold, "y": y, **proba_columns(after)}),
        paths.OOF_CALIBRATED,
    )
    metrics.write()
    write_json(
        reliability_rows(target, y, before, cfg, "before") + reliability_rows(target, y, after, cfg, "after"),
        paths.RELIABILITY_OOF,
    )


# by task
CALIBRATE: dict[str, Callable[..., None]] = {
    "binary": calibration_map,
    "multiclass": calibration_map,
    "regression": regression_intervals,
}


def main() -> None:
    params = load_params()
    oof = read_parquet(paths.OOF_PREDICTIONS, "train")
    oof = oof[oof["fold"] >= 0].reset_index(drop=True)  # rows that no split validated have no out-of-fold score
    calibrate(Target.read(paths.TARGET), oof, params)


if __name__ == "__main__":
    run_stage(main)
