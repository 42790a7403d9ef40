"""Stage 6, calibrate: map the model's scores to probabilities that mean what they say (seed 004,
D4:1935-1982), fitted on out-of-fold predictions only, never on test. The "after" figures are cross-fitted:
fold k is scored by a calibrator fitted on the other folds' out-of-fold rows, so they are honest estimates;
the same cross-fitted probabilities are written per row for the fairness stage's threshold fit (an in-sample
fit of isotonic regression or histogram binning would be optimistic there). Quality is reported overall and
within each sensitive group (and their intersections): ECE / MCE with the binning spec, Brier decomposition,
reliability rows with counts and the empty bins kept."""
from __future__ import annotations

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib import registry
from mllib.base import clone
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.io import read_parquet, write_json, write_parquet
from pipeline.summaries import binning_spec, calibration_report, group_calibration, reliability_rows, sensitive_groupings


def calibrator_of(cfg: dict):
    """calibration.method with its settings from calibration.params (the registry defaults otherwise)."""
    return registry.CALIBRATORS[cfg["method"]](**cfg["params"].get(cfg["method"], {}))


def cross_fitted(calibrator, score: np.ndarray, y: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """Each fold's probabilities from a copy of `calibrator` fitted on the other folds' rows only."""
    p = np.empty(len(y))
    for k in np.unique(fold):
        held_out = fold == k
        p[held_out] = clone(calibrator).fit(score[~held_out], y[~held_out]).transform(score[held_out])
    return p


def main() -> None:
    params = load_params()
    cfg, sensitive = params["calibration"], params["data"]["sensitive"]
    method = cfg["method"]
    oof = read_parquet(paths.OOF_PREDICTIONS, "train")
    oof = oof[oof["fold"] >= 0].reset_index(drop=True)  # rows that no split validated have no out-of-fold score
    y, score, fold = oof["y"].to_numpy(), oof["score"].to_numpy(), oof["fold"].to_numpy()
    settings = cfg["params"].get(method, {})
    try:
        calibrator = calibrator_of(cfg).fit(score, y)
        before = registry.CALIBRATORS["none"]().fit(score).transform(score)
        after = cross_fitted(calibrator, score, y, fold)
    except (TypeError, ValueError) as exc:
        raise PipelineError(f"calibrate: calibration.method {method!r} with calibration.params.{method} = {settings} "
                            f"cannot be fitted on the out-of-fold scores: {exc}") from None
    rows = oof[[paths.ROW_ID]].merge(read_parquet(paths.TRAIN, "split")[[paths.ROW_ID, *sensitive]], on=paths.ROW_ID,
                                     how="left", validate="one_to_one")
    groupings = sensitive_groupings(rows, sensitive)

    metrics = {
        "method": method,
        "settings": calibrator.get_params(),
        "binning": binning_spec(cfg),
        "n_rows": int(len(y)),
        "oof_before": calibration_report(y, before, cfg),
        "oof_after_crossfitted": calibration_report(y, after, cfg),
        "groups": group_calibration(y, before, after, groupings, cfg),
        "parameters": {k: v for k, v in vars(calibrator).items() if k.endswith("_") and np.isscalar(v)},
    }
    print(f"calibrate: {method}: out-of-fold ECE {metrics['oof_before']['ece']:.4f} -> "
          f"{metrics['oof_after_crossfitted']['ece']:.4f} (cross-fitted, {cfg['n_bins']} {cfg['binning']} bins)")
    mlio.save(calibrator, paths.CALIBRATOR)
    write_parquet(pd.DataFrame({paths.ROW_ID: oof[paths.ROW_ID], "fold": fold, "y": y, "proba": after}), paths.OOF_CALIBRATED)
    write_json(metrics, paths.CALIBRATION_METRICS)
    write_json(reliability_rows(y, before, cfg, "before") + reliability_rows(y, after, cfg, "after"), paths.RELIABILITY_OOF)


if __name__ == "__main__":
    run_stage(main)
