"""Stage 6, calibrate: map the model's scores to probabilities that mean what they say (seed 004,
D4:1935-1982), fitted on out-of-fold predictions only, never on test. The "after" figures are cross-fitted:
fold k is scored by a calibrator fitted on the other folds' out-of-fold rows, so they are honest estimates."""
from __future__ import annotations

import numpy as np

from mllib import io as mlio
from mllib import registry
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.io import read_parquet, write_json
from pipeline.summaries import calibration_quality, reliability_rows


def cross_fitted(method: str, score: np.ndarray, y: np.ndarray, fold: np.ndarray) -> np.ndarray:
    p = np.empty(len(y))
    for k in np.unique(fold):
        held_out = fold == k
        calibrator = registry.CALIBRATORS[method]().fit(score[~held_out], y[~held_out])
        p[held_out] = calibrator.transform(score[held_out])
    return p


def main() -> None:
    params = load_params()
    cfg = params["calibration"]
    oof = read_parquet(paths.OOF_PREDICTIONS, "train")
    oof = oof[oof["fold"] >= 0]  # rows that no split validated have no out-of-fold score
    y, score, fold = oof["y"].to_numpy(), oof["score"].to_numpy(), oof["fold"].to_numpy()
    try:
        calibrator = registry.CALIBRATORS[cfg["method"]]().fit(score, y)
        before = registry.CALIBRATORS["none"]().fit(score).transform(score)
        after = cross_fitted(cfg["method"], score, y, fold)
    except ValueError as exc:
        raise PipelineError(f"calibrate: calibration.method {cfg['method']!r} cannot be fitted on the out-of-fold scores: {exc}") from None

    metrics = {
        "method": cfg["method"],
        "binning": {"n_bins": cfg["n_bins"], "strategy": cfg["binning"]},
        "oof_before": calibration_quality(y, before, cfg),
        "oof_after_crossfitted": calibration_quality(y, after, cfg),
        "parameters": {k: v for k, v in vars(calibrator).items() if k.endswith("_") and np.isscalar(v)},
    }
    print(f"calibrate: {cfg['method']}: out-of-fold ECE {metrics['oof_before']['ece']:.4f} -> {metrics['oof_after_crossfitted']['ece']:.4f} (cross-fitted)")
    mlio.save(calibrator, paths.CALIBRATOR)
    write_json(metrics, paths.CALIBRATION_METRICS)
    write_json(reliability_rows(y, before, cfg, "before") + reliability_rows(y, after, cfg, "after"), paths.RELIABILITY_OOF)


if __name__ == "__main__":
    run_stage(main)
