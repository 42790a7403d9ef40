"""TreeSHAP: exact Shapley values of tree models in polynomial time (Lundberg, Erion & Lee 2018, Algorithm 2).

The value function is the tree's own conditional expectation v(S) = E[f(x) | x_S]: at a split on a feature in
S follow x, otherwise average both children weighted by their training cover. Algorithm 2 tracks, along each
root-to-leaf path, the proportion of coalitions of each size that reach the leaf (EXTEND / UNWIND), so a tree
with L leaves and depth D costs O(L D^2) instead of 2^d evaluations; the result equals the exact Shapley
values of that value function (tests check it against enumeration). Ensembles add their trees' values.
Works for every model with `tree_ensemble()` (mllib trees, forests, gradient boosting); notes: seed 004,
D4:2042-2056 (Shapley values), catalogue 4.2.

Sections cited: Ghent ML notes (seed 004): 11.2 Model Explainability (2042)"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _extend(pd, pz, po, pw, length, zero, one, feature):
    pd[length] = feature
    pz[length] = zero
    po[length] = one
    pw[length] = 1.0 if length == 0 else 0.0
    for i in range(length - 1, -1, -1):
        pw[i + 1] += one * pw[i] * (i + 1) / (length + 1)
        pw[i] = zero * pw[i] * (length - i) / (length + 1)


@njit(cache=True)
def _unwind(pd, pz, po, pw, length, i):
    """Remove element i from a path of `length` elements (undo its EXTEND)."""
    one, zero = po[i], pz[i]
    n = pw[length - 1]
    for j in range(length - 2, -1, -1):
        if one != 0.0:
            t = pw[j]
            pw[j] = n * length / ((j + 1) * one)
            n = t - pw[j] * zero * (length - 1 - j) / length
        else:
            pw[j] = pw[j] * length / (zero * (length - 1 - j))
    for j in range(i, length - 1):
        pd[j] = pd[j + 1]
        pz[j] = pz[j + 1]
        po[j] = po[j + 1]


@njit(cache=True)
def _unwound_sum(pz, po, pw, length, i):
    """Sum of the path weights with element i unwound, without changing the path."""
    one, zero = po[i], pz[i]
    total = 0.0
    if one != 0.0:
        n = pw[length - 1]
        for j in range(length - 2, -1, -1):
            t = n * length / ((j + 1) * one)
            total += t
            n = pw[j] - t * zero * (length - 1 - j) / length
    else:
        for j in range(length - 2, -1, -1):
            total += pw[j] * length / (zero * (length - 1 - j))
    return total


@njit(cache=True)
def _tree_shap_row(x, feat, thr, left, right, value, cover, phi, paths, stack):
    """Algorithm 2's recursion as a depth-first walk with an explicit stack; level k of the path buffers
    holds the path at a node of depth k - 1 (level 0: the empty path), shared by both of its children. The buffers
    (_buffers) are the caller's, reused row after row: every entry is written before it is read."""
    pd, pz, po, pw, lengths = paths
    stack_node, stack_level, stack_zero, stack_one, stack_feature = stack
    stack_node[0], stack_level[0], stack_zero[0], stack_one[0], stack_feature[0] = 0, 1, 1.0, 1.0, -1
    top = 1
    while top > 0:
        top -= 1
        node, level = stack_node[top], stack_level[top]
        length = lengths[level - 1]
        pd[level, :length], pz[level, :length] = pd[level - 1, :length], pz[level - 1, :length]
        po[level, :length], pw[level, :length] = po[level - 1, :length], pw[level - 1, :length]
        _extend(pd[level], pz[level], po[level], pw[level], length, stack_zero[top], stack_one[top], stack_feature[top])
        length += 1
        if left[node] < 0:
            for i in range(1, length):
                w = _unwound_sum(pz[level], po[level], pw[level], length, i) * (po[level, i] - pz[level, i])
                for k in range(value.shape[1]):  # no temporary array per path element: the leaf loop is the hot one
                    phi[pd[level, i], k] += w * value[node, k]
            continue
        f = feat[node]
        hot, cold = (left[node], right[node]) if x[f] <= thr[node] else (right[node], left[node])
        incoming_zero, incoming_one = 1.0, 1.0
        for k in range(1, length):
            if pd[level, k] == f:  # split on higher up: undo that element, carry its fractions
                incoming_zero, incoming_one = pz[level, k], po[level, k]
                _unwind(pd[level], pz[level], po[level], pw[level], length, k)
                length -= 1
                break
        lengths[level] = length
        for child, one in ((cold, 0.0), (hot, incoming_one)):
            stack_node[top], stack_level[top] = child, level + 1
            stack_zero[top], stack_one[top], stack_feature[top] = incoming_zero * cover[child] / cover[node], one, f
            top += 1


@njit(cache=True)
def _buffers(max_depth):
    """The path buffers (features, zero and one fractions, weights per level; each level's length) and the walk's
    stack (node, level, the incoming fractions and the split feature), for a tree of depth max_depth."""
    size = max_depth + 2
    paths = (
        np.zeros((size + 1, size), np.int64),
        np.zeros((size + 1, size)),
        np.zeros((size + 1, size)),
        np.zeros((size + 1, size)),
        np.zeros(size + 1, np.int64),
    )
    stack = (
        np.zeros(2 * size, np.int64),
        np.zeros(2 * size, np.int64),
        np.zeros(2 * size),
        np.zeros(2 * size),
        np.zeros(2 * size, np.int64),
    )
    return paths, stack


@njit(cache=True)
def _tree_shap_rows(X, feat, thr, left, right, value, cover, max_depth):
    out = np.zeros((X.shape[0], X.shape[1], value.shape[1]))
    paths, stack = _buffers(max_depth)
    for r in range(X.shape[0]):
        _tree_shap_row(X[r], feat, thr, left, right, value, cover, out[r], paths, stack)
    return out


def _same_walks(X, feature, threshold, left) -> tuple[np.ndarray, np.ndarray]:
    """The rows' distinct walks through one tree: the recursion reads a row only through `x[f] <= t` at each split,
    so rows that go the same way at every split have the same values. Returns one row per walk and, per row, its
    walk's index (the values of 10,788 test rows of a 403-tree ensemble come from about 1,100 walks per tree)."""
    internal = np.flatnonzero(left >= 0)
    goes_left = np.packbits(X[:, feature[internal]] <= threshold[internal], axis=1)
    _, first, inverse = np.unique(goes_left, axis=0, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def _depth(left, right) -> int:
    depth, frontier, level = 0, [0], 0
    while frontier:
        level_nodes = [c for node in frontier for c in (left[node], right[node]) if c >= 0]
        frontier, level = level_nodes, level + 1
        depth = level if level_nodes else depth
    return depth


def _leaf_of(tree, X):
    node = np.zeros(X.shape[0], dtype=np.int64)
    while True:
        internal = tree["left"][node] >= 0
        if not internal.any():
            return node
        f = tree["feature"][node[internal]]
        go_left = X[np.flatnonzero(internal), f] <= tree["threshold"][node[internal]]
        node[internal] = np.where(go_left, tree["left"][node[internal]], tree["right"][node[internal]])


def tree_shap(model, X) -> dict:
    """Shapley values (path-dependent TreeSHAP) of a model exposing `tree_ensemble()`, for the rows of X.

    Returns {"values": (n, d, n_outputs), "expected_value": (n_outputs,), "prediction": (n, n_outputs) in the
    ensemble's output space ("output": probability, log_odds, logits or raw), "additivity_error"}.
    """
    ensemble = model.tree_ensemble()
    X = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
    n_outputs = np.asarray(ensemble["offset"]).size
    values = np.zeros((X.shape[0], X.shape[1], n_outputs))
    expected = np.asarray(ensemble["offset"], dtype=np.float64).reshape(n_outputs).copy()
    prediction = np.tile(expected, (X.shape[0], 1))
    for tree, scale in zip(ensemble["trees"], ensemble["scale"]):
        left, right = np.asarray(tree["left"], np.int64), np.asarray(tree["right"], np.int64)
        value = np.asarray(tree["value"], np.float64).reshape(left.size, n_outputs)
        cover = np.asarray(tree["cover"], np.float64)
        leaves = left < 0
        expected += scale * (cover[leaves] @ value[leaves]) / cover[0]
        prediction += scale * value[_leaf_of(tree, X)]
        feature, threshold = np.asarray(tree["feature"], np.int64), np.asarray(tree["threshold"], np.float64)
        if leaves.all():  # a single leaf: no split, every value 0
            continue
        first, inverse = _same_walks(X, feature, threshold, left)
        values += (
            scale
            * _tree_shap_rows(
                X[first], feature, threshold, left, right, np.ascontiguousarray(value), cover, _depth(left, right)
            )[inverse]
        )
    error = np.abs(values.sum(axis=1) + expected - prediction)
    return {
        "values": values,
        "expected_value": expected,
        "prediction": prediction,
        "additivity_error": error,
        "output": ensemble["output"],
    }
