"""Stage 6, calibrate: map the model's scores to probabilities that mean what they say (seed 004,
D4:1935-1982), fitted on out-of-fold predictions only, never on test. The "after" figures are cross-fitted:
fold k is scored by a calibrator fitted on the other folds' out-of-fold rows, so they are honest estimates.
Quality is reported overall and within each sensitive group (and their intersections): ECE / MCE with the
binning spec, Brier decomposition, reliability rows with counts and the empty bins kept."""
from __future__ import annotations

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib import registry
from mllib.fairness import intersectional_groups
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.frames import category_labels
from pipeline.io import read_parquet, write_json
from pipeline.summaries import calibration_report, group_calibration, reliability_rows


def cross_fitted(method: str, score: np.ndarray, y: np.ndarray, fold: np.ndarray) -> np.ndarray:
    p = np.empty(len(y))
    for k in np.unique(fold):
        held_out = fold == k
        calibrator = registry.CALIBRATORS[method]().fit(score[~held_out], y[~held_out])
        p[held_out] = calibrator.transform(score[held_out])
    return p


def sensitive_groupings(oof: pd.DataFrame, train: pd.DataFrame, sensitive: list[str]) -> dict:
    """{attribute or intersection: group label per out-of-fold row}, from the training rows' sensitive columns."""
    if not sensitive:
        return {}
    rows = oof[[paths.ROW_ID]].merge(train[[paths.ROW_ID, *sensitive]], on=paths.ROW_ID, how="left", validate="one_to_one")
    return intersectional_groups({a: category_labels(rows[a]).astype(str) for a in sensitive})


def main() -> None:
    params = load_params()
    cfg, sensitive = params["calibration"], params["data"]["sensitive"]
    method = cfg["method"]
    oof = read_parquet(paths.OOF_PREDICTIONS, "train")
    oof = oof[oof["fold"] >= 0].reset_index(drop=True)  # rows that no split validated have no out-of-fold score
    y, score, fold = oof["y"].to_numpy(), oof["score"].to_numpy(), oof["fold"].to_numpy()
    try:
        calibrator = registry.CALIBRATORS[method]().fit(score, y)
        before = registry.CALIBRATORS["none"]().fit(score).transform(score)
        after = cross_fitted(method, score, y, fold)
    except ValueError as exc:
        raise PipelineError(f"calibrate: calibration.method {method!r} cannot be fitted on the out-of-fold scores: {exc}") from None
    groupings = sensitive_groupings(oof, read_parquet(paths.TRAIN, "split"), sensitive)

    metrics = {
        "method": method,
        "binning": {"n_bins": cfg["n_bins"], "strategy": cfg["binning"], "brier_decomposition": "uniform",
                    "edges": "right-open bins [lower, upper), the last closed at 1"},
        "n_rows": int(len(y)),
        "oof_before": calibration_report(y, before, cfg),
        "oof_after_crossfitted": calibration_report(y, after, cfg),
        "groups": group_calibration(y, before, after, groupings, cfg),
        "parameters": {k: v for k, v in vars(calibrator).items() if k.endswith("_") and np.isscalar(v)},
    }
    print(f"calibrate: {method}: out-of-fold ECE {metrics['oof_before']['ece']:.4f} -> "
          f"{metrics['oof_after_crossfitted']['ece']:.4f} (cross-fitted, {cfg['n_bins']} {cfg['binning']} bins)")
    mlio.save(calibrator, paths.CALIBRATOR)
    write_json(metrics, paths.CALIBRATION_METRICS)
    write_json(reliability_rows(y, before, cfg, "before") + reliability_rows(y, after, cfg, "after"), paths.RELIABILITY_OOF)


if __name__ == "__main__":
    run_stage(main)
