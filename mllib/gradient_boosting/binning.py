"""Feature binning for histogram split finding: each feature is cut once, at fit, into <= max_bins bins.

The rule is CART's (mllib.tree.binning.bin_rule): a feature with at most max_bins distinct values gets a threshold
midway between consecutive distinct values, so the binned split search sees every split the exact search would
(CART scans midpoints, seed 002, lines 1551-1629); otherwise the thresholds are the max_bins-quantiles of the
column ("averaged_inverted_cdf", as scikit-learn's HistGradientBoosting does). The quantiles are unweighted: sample
weights enter the gradients, not the bins. A value x falls in bin b = #{thresholds < x}, so "bin <= b" is exactly
"x <= thresholds[b]": splits found on bin codes are splits on raw values.

Sections cited: Machine Learning lecture notes (seed 002): Decision Trees (1551)"""

from __future__ import annotations

import numpy as np

from ..tree.binning import bin_rule


def find_bin_thresholds(columns, max_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Thresholds of all features concatenated, and offsets: feature j's are thresholds[offsets[j]:offsets[j+1]].
    columns: X.T, or any iterable of the features' columns (one at a time: the rows may be held in blocks)."""
    per_feature = []
    for column in columns:
        values, exact = bin_rule(column, max_bins)
        per_feature.append(0.5 * (values[:-1] + values[1:]) if exact else values)
    offsets = np.zeros(len(per_feature) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([c.size for c in per_feature])
    return np.concatenate(per_feature).astype(np.float64), offsets


def bin_features(X: np.ndarray, thresholds: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Bin codes as uint8, row-major: histogram building reads one row's codes at a time."""
    binned = np.empty(X.shape, dtype=np.uint8)
    for j in range(X.shape[1]):
        binned[:, j] = np.searchsorted(thresholds[offsets[j] : offsets[j + 1]], X[:, j], side="left")
    return binned
