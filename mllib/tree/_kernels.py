"""Compiled hot loops of CART: split search (exact on sorted values, or on histograms of binned values), depth-first
growth into flat node arrays, and tree traversal.

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


# ---------------------------------------------------------------- internal-node values and traversal


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
    this function, delete mllib/gradient_boosting/__pycache__ (a fresh clone has no cache)."""
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
