"""Variance threshold: drop the columns whose variance on the fitting rows is at most `threshold` (constant columns
by default). Unsupervised, so it cannot leak the target; fitted per fold like every step (seed 004, D4:979).

Sections cited: Ghent ML notes (seed 004): 5.4 DP: Dimensionality Reduction (979)"""

from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, check_array
from ..base.constraints import NON_NEGATIVE, check_hyperparameters
from ._support import SelectorMixin, check_kept


class VarianceThreshold(SelectorMixin, BaseEstimator):
    """Keep the columns with variance > threshold (missing values ignored).

    Parameters
    ----------
    threshold : float, default 0.0
        Columns whose population variance (ddof=0) on the fitting rows is at most this are dropped; 0 drops only
        constant columns.

    Attributes
    ----------
    variances_ : ndarray of shape (n_features,)
    support_ : ndarray of bool, the kept columns
    """

    _constraints = {"threshold": NON_NEGATIVE}

    def __init__(self, threshold: float = 0.0):
        self.threshold = threshold

    def fit(self, X, y=None):
        X = check_array(X, allow_nan=True)
        check_hyperparameters(self)
        observed = ~np.isnan(X)
        counts = observed.sum(axis=0)
        filled = np.where(observed, X, 0.0)
        means = np.divide(filled.sum(axis=0), counts, out=np.zeros(X.shape[1]), where=counts > 0)
        squares = np.where(observed, (X - means) ** 2, 0.0).sum(axis=0)
        self.variances_ = np.divide(squares, counts, out=np.zeros(X.shape[1]), where=counts > 0)
        self.n_features_in_ = X.shape[1]
        self.support_ = check_kept(
            self.variances_ > self.threshold,
            "VarianceThreshold",
            f"the largest variance is {self.variances_.max():.6g}; lower threshold ({self.threshold!r})",
        )
        return self
