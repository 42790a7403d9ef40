"""kNN imputation: a missing entry becomes the (weighted) mean of that column over the k nearest training rows
that observe it, the distance using only the coordinates both rows observe.

Seed 004, D4:823 (KNNImputer: "completing missing values using k-Nearest Neighbors") and the leakage rule D4:567:
the donors are the rows given to fit, never the rows being transformed. The nan-Euclidean distance is scaled to the
full dimension, d(x, y) = sqrt(p / |O| * sum_{j in O} (x_j - y_j)^2) with O the coordinates observed in both and p
the number of columns (as scikit-learn's nan_euclidean_distances); it is undefined when O is empty.

Sections cited: Ghent ML notes (seed 004): 3.5 Analysis of Model Performance (567); 5.1 DP: Cleaning (823)"""

from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, TransformerMixin, check_array, check_fitted_X
from ..base.constraints import BOOLEAN, Options, check_hyperparameters, positive_int
from .imputers import MissingIndicatorMixin

WEIGHTS = ("uniform", "distance")
_CHUNK_ELEMENTS = 1 << 22  # receivers x training rows per distance block (32 MB of float64)


def nan_euclidean_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Pairwise nan-Euclidean distances between the rows of A and B (NaN = missing); NaN where no shared coordinate.
    Expanded as sums of products over the shared coordinates, so it costs three matrix products."""
    seen_a, seen_b = ~np.isnan(A), ~np.isnan(B)
    A0, B0 = np.where(seen_a, A, 0.0), np.where(seen_b, B, 0.0)
    sq = (A0 * A0) @ seen_b.T - 2.0 * (A0 @ B0.T) + seen_a @ (B0 * B0).T
    np.maximum(sq, 0.0, out=sq)
    shared = seen_a.astype(np.float64) @ seen_b.T.astype(np.float64)
    out = np.full(sq.shape, np.nan)
    np.divide(A.shape[1] * sq, shared, out=out, where=shared > 0)
    return np.sqrt(out, out=out)


class KNNImputer(MissingIndicatorMixin, TransformerMixin, BaseEstimator):
    """Fill a missing entry with the mean of that column over the nearest training rows that observe it (distances
    over the coordinates both rows observe). A row with no coordinate in common with any donor gets the column's
    training mean. Ties in distance go to the earlier training row.

    Parameters
    ----------
    n_neighbors : int, default 5
        Donors per missing entry (fewer if fewer training rows observe the column).
    weights : {"uniform", "distance"}, default "uniform"
        Plain mean, or 1/d weights (donors at distance 0, if any, share all the weight).
    add_indicator : bool, default False
        Append one 0/1 column `<name>_missing` for each column that had missing values at fit time.

    Attributes
    ----------
    fit_X_ : ndarray
        The training rows, NaN where missing: the donors.
    mean_ : ndarray
        The observed column means.
    """

    _constraints = {"n_neighbors": positive_int(), "weights": Options(WEIGHTS), "add_indicator": BOOLEAN}

    def __init__(self, n_neighbors: int = 5, weights: str = "uniform", add_indicator: bool = False):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.add_indicator = add_indicator

    def fit(self, X, y=None):
        check_hyperparameters(self)
        X = check_array(X, allow_nan=True)
        missing = np.isnan(X)
        empty = np.flatnonzero(missing.all(axis=0))
        if empty.size:
            raise ValueError(f"column {empty[0]} has no observed values in the rows given to fit; drop it first")
        self.n_features_in_ = X.shape[1]
        self.fit_X_ = X
        counts = (~missing).sum(axis=0)
        self.mean_ = np.where(missing, 0.0, X).sum(axis=0) / counts
        self._fit_indicator(missing)
        return self

    def _donor_weights(self, dist: np.ndarray, k: int) -> np.ndarray:
        """Weights of every donor (columns of dist), zero outside each row's k nearest. Selecting by the k-th
        smallest distance (a partition, not a sort) keeps this linear in the donors; among donors tied at the k-th
        distance the earlier training rows are taken. NaN distances (nothing shared) never count."""
        kth = np.partition(dist, k - 1, axis=1)[:, k - 1 : k]  # NaN sorts last
        closer = dist < kth
        tied = dist == kth
        room = k - closer.sum(axis=1, keepdims=True)
        nearest = closer | (tied & (np.cumsum(tied, axis=1) <= room))
        nearest |= np.isnan(kth) & ~np.isnan(dist)  # fewer than k donors share a coordinate: all of those
        if self.weights == "uniform":
            return nearest.astype(np.float64)
        zero = nearest & (dist == 0.0)
        w = np.divide(1.0, dist, out=np.zeros_like(dist), where=nearest & ~zero)
        exact = zero.any(axis=1)
        w[exact] = zero[exact]
        return w

    def transform(self, X):
        X = check_fitted_X(self, X, allow_nan=True)
        missing = np.isnan(X)
        filled = X.copy()
        fit_missing = np.isnan(self.fit_X_)
        # distances are translation invariant; centring first keeps the expanded squares from cancelling
        fit_c = self.fit_X_ - self.mean_
        rows = np.flatnonzero(missing.any(axis=1))
        chunk = max(1, _CHUNK_ELEMENTS // self.fit_X_.shape[0])
        for start in range(0, rows.size, chunk):
            block = rows[start : start + chunk]
            dist = nan_euclidean_distances(X[block] - self.mean_, fit_c)
            for j in np.flatnonzero(missing[block].any(axis=0)):
                receivers = np.flatnonzero(missing[block, j])
                donors = np.flatnonzero(~fit_missing[:, j])
                d = dist[np.ix_(receivers, donors)]
                w = self._donor_weights(d, min(self.n_neighbors, donors.size))
                total = w.sum(axis=1)
                isolated = total == 0  # no shared coordinate with any donor
                mean = np.divide(
                    (w * self.fit_X_[donors, j]).sum(axis=1), total, out=np.zeros(total.shape), where=~isolated
                )
                filled[block[receivers], j] = np.where(isolated, self.mean_[j], mean)
        return self._append_indicator(filled, missing)
