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


def binned_blocks(blocks, find_thresholds) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows held in blocks (mllib.base.RowBlocks, or a cluster's: a block is (X, y, sample_weight or None)) binned as
    fit bins the rows put together: each feature's thresholds from its column gathered alone (find_thresholds(columns)
    -> (thresholds, offsets), fit's rule on the same values), the blocks binned where they are and their uint8 codes
    copied here block by block into one array (n x p bytes, an eighth of X, never held twice). Returns (thresholds,
    offsets, codes, y, sample weights)."""
    from ..base import common_width

    width = common_width(blocks.map(_width))
    thresholds, offsets = find_thresholds(np.concatenate(blocks.map(_column, j)) for j in range(width))
    codes = np.empty((sum(blocks.map(_n_rows)), width), dtype=np.uint8)
    ys, ws, start = [], [], 0
    for part, y, w in blocks.each(_binned_block, thresholds, offsets):
        codes[start : start + part.shape[0]] = part
        start += part.shape[0]
        ys.append(y)
        ws.append(w)
    return thresholds, offsets, codes, np.concatenate(ys), np.concatenate(ws)


# module-level functions: a cluster's workers run them on their blocks (pickled by name)
def _width(block) -> int:
    return np.shape(block[0])[1]


def _n_rows(block) -> int:
    return np.shape(block[0])[0]


def _column(block, j: int) -> np.ndarray:
    return np.asarray(block[0][:, j], dtype=np.float64)


def _binned_block(block, thresholds, offsets) -> tuple:
    from ..base import check_sample_weight, check_X_y

    X, y, w = block
    X, y = check_X_y(X, y)
    return bin_features(X, thresholds, offsets), y, check_sample_weight(w, X.shape[0])
