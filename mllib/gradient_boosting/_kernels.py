"""Compiled hot loops of histogram gradient boosting (numba: the histograms and split scans are loops over
rows and bins that numpy cannot express without temporaries; benchmarks/results/gradient_boosting.md).

A histogram is a float64 array (total_bins, 3) holding, per (feature, bin), the sum of gradients, the sum of
hessians and the row count; feature f's bins are rows bin_start[f] .. bin_start[f] + n_bins[f] - 1.
"""

from __future__ import annotations

from numba import njit

from ..tree import find_leaf


@njit(cache=True)
def build_histogram(binned, rows, g, h, bin_start, hist):
    """Histogram of the rows listed in `rows`. Row-wise (LightGBM's layout): binned is row-major uint8, so one
    row's codes are one cache line, and consecutive updates hit different features' bins (no chain of
    read-modify-writes on the same bin, as a column-wise pass over a binary feature would make)."""
    hist[:] = 0.0
    n_features = binned.shape[1]
    for i in range(rows.shape[0]):
        r = rows[i]
        g_r = g[r]
        h_r = h[r]
        for f in range(n_features):
            b = bin_start[f] + binned[r, f]
            hist[b, 0] += g_r
            hist[b, 1] += h_r
            hist[b, 2] += 1.0


@njit(cache=True)
def find_best_split(hist, bin_start, n_bins, sum_g, sum_h, n_rows, l2, min_samples_leaf, min_hessian):
    """Best split "bin <= b goes left" over all features by the gain of the second-order loss approximation,
    G_L^2/(H_L+l2) + G_R^2/(H_R+l2) - G^2/(H+l2) (twice the loss reduction). Only strictly positive gains count;
    ties go to the lowest feature, then the lowest bin. Returns (gain, feature, bin, G_L, H_L, n_L); feature -1
    when no admissible split exists."""
    parent = sum_g * sum_g / (sum_h + l2)
    best = (0.0, -1, -1, 0.0, 0.0, 0.0)
    best_gain = 0.0
    for f in range(n_bins.shape[0]):
        g_left = 0.0
        h_left = 0.0
        n_left = 0.0
        for b in range(n_bins[f] - 1):
            k = bin_start[f] + b
            g_left += hist[k, 0]
            h_left += hist[k, 1]
            n_left += hist[k, 2]
            if n_left < min_samples_leaf:
                continue
            if n_rows - n_left < min_samples_leaf:
                break
            if h_left < min_hessian:
                continue
            h_right = sum_h - h_left
            if h_right < min_hessian:
                break
            g_right = sum_g - g_left
            gain = g_left * g_left / (h_left + l2) + g_right * g_right / (h_right + l2) - parent
            if gain > best_gain:
                best_gain = gain
                best = (gain, f, b, g_left, h_left, n_left)
    return best


@njit(cache=True)
def partition(rows, start, stop, column, split_bin, scratch):
    """Stable in-place partition of rows[start:stop]: codes <= split_bin first. Returns the boundary."""
    n_left = start
    n_right = 0
    for i in range(start, stop):
        r = rows[i]
        if column[r] <= split_bin:
            rows[n_left] = r
            n_left += 1
        else:
            scratch[n_right] = r
            n_right += 1
    rows[n_left:stop] = scratch[:n_right]
    return n_left


@njit(cache=True)
def add_leaf_values(rows, leaf_start, leaf_stop, leaf_value, raw):
    """raw[r] += value of the leaf that row r reached while the tree was grown."""
    for j in range(leaf_start.shape[0]):
        v = leaf_value[j]
        for i in range(leaf_start[j], leaf_stop[j]):
            raw[rows[i]] += v


@njit(cache=True)
def predict_trees(X, feature, threshold, left, right, value, tree_offsets, first, last, out):
    """out[i, t % n_outputs] += tree t's leaf value for row i, trees first..last-1 (iteration-major order).
    Row goes left when x[feature] <= threshold."""
    n_outputs = out.shape[1]
    for i in range(X.shape[0]):
        for t in range(first, last):
            out[i, t % n_outputs] += value[find_leaf(X, i, feature, threshold, left, right, tree_offsets[t])]


@njit(cache=True)
def predict_binned(binned, feature, split_bin, left, right, value, out):
    """out[i] += the tree's leaf value for binned row i (at fit, for the rows outside a subsample)."""
    for i in range(binned.shape[0]):
        out[i] += value[find_leaf(binned, i, feature, split_bin, left, right, 0)]
