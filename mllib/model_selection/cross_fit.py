"""Cross-fitting: every row's prediction from a model that never saw it.

Rule: for each split (fit rows, validation rows), fit on the fit rows only and predict the validation rows; a row's
out-of-fold prediction is the mean over the splits that validate it (one split for k-fold, several for repeated
splits), NaN for a row no split validates (bootstrap draws). Used for the out-of-fold scores that calibration,
conformal prediction and the leakage estimate are fitted on (seed 004, D4:1935-1982: calibrate on held-out data).

Sections cited: Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1935)"""

from __future__ import annotations

import numpy as np

from .splitters import GroupKFold, KFold, StratifiedKFold
from .stratified_group import StratifiedGroupKFold


def cross_fit(fit_predict, splits, n_rows: int) -> np.ndarray:
    """fit_predict(k, fit_rows, valid_rows) -> predictions of valid_rows ((m,) or (m, K)) by a model fitted on
    fit_rows only; returns the (n_rows,) or (n_rows, K) out-of-fold predictions (NaN where no split validates)."""
    total, count = None, np.zeros(n_rows)
    for k, (fit, valid) in enumerate(splits):
        predictions = np.asarray(fit_predict(k, fit, valid), dtype=np.float64)
        if total is None:
            total = np.zeros((n_rows,) + predictions.shape[1:])
        np.add.at(total, valid, predictions)
        np.add.at(count, valid, 1)
    if total is None:
        raise ValueError("cross_fit needs at least one split")
    with np.errstate(invalid="ignore"):  # a row no split validates is 0 / 0: NaN, as documented
        total /= count.reshape((n_rows,) + (1,) * (total.ndim - 1))  # in place: no second (n, K) array
    return total


def inner_splitter(n_splits: int, grouped: bool, stratify: bool, random_state=None):
    """The shuffled k-fold splitter of a step that cross-validates inside the rows it is fitted on: grouped (no group
    on both sides) when the rows have groups, stratified by y for class labels."""
    if grouped:
        cls = StratifiedGroupKFold if stratify else GroupKFold
    else:
        cls = StratifiedKFold if stratify else KFold
    return cls(n_splits=n_splits, shuffle=True, random_state=random_state)


def inner_splits(n_splits: int, y, groups=None, stratify: bool = True, random_state=None) -> list[tuple]:
    """inner_splitter's splits of these rows (stacking's meta-features, sequential feature selection)."""
    y = np.asarray(y)
    splitter = inner_splitter(n_splits, groups is not None, stratify, random_state)
    return list(splitter.split(np.zeros((y.shape[0], 1)), y, groups))
