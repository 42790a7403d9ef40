"""Turn mllib results into report rows shared by several stages (calibration quality, reliability rows)."""
from __future__ import annotations

import numpy as np

from mllib.calibration import expected_calibration_error, maximum_calibration_error, reliability_curve
from mllib.metrics import brier_score, log_loss


def calibration_quality(y: np.ndarray, p: np.ndarray, cfg: dict) -> dict:
    """ECE / MCE with the binning spec of params.yaml `calibration`, Brier score and log loss."""
    bins = dict(n_bins=cfg["n_bins"], strategy=cfg["binning"])
    return {
        "ece": expected_calibration_error(y, p, **bins),
        "mce": maximum_calibration_error(y, p, **bins),
        "brier": brier_score(y, p),
        "log_loss": log_loss(y, p),
    }


def reliability_rows(y: np.ndarray, p: np.ndarray, cfg: dict, label: str) -> list[dict]:
    """Reliability-diagram rows for DVC plots, one per bin (empty bins kept, with null means)."""
    curve = reliability_curve(y, p, n_bins=cfg["n_bins"], strategy=cfg["binning"])
    return [{"calibration": label, "bin": i, **{k: v[i] for k, v in curve.items()}} for i in range(len(curve["count"]))]
