"""Isotonic calibration: the non-decreasing step map from score to probability that is closest to the labels.

Rule: minimise sum_i w_i (y_i - f(s_i))^2 over non-decreasing f; solved exactly by pool-adjacent-violators
(PAV): walk the labels in score order, and whenever a block's weighted mean falls below its left
neighbour's, merge the two into one block with their pooled weighted mean.
Notes: seed 004, D4:1966, 1980-1982 (named, no algorithm); catalogue section 3.3 (PAV, clipping, oracles).

Ties in the score use the *secondary* approach (de Leeuw 1977, R's isotone ties="secondary", and what
scikit-learn's IsotonicRegression does): rows with equal scores are pooled into one weighted point first,
so equal scores always get equal probabilities (the *primary* approach would let tied scores be ordered by
label and receive different values, which no prediction could reproduce).
Between block boundaries the map interpolates linearly; outside the calibration range it is clipped to the
end values. Isotonic needs more calibration rows than Platt scaling: it has one free value per block.

Sections cited: Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1966)"""

from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, check_is_fitted, check_sample_weight
from ..base.constraints import BOOLEAN, check_hyperparameters
from ._checks import check_binary, check_scores


def pool_adjacent_violators(y, sample_weight=None) -> np.ndarray:
    """The weighted least-squares non-decreasing fit to the sequence y (already in score order).

    Each block of the result holds the weighted mean of its y values, so sum(w * fit) = sum(w * y) within
    every block. Adjacent blocks with equal means are merged, so blocks are maximal. The weights must be
    positive (a zero-weight row carries no information; drop it first). O(n): every merge removes a block.
    The walk itself is compiled (_kernels.pooled_blocks).
    """
    y = check_scores(y, "y")
    w = check_sample_weight(sample_weight, y.shape[0])
    if (w <= 0).any():
        raise ValueError("pool_adjacent_violators needs positive sample weights; drop zero-weight rows first")
    from ._kernels import pooled_blocks  # numba: imported on first use, not by every importer of mllib.calibration

    means, starts = pooled_blocks(y, w)
    return np.repeat(means, np.diff(np.append(starts, y.shape[0])))


def pool_ties(scores: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct scores in increasing order, with the weighted mean label and the total weight of each."""
    distinct, inverse = np.unique(scores, return_inverse=True)
    total = np.bincount(inverse, weights=w)
    return distinct, np.bincount(inverse, weights=w * y) / total, total


class IsotonicCalibration(BaseEstimator):
    """Monotone step calibration of 1-D scores by pool-adjacent-violators, ties pooled first (secondary).

    Parameters
    ----------
    increasing : bool, default True
        True for scores that grow with P(y = 1) (decision functions, probabilities); False fits a non-increasing map
        (e.g. for a distance-like score).

    Attributes
    ----------
    X_thresholds_ : ndarray
        The first and last distinct score of every block, in increasing score order.
    y_thresholds_ : ndarray
        The block's value at each of them. transform interpolates linearly between the points (X_thresholds_,
        y_thresholds_) and clips outside.
    n_blocks_ : int
        The number of constant pieces.
    """

    _constraints = {"increasing": BOOLEAN}

    def __init__(self, increasing: bool = True):
        self.increasing = increasing

    def fit(self, scores, y, sample_weight=None) -> IsotonicCalibration:
        """Fit the map on calibration scores and binary labels y in {0, 1} (1 = positive)."""
        check_hyperparameters(self)
        s = check_scores(scores)
        y = check_binary(y, s.shape[0])
        w = check_sample_weight(sample_weight, s.shape[0])
        used = w > 0  # zero-weight rows carry no information (as in scikit-learn)
        distinct, mean_label, weight = pool_ties(s[used], y[used], w[used])
        sign = 1.0 if self.increasing else -1.0
        # a non-increasing fit of m is minus the non-decreasing fit of -m
        fit = sign * pool_adjacent_violators(sign * mean_label, weight)
        # keep the ends of every constant run: the points between them lie on flat segments
        keep = np.ones(fit.shape[0], dtype=bool)
        keep[1:-1] = (fit[1:-1] != fit[:-2]) | (fit[1:-1] != fit[2:])
        self.X_thresholds_ = distinct[keep]
        self.y_thresholds_ = fit[keep]
        self.n_blocks_ = int(np.count_nonzero(np.diff(fit)) + 1)
        return self

    def transform(self, scores) -> np.ndarray:
        """Calibrated positive-class probabilities, shape (n,)."""
        check_is_fitted(self)
        return np.interp(check_scores(scores), self.X_thresholds_, self.y_thresholds_)

    def predict_proba(self, scores) -> np.ndarray:
        """Columns [1 - p, p], shape (n, 2)."""
        p = self.transform(scores)
        return np.column_stack([1.0 - p, p])
