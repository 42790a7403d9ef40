"""CV+'s order statistic without forming the n_test x n_train matrix (numba).

The rank-th smallest of {mu_k + s_k r : r a residual of fold k, k = 1..K} for one new row (s_k > 0 the fold's scale
at the row: 1 for plain residuals, sigma_{-k}(x) for normalized ones): a selection in K sorted arrays. Within fold k
the values fl(mu_k + fl(s_k r)) do not decrease along the fold's residuals sorted ascending (rounding is monotone), so
each fold is a sorted array without being formed. Each round takes as pivot the weighted median of
the folds' middle values (weights: the folds' remaining lengths), counts by binary search how many remaining values
lie below and at the pivot, and keeps the side that holds the rank: at least a quarter of the remaining values go
each round, O(K^2 + K log n) per round and O(log n) rounds per row instead of O(n) for np.partition. Every value
compared is the same floating-point sum np.partition would see, so the result is bit-equal to it.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _first_above(mu_m, scale_m, residuals, lo, hi, t, strict):
    """First index in [lo, hi) whose value mu_m + scale_m * residuals[index] is > t (strict) or >= t; hi when none."""
    while lo < hi:
        mid = (lo + hi) // 2
        value = mu_m + scale_m * residuals[mid]
        if value < t or (strict and value == t):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def cv_plus_order_statistic(fold_predictions, fold_scales, residuals, starts, rank):
    """Per row i of fold_predictions (n, K): the rank-th smallest (1-based, 1 <= rank <= len(residuals)) of
    fold_predictions[i, k] + fold_scales[i, k] * r over the residuals r of each fold k (fold_scales > 0, (n, K)).
    residuals: sorted ascending within each fold, fold k at starts[k]:starts[k + 1]."""
    n, K = fold_predictions.shape
    out = np.empty(n)
    lo, hi = np.empty(K, np.int64), np.empty(K, np.int64)
    below, at_most = np.empty(K, np.int64), np.empty(K, np.int64)
    middles, weights = np.empty(K), np.empty(K, np.int64)
    for i in range(n):
        mu, scale = fold_predictions[i], fold_scales[i]
        lo[:] = starts[:-1]
        hi[:] = starts[1:]
        need = rank  # the rank among the values still in [lo, hi)
        while True:
            active, total = 0, 0
            for m in range(K):
                if hi[m] > lo[m]:
                    middles[active] = mu[m] + scale[m] * residuals[(lo[m] + hi[m]) // 2]
                    weights[active] = hi[m] - lo[m]
                    total += weights[active]
                    active += 1
            pivot = middles[0]
            for a in range(active):  # the weighted median: less than half the weight below it, half or more at most it
                weight_below, weight_at_most = 0, 0
                for b in range(active):
                    if middles[b] < middles[a]:
                        weight_below += weights[b]
                    if middles[b] <= middles[a]:
                        weight_at_most += weights[b]
                if 2 * weight_below < total <= 2 * weight_at_most:
                    pivot = middles[a]
                    break
            n_below, n_at_most = 0, 0
            for m in range(K):
                below[m] = _first_above(mu[m], scale[m], residuals, lo[m], hi[m], pivot, False)
                at_most[m] = _first_above(mu[m], scale[m], residuals, below[m], hi[m], pivot, True)
                n_below += below[m] - lo[m]
                n_at_most += at_most[m] - lo[m]
            if need <= n_below:
                hi[:] = below
            elif need > n_at_most:
                need -= n_at_most
                lo[:] = at_most
            else:
                out[i] = pivot
                break
    return out
