"""Scalar summaries of the reliability diagram: expected and maximum calibration error.

Rule: ECE = sum_b (n_b / n) |fraction_positive_b - mean_predicted_b| over the non-empty bins;
MCE = max_b |fraction_positive_b - mean_predicted_b| over the non-empty bins.
Not in the notes (catalogue section 3.1, [STD] scalar summaries); the binning is `reliability_curve`'s,
so the same n_bins / strategy / edge rule must be reported with the number.
"""
from __future__ import annotations

import numpy as np

from .reliability import reliability_curve


def _bin_gaps(y_true, proba, n_bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    curve = reliability_curve(y_true, proba, n_bins=n_bins, strategy=strategy)
    filled = curve["count"] > 0
    gaps = np.abs(curve["fraction_positive"][filled] - curve["mean_predicted"][filled])
    return gaps, curve["count"][filled]


def expected_calibration_error(y_true, proba, n_bins: int = 10, strategy: str = "uniform") -> float:
    """ECE: the count-weighted mean absolute gap between observed frequency and mean prediction per bin."""
    gaps, counts = _bin_gaps(y_true, proba, n_bins, strategy)
    return float(counts @ gaps / counts.sum())


def maximum_calibration_error(y_true, proba, n_bins: int = 10, strategy: str = "uniform") -> float:
    """MCE: the largest absolute gap between observed frequency and mean prediction over non-empty bins."""
    gaps, _ = _bin_gaps(y_true, proba, n_bins, strategy)
    return float(gaps.max())
