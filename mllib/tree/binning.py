"""Binned features: a node builds a histogram of its statistics over a feature's bins and scans the bin
boundaries, with no sorting (O(n) per node and feature).

The rule (bin_rule, shared with gradient boosting): a feature with at most max_bins distinct values gets one bin per
value (the search is then exact: the threshold is the midpoint of the two values present at the node on either
side); otherwise its max_bins-quantiles are the bin edges (each midway between the two order statistics around
the quantile, numpy's "averaged_inverted_cdf", as scikit-learn's histogram boosting). splitter="best" bins only
the few-valued features and searches the others on sorted values; splitter="hist" also bins the others, with a
bin's upper edge as threshold. Bin of x: #{cuts < x} (exact bins: the value's index).
"""

from __future__ import annotations

import numpy as np


def bin_rule(column: np.ndarray, max_bins: int) -> tuple[np.ndarray, bool]:
    """(values, exact): the column's distinct values (exact = True) if at most max_bins, else its max_bins - 1
    interior quantiles (possibly repeated, on heavily tied data)."""
    distinct = np.unique(column)
    if distinct.size <= max_bins:
        return distinct, True
    quantiles = np.linspace(0.0, 100.0, max_bins + 1)[1:-1]
    return np.percentile(column, quantiles, method="averaged_inverted_cdf"), False


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
        values, exact[j] = bin_rule(X[:, j], max_bins)
        if exact[j]:
            cuts[j, : values.size] = values
            Xb[:, j] = np.searchsorted(values, X[:, j])
            n_bins[j], binned[j] = values.size, True
        elif quantile_bins:
            edges = np.unique(values)
            cuts[j, : edges.size] = edges
            Xb[:, j] = np.searchsorted(edges, X[:, j], side="left")
            n_bins[j], binned[j] = edges.size + 1, True
    return Xb, cuts, n_bins, exact, binned
