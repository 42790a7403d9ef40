"""Compiled depth-first growth of CART trees into flat node arrays (pre-order numbering), with the split search of
_split_search.py at each node and the in-place partition of the node's rows; _traversal.py walks the grown trees.

numba is used because growth visits every node in sequence with per-node work too small for vectorised numpy to
amortise its call overhead (benchmarks/results/trees.md). Each tree is grown inside one `nogil` call, so a forest
can grow trees in threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._split_search import (
    EPSILON,
    FEATURE_THRESHOLD,
    SQUARED_ERROR,
    _add_sample,
    _best_split_binned,
    _best_split_sorted,
    _next,
    node_impurity,
)

# ---------------------------------------------------------------- depth-first growth


@njit(cache=True, nogil=True, error_model="numpy")
def _resized(a, new_len):
    b = np.empty((new_len,) + a.shape[1:], dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True, nogil=True, error_model="numpy")
def _push(stack, top, start, end, depth, parent, is_left):
    if top == stack.shape[0]:
        stack = _resized(stack, 2 * top)
    stack[top, 0] = start
    stack[top, 1] = end
    stack[top, 2] = depth
    stack[top, 3] = parent
    stack[top, 4] = is_left
    return stack


@njit(cache=True, nogil=True, error_model="numpy")
def _in_sample_order(presorted, w, m):
    """Per sorted feature, the m rows with w > 0 in increasing x_f (from the global argsort of its column)."""
    order = np.empty((presorted.shape[0], m), dtype=np.int32)
    for k in range(presorted.shape[0]):
        j = 0
        for r in presorted[k]:
            if w[r] > 0.0:
                order[k, j] = r
                j += 1
    return order


@njit(cache=True, nogil=True, error_model="numpy")
def build_tree(
    X,
    presorted,
    slot,
    Xb,
    cuts,
    n_bins,
    exact_bins,
    code,
    y,
    w,
    n_stats,
    criterion,
    max_depth,
    min_samples_split,
    min_samples_leaf,
    min_impurity_decrease,
    max_features,
    seed,
):
    """Grow one CART tree depth first; nodes are numbered in pre-order (left subtree first), as scikit-learn does.

    Every feature is searched in one of two ways (TrainingData in cart.py decides):
    - binned (slot[f] < 0): Xb[:, f] holds bin codes, n_bins[f] bins with `cuts[f]` (distinct values when
      exact_bins[f], else quantile upper edges); a node builds a histogram, no sorting;
    - sorted (slot[f] = k >= 0): X[:, k] holds the feature's values (X has only the sorted features) and
      presorted[k] is the argsort of that column. Each node keeps its rows sorted by that
      feature (order[k, start:end]) and a split stably partitions the segments, so no node sorts anything.
    The node's rows are samples[start:end]. code: class index per row (classification) / y: target (regression);
    w: sample weights (rows with w = 0 are left out). max_features: candidate features drawn per node; features
    constant at the node do not count.
    Returns feature, threshold, left, right, stats, weighted_n, n_samples, impurity (first n_nodes entries).
    """
    n = w.shape[0]
    d = slot.shape[0]
    regression = criterion == SQUARED_ERROR
    wy = w * y
    wy2 = wy * y
    m = 0
    for i in range(n):
        if w[i] > 0.0:
            m += 1
    samples = np.empty(m, dtype=np.int32)
    j = 0
    w_total = 0.0
    for i in range(n):
        if w[i] > 0.0:
            samples[j] = i
            j += 1
            w_total += w[i]
    order = _in_sample_order(presorted, w, m)

    cap = 64
    feature = np.empty(cap, dtype=np.int64)
    threshold = np.empty(cap, dtype=np.float64)
    left_child = np.empty(cap, dtype=np.int64)
    right_child = np.empty(cap, dtype=np.int64)
    weighted_n = np.empty(cap, dtype=np.float64)
    n_samples = np.empty(cap, dtype=np.int64)
    impurity = np.empty(cap, dtype=np.float64)
    stats = np.empty((cap, n_stats), dtype=np.float64)

    rng = np.array([np.uint64(seed)], dtype=np.uint64)
    features = np.arange(d)
    max_bins = max(1, n_bins.max()) if d > 0 else 1
    hist = np.empty((max_bins, n_stats))
    hist_w = np.empty(max_bins)
    counts = np.empty(max_bins, dtype=np.int64)
    goes_left = np.zeros(n, dtype=np.uint8)
    constant = np.zeros((64, d), dtype=np.uint8)
    buffer = np.empty(m, dtype=np.int32)
    left_stats = np.empty(n_stats)
    best = np.empty(4)
    total = np.empty(n_stats)

    # stack of (start, end, depth, parent, is_left)
    stack = _push(np.empty((64, 5), dtype=np.int64), 0, 0, m, 0, -1, 0)
    top = 1
    n_nodes = 0
    while top > 0:
        top -= 1
        start, end, depth, parent, is_left = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4]
        if n_nodes == cap:
            cap *= 2
            feature = _resized(feature, cap)
            threshold = _resized(threshold, cap)
            left_child = _resized(left_child, cap)
            right_child = _resized(right_child, cap)
            weighted_n = _resized(weighted_n, cap)
            n_samples = _resized(n_samples, cap)
            impurity = _resized(impurity, cap)
            stats = _resized(stats, cap)
        node = n_nodes
        n_nodes += 1
        if parent >= 0:
            if is_left:
                left_child[parent] = node
            else:
                right_child[parent] = node

        rows = samples[start:end]
        total[:] = 0.0
        w_node = 0.0
        for s in rows:
            _add_sample(total, s, code, wy, wy2, w, regression)
            w_node += w[s]
        imp = node_impurity(total, w_node, criterion)
        n_node = end - start
        stats[node] = total
        weighted_n[node] = w_node
        n_samples[node] = n_node
        impurity[node] = imp
        feature[node] = -1
        threshold[node] = -2.0
        left_child[node] = -1
        right_child[node] = -1

        if depth >= max_depth or n_node < min_samples_split or n_node < 2 * min_samples_leaf or imp <= EPSILON:
            continue

        # features constant at a node stay constant below it: flags inherited from the parent (row `depth`),
        # extended here for the children (row depth + 1; siblings share it, and it is rewritten only after both
        # subtrees are done, since growth is depth first)
        if depth + 2 > constant.shape[0]:
            constant = _resized(constant, 2 * constant.shape[0])
        known = constant[depth]
        for_children = constant[depth + 1]
        for_children[:] = known
        best[0] = -np.inf
        best_f = -1
        best_bin = -1
        n_visited = 0
        for i in range(d):
            if n_visited >= max_features:
                break
            if max_features < d:  # Fisher-Yates: the next candidate is drawn among the features not yet tried
                j = i + _next(rng) % (d - i)
                features[i], features[j] = features[j], features[i]
            f = features[i]
            if known[f]:
                continue
            before = best[0]
            if slot[f] < 0:
                ok = _best_split_binned(
                    Xb,
                    cuts,
                    exact_bins[f],
                    n_bins[f],
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
                    left_stats,
                    best,
                )
            else:
                ok = _best_split_sorted(
                    X,
                    order[slot[f], start:end],
                    slot[f],
                    total,
                    w_node,
                    code,
                    wy,
                    wy2,
                    w,
                    criterion,
                    min_samples_leaf,
                    left_stats,
                    best,
                )
            if ok:
                n_visited += 1
                if best[0] > before:
                    best_f = f
                    best_bin = int(best[3])
            else:
                for_children[f] = 1
        if best_f < 0:
            continue

        # the rows going left: x <= threshold
        n_left = int(best[2])
        if slot[best_f] >= 0:
            for s in rows:
                goes_left[s] = 0
            for s in order[slot[best_f], start : start + n_left]:
                goes_left[s] = 1
        else:
            for s in rows:
                goes_left[s] = Xb[s, best_f] <= best_bin
        left_stats[:] = 0.0
        wl = 0.0
        for s in rows:
            if goes_left[s]:
                _add_sample(left_stats, s, code, wy, wy2, w, regression)
                wl += w[s]
        wr = w_node - wl
        imp_l = node_impurity(left_stats, wl, criterion)
        imp_r = node_impurity(total - left_stats, wr, criterion)
        improvement = w_node / w_total * (imp - wl / w_node * imp_l - wr / w_node * imp_r)
        if improvement + EPSILON < min_impurity_decrease:
            continue
        feature[node] = best_f
        threshold[node] = best[1]
        _partition(rows, goes_left, buffer)
        for f in range(d):  # stable partition keeps every sorted feature's segment sorted
            k = slot[f]
            if k < 0 or f == best_f or for_children[f]:
                continue
            seg = order[k, start:end]
            if X[seg[-1], k] <= X[seg[0], k] + FEATURE_THRESHOLD:
                for_children[f] = 1
                continue
            _partition(seg, goes_left, buffer)
        pos = start + n_left
        stack = _push(stack, top, pos, end, depth + 1, node, 0)
        stack = _push(stack, top + 1, start, pos, depth + 1, node, 1)
        top += 2

    return (
        feature[:n_nodes],
        threshold[:n_nodes],
        left_child[:n_nodes],
        right_child[:n_nodes],
        stats[:n_nodes],
        weighted_n[:n_nodes],
        n_samples[:n_nodes],
        impurity[:n_nodes],
    )


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _partition(seg, goes_left, buffer):
    """Stable partition of seg: rows with goes_left first."""
    a = 0
    b = 0
    for s in seg:
        if goes_left[s]:
            seg[a] = s
            a += 1
        else:
            buffer[b] = s
            b += 1
    seg[a:] = buffer[:b]
