"""Compiled traversal of flat CART node arrays, shared by trees, forests, AdaBoost and TreeSHAP: the leaf a row lands
in, the leaves of many rows, the mean leaf value over the trees of an ensemble, and the values of internal nodes.
Left branch: feature value <= threshold (the growth in _kernels.py splits the same way)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, error_model="numpy")
def fill_internal_values(value, left, right, cover):
    """value of an internal node = cover-weighted mean of its children's values (so of its leaves).
    Pre-order numbering puts children after parents: one reverse pass suffices."""
    for node in range(value.shape[0] - 1, -1, -1):
        l = left[node]
        if l >= 0:
            r = right[node]
            value[node] = (cover[l] * value[l] + cover[r] * value[r]) / cover[node]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def find_leaf(X, i, feature, threshold, left, right, root):
    """Leaf reached by row i of X in the tree whose nodes start at `root` (child indices local to the tree; a row
    goes left when X[i, feature] <= threshold). Also walks bin codes against split bins (gradient boosting).
    Inlined into mllib/gradient_boosting/_kernels.py, whose numba cache does not notice edits here: after changing
    this function, delete ~/.cache/mllib/numba/mllib/gradient_boosting (the machine's cache, mllib/_numba_cache.py,
    shared by every checkout)."""
    node = root
    while left[node] >= 0:
        if X[i, feature[node]] <= threshold[node]:
            node = root + left[node]
        else:
            node = root + right[node]
    return node


@njit(cache=True, nogil=True, error_model="numpy")
def apply(X, feature, threshold, left, right):
    """Leaf index reached by each row of X."""
    out = np.empty(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        out[i] = find_leaf(X, i, feature, threshold, left, right, 0)
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def mean_leaf_values(X, feature, threshold, left, right, value, offsets):
    """(1/B) sum_t value[leaf_t(x)] over the B trees stored back to back (tree t's nodes start at offsets[t])."""
    n_trees = offsets.shape[0] - 1
    out = np.zeros((X.shape[0], value.shape[1]))
    for t in range(n_trees):
        for i in range(X.shape[0]):
            node = find_leaf(X, i, feature, threshold, left, right, offsets[t])
            for k in range(value.shape[1]):
                out[i, k] += value[node, k]
    out /= n_trees
    return out
