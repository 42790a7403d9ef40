"""Binned features: a node builds a histogram of its statistics over a feature's bins and scans the bin
boundaries, with no sorting (O(n) per node and feature).

A feature with at most max_bins distinct values gets one bin per value (the search is then exact: the threshold is
the midpoint of the two values present at the node on either side). splitter="best" bins only these features and
searches the others on sorted values; splitter="hist" also bins the others, at the quantiles (as scikit-learn's
histogram boosting), with a bin's upper edge as threshold. Bin of x: #{cuts < x} (exact bins: the value's index).
"""
from __future__ import annotations

import numpy as np


def check_max_bins(max_bins) -> int:
    if isinstance(max_bins, bool) or not isinstance(max_bins, (int, np.integer)) or not 2 <= max_bins <= 256:
        raise ValueError(f"max_bins must be an integer in [2, 256] (bins are stored as uint8), got {max_bins!r}")
    return int(max_bins)


def bin_features(X: np.ndarray, max_bins: int, quantile_bins: bool):
    """Returns (Xb, cuts, n_bins, exact, binned): Xb (n, d) uint8 in Fortran order (a node reads one column at a
    time), cuts (d, max_bins) values or upper edges (+inf padded), n_bins (d,), exact (d,) whether the bins are one
    per distinct value, binned (d,) whether the feature is binned at all (False: search it on sorted values)."""
    n, d = X.shape
    Xb = np.zeros((n, d), dtype=np.uint8, order="F")
    cuts = np.full((d, max_bins), np.inf)
    n_bins = np.zeros(d, dtype=np.int64)
    exact = np.zeros(d, dtype=np.bool_)
    binned = np.zeros(d, dtype=np.bool_)
    for j in range(d):
        distinct = np.unique(X[:, j])
        if distinct.size <= max_bins:
            cuts[j, :distinct.size] = distinct
            Xb[:, j] = np.searchsorted(distinct, X[:, j])
            n_bins[j], exact[j], binned[j] = distinct.size, True, True
        elif quantile_bins:
            q = np.percentile(X[:, j], np.linspace(0, 100, max_bins + 1)[1:-1], method="midpoint")
            edges = np.unique(q)
            cuts[j, :edges.size] = edges
            Xb[:, j] = np.searchsorted(edges, X[:, j], side="left")
            n_bins[j], binned[j] = edges.size + 1, True
    return Xb, cuts, n_bins, exact, binned
