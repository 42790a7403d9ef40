"""Compiled split search of CART at one node: node impurity from its statistics, the impurity-decrease proxy, and
the best threshold of one feature (exact on sorted values, or on histograms of binned values). _kernels.py grows
trees with it; _traversal.py walks the grown trees.

numba is used because the split search visits every (node, candidate feature, threshold) in sequence, with
per-node work too small for vectorised numpy to amortise its call overhead (benchmarks/results/trees.md).
Each tree is grown inside one `nogil` call, so a forest can grow trees in threads.

Node statistics `stats` per node: weighted class counts (classification, K entries) or
[sum w y, sum w y^2] (regression). Criterion codes: 0 gini, 1 entropy, 2 squared error, 3 misclassification,
4 Real AdaBoost's Z (criteria.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

GINI, ENTROPY, SQUARED_ERROR, MISCLASSIFICATION, REALBOOST_Z = 0, 1, 2, 3, 4
FEATURE_THRESHOLD = 1e-7  # values closer than this count as equal (as in scikit-learn): no threshold between them
EPSILON = np.finfo(np.float64).eps
_LN2 = np.log(2.0)


# ---------------------------------------------------------------- impurity from node statistics


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def node_impurity(stats, w, criterion):
    """i(t) of a node with statistics `stats` and total weight w."""
    if criterion == SQUARED_ERROR:
        mean = stats[0] / w
        return stats[1] / w - mean * mean
    if criterion == GINI:
        s = 0.0
        for k in range(stats.shape[0]):
            s += stats[k] * stats[k]
        return 1.0 - s / (w * w)
    if criterion == ENTROPY:
        h = 0.0
        for k in range(stats.shape[0]):
            if stats[k] > 0.0:
                p = stats[k] / w
                h -= p * np.log(p) / _LN2
        return h
    if criterion == REALBOOST_Z:  # K (prod_k p_k)^(1/K), as a product of K-th roots: no underflow
        inv = 1.0 / stats.shape[0]
        g = 1.0
        for k in range(stats.shape[0]):
            g *= (stats[k] / w) ** inv
        return stats.shape[0] * g
    m = 0.0
    for k in range(stats.shape[0]):
        m = max(m, stats[k])
    return 1.0 - m / w


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _proxy(left, wl, total, w, criterion):
    """A quantity maximised by the same split as the impurity decrease: -(wl i(left) + wr i(right)),
    simplified where a closed form exists (gini, squared error). Callers pass criterion as a compile-time
    constant (see _best_split_sorted), so only one branch is compiled into the scan loops."""
    wr = w - wl
    if criterion == SQUARED_ERROR:
        sr = total[0] - left[0]
        return left[0] * left[0] / wl + sr * sr / wr
    sl = 0.0
    sr = 0.0
    if criterion == GINI:
        for k in range(left.shape[0]):
            r = total[k] - left[k]
            sl += left[k] * left[k]
            sr += r * r
        return sl / wl + sr / wr
    if criterion == ENTROPY:  # -(wl H_l + wr H_r) = sum_k n_k log(n_k / w_side), in bits
        for k in range(left.shape[0]):
            r = total[k] - left[k]
            if left[k] > 0.0:
                sl += left[k] * np.log(left[k] / wl)
            if r > 0.0:
                sr += r * np.log(r / wr)
        return (sl + sr) / _LN2
    if criterion == REALBOOST_Z:  # -(wl i_l + wr i_r) = -K ((prod_k l_k)^(1/K) + (prod_k r_k)^(1/K))
        inv = 1.0 / left.shape[0]
        sl = 1.0
        sr = 1.0
        for k in range(left.shape[0]):
            sl *= left[k] ** inv
            sr *= max(total[k] - left[k], 0.0) ** inv  # max: a rounding error below 0 is an empty class
        return -left.shape[0] * (sl + sr)
    for k in range(left.shape[0]):  # misclassification: -(errors left + errors right) = max_k l_k + max_k r_k - w
        sl = max(sl, left[k])
        sr = max(sr, total[k] - left[k])
    return sl + sr - w


# ---------------------------------------------------------------- a small deterministic random number generator


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _next(state):
    """splitmix64 step; state is a 1-element uint64 array. Returns a uniform integer in [0, 2^63)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z >> np.uint64(1))


# ---------------------------------------------------------------- split search at one node


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _add_sample(stats, i, code, wy, wy2, w, regression):
    if regression:
        stats[0] += wy[i]
        stats[1] += wy2[i]
    else:
        stats[code[i]] += w[i]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _scan_sorted(X, rows, f, total, w_node, code, wy, wy2, w, criterion, regression, min_samples_leaf, left, best):
    """Scan column f of X (a sorted feature) at a node whose rows are given sorted by it; update best = [proxy,
    threshold, n_left] if a
    split beats it. Returns False if the feature is constant at the node."""
    n = rows.shape[0]
    x_next = X[rows[0], f]
    if X[rows[n - 1], f] <= x_next + FEATURE_THRESHOLD:
        return False
    left[:] = 0.0
    wl = 0.0
    for p in range(n - 1):
        s = rows[p]
        x = x_next
        x_next = X[rows[p + 1], f]
        _add_sample(left, s, code, wy, wy2, w, regression)
        wl += w[s]
        if x_next <= x + FEATURE_THRESHOLD or p + 1 < min_samples_leaf or n - p - 1 < min_samples_leaf:
            continue
        proxy = _proxy(left, wl, total, w_node, criterion)
        if proxy > best[0]:
            best[0] = proxy
            t = x / 2.0 + x_next / 2.0
            if t == x_next or not np.isfinite(t):
                t = x
            best[1] = t
            best[2] = p + 1
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def _best_split_sorted(X, rows, f, total, w_node, code, wy, wy2, w, criterion, min_samples_leaf, left, best):
    """_scan_sorted with the criterion (and so the statistics update) fixed at compile time in each branch:
    a criterion known only at run time makes the scan loop several times slower."""
    if criterion == GINI:
        return _scan_sorted(X, rows, f, total, w_node, code, wy, wy2, w, GINI, False, min_samples_leaf, left, best)
    if criterion == ENTROPY:
        return _scan_sorted(X, rows, f, total, w_node, code, wy, wy2, w, ENTROPY, False, min_samples_leaf, left, best)
    if criterion == MISCLASSIFICATION:
        return _scan_sorted(
            X, rows, f, total, w_node, code, wy, wy2, w, MISCLASSIFICATION, False, min_samples_leaf, left, best
        )
    if criterion == REALBOOST_Z:
        return _scan_sorted(
            X, rows, f, total, w_node, code, wy, wy2, w, REALBOOST_Z, False, min_samples_leaf, left, best
        )
    return _scan_sorted(X, rows, f, total, w_node, code, wy, wy2, w, SQUARED_ERROR, True, min_samples_leaf, left, best)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _scan_binned(
    Xb,
    cuts,
    exact,
    n_bins,
    rows,
    f,
    hist,
    hist_w,
    counts,
    total,
    w_node,
    code,
    wy,
    wy2,
    w,
    criterion,
    regression,
    min_samples_leaf,
    left,
    best,
):
    """Histogram of the node's statistics over the bins of feature f, then a scan over bin boundaries; best[3]
    keeps the bin index (rows with bin <= best[3] go left). Exact bins (one per distinct value, cuts = the values):
    the threshold is the midpoint of the two values present at the node on either side, as the sorted scan gives;
    quantile bins (cuts = upper edges): the bin's upper edge."""
    # only the bins between the node's smallest and largest code are touched: small nodes stay O(rows)
    first, last = n_bins, -1
    for s in rows:
        b = Xb[s, f]
        first = min(first, b)
        last = max(last, b)
    if last <= first:
        return False
    hist[first : last + 1] = 0.0
    hist_w[first : last + 1] = 0.0
    counts[first : last + 1] = 0
    for s in rows:
        b = Xb[s, f]
        counts[b] += 1
        hist_w[b] += w[s]
        _add_sample(hist[b], s, code, wy, wy2, w, regression)
    left[:] = 0.0
    wl = 0.0
    nl = 0
    n = rows.shape[0]
    b = first
    while b < last:
        left += hist[b]
        wl += hist_w[b]
        nl += counts[b]
        nxt = b + 1
        while counts[nxt] == 0:
            nxt += 1
        if nl >= min_samples_leaf and n - nl >= min_samples_leaf:
            proxy = _proxy(left, wl, total, w_node, criterion)
            if proxy > best[0]:
                best[0] = proxy
                if exact:
                    t = cuts[f, b] / 2.0 + cuts[f, nxt] / 2.0
                    if t == cuts[f, nxt]:
                        t = cuts[f, b]
                else:
                    t = cuts[f, b]
                best[1] = t
                best[2] = nl
                best[3] = b
        b = nxt
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def _best_split_binned(
    Xb,
    cuts,
    exact,
    n_bins,
    rows,
    f,
    hist,
    hist_w,
    counts,
    total,
    w_node,
    code,
    wy,
    wy2,
    w,
    criterion,
    min_samples_leaf,
    left,
    best,
):
    """_scan_binned with the criterion fixed at compile time (as _best_split_sorted)."""
    if criterion == GINI:
        return _scan_binned(
            Xb,
            cuts,
            exact,
            n_bins,
            rows,
            f,
            hist,
            hist_w,
            counts,
            total,
            w_node,
            code,
            wy,
            wy2,
            w,
            GINI,
            False,
            min_samples_leaf,
            left,
            best,
        )
    if criterion == ENTROPY:
        return _scan_binned(
            Xb,
            cuts,
            exact,
            n_bins,
            rows,
            f,
            hist,
            hist_w,
            counts,
            total,
            w_node,
            code,
            wy,
            wy2,
            w,
            ENTROPY,
            False,
            min_samples_leaf,
            left,
            best,
        )
    if criterion == MISCLASSIFICATION:
        return _scan_binned(
            Xb,
            cuts,
            exact,
            n_bins,
            rows,
            f,
            hist,
            hist_w,
            counts,
            total,
            w_node,
            code,
            wy,
            wy2,
            w,
            MISCLASSIFICATION,
            False,
            min_samples_leaf,
            left,
            best,
        )
    if criterion == REALBOOST_Z:
        return _scan_binned(
            Xb,
            cuts,
            exact,
            n_bins,
            rows,
            f,
            hist,
            hist_w,
            counts,
            total,
            w_node,
            code,
            wy,
            wy2,
            w,
            REALBOOST_Z,
            False,
            min_samples_leaf,
            left,
            best,
        )
    return _scan_binned(
        Xb,
        cuts,
        exact,
        n_bins,
        rows,
        f,
        hist,
        hist_w,
        counts,
        total,
        w_node,
        code,
        wy,
        wy2,
        w,
        SQUARED_ERROR,
        True,
        min_samples_leaf,
        left,
        best,
    )
