"""kd-tree for exact k-nearest-neighbour and fixed-radius search (seed 002, lines 1326-1365, slides 4:20-4:23;
catalogue 002 P6).

Build (numpy): each node splits its points at the median of one coordinate (the median gives a balanced tree; the
notes cycle the axes, here the axis of widest spread, which adapts to the data), recursing until a leaf holds at
most leaf_size points. Query (numba: a depth-first walk with a bounded best-list, one query row at a time):
descend to the leaf on the query's side, then unwind and search the other side of a split only when the
hypersphere of the current k-th best distance crosses the splitting plane, |x*_a - t| < d_k.
Neighbours are ordered by (distance, training index), so results equal brute force exactly except for rounding.
Radius query (the Parzen window of width h): the same walk with the fixed radius h in place of d_k, visiting a node
only when its cell comes within h of the query; the distance to a cell is tracked per dimension as the walk crosses
splitting planes. The rows found are summed under the window at once, so no neighbour list is ever stored.

Sections cited: Machine Learning lecture notes (seed 002): kd-trees (1326)"""

from __future__ import annotations

import numpy as np
from numba import njit

# node table columns
START, END, LEFT, RIGHT, DIM = range(5)


def build_kdtree(X: np.ndarray, leaf_size: int):
    """Returns (index, nodes, split): index permutes the rows so every node owns index[start:end]; nodes (m, 5) int
    holds start, end, left child, right child (-1 for leaves), split dimension; split (m,) the splitting value."""
    n = X.shape[0]
    index = np.arange(n)
    nodes, split = [[0, n, -1, -1, -1]], [0.0]
    stack = [0]
    while stack:
        node = stack.pop()
        start, end = nodes[node][START], nodes[node][END]
        if end - start <= leaf_size:
            continue
        rows = index[start:end]
        pts = X[rows]
        dim = int(np.argmax(pts.max(axis=0) - pts.min(axis=0)))
        half = (end - start) // 2
        order = np.argpartition(pts[:, dim], half)
        index[start:end] = rows[order]
        nodes[node][DIM] = dim
        split[node] = float(X[index[start + half], dim])  # left: values <= split, right: values >= split
        for lo, hi, side in ((start, start + half, LEFT), (start + half, end, RIGHT)):
            nodes[node][side] = len(nodes)
            stack.append(len(nodes))
            nodes.append([lo, hi, -1, -1, -1])
            split.append(0.0)
    return index, np.array(nodes, dtype=np.int64), np.array(split)


@njit(cache=True)
def _squared_distance(a, b):
    s = 0.0
    for f in range(a.size):
        diff = a[f] - b[f]
        s += diff * diff
    return s


@njit(cache=True)
def kdtree_query(X, index, nodes, split, Q, k):
    """The k nearest training rows of each query row: (distances (n_q, k), indices (n_q, k)), ascending."""
    n_q = Q.shape[0]
    out_d = np.empty((n_q, k))
    out_i = np.empty((n_q, k), dtype=np.int64)
    stack_node = np.empty(2 * nodes.shape[0] + 1, dtype=np.int64)
    stack_bound = np.empty(2 * nodes.shape[0] + 1)
    best_d = np.empty(k)
    best_i = np.empty(k, dtype=np.int64)
    for q in range(n_q):
        best_d[:] = np.inf
        best_i[:] = np.iinfo(np.int64).max
        top = 0
        stack_node[0] = 0
        stack_bound[0] = 0.0
        top = 1
        while top > 0:
            top -= 1
            node = stack_node[top]
            bound = stack_bound[top]
            if bound > best_d[k - 1]:
                continue
            if nodes[node, 2] < 0:  # leaf: insert (distance, index) pairs that beat the k-th best
                for p in range(nodes[node, 0], nodes[node, 1]):
                    i = index[p]
                    s = _squared_distance(X[i], Q[q])
                    if s < best_d[k - 1] or (s == best_d[k - 1] and i < best_i[k - 1]):
                        j = k - 1
                        while j > 0 and (best_d[j - 1] > s or (best_d[j - 1] == s and best_i[j - 1] > i)):
                            best_d[j] = best_d[j - 1]
                            best_i[j] = best_i[j - 1]
                            j -= 1
                        best_d[j] = s
                        best_i[j] = i
            else:
                gap = Q[q, nodes[node, 4]] - split[node]
                near, far = (nodes[node, 2], nodes[node, 3]) if gap <= 0 else (nodes[node, 3], nodes[node, 2])
                stack_node[top] = far  # popped after the near side, when best_d[k-1] is already small
                stack_bound[top] = max(bound, gap * gap)
                stack_node[top + 1] = near
                stack_bound[top + 1] = bound
                top += 2
        out_d[q] = np.sqrt(best_d)
        out_i[q] = best_i
    return out_d, out_i


@njit(cache=True)
def kdtree_window_sums(X, index, nodes, split, Q, h, V, epanechnikov):
    """sum_i K(|x - x_i| / h) V[i] for every query row x, (n_q, V.shape[1]), over the training rows within
    distance h: K = 1 (box window) or 3/4 (1 - s^2) (Epanechnikov); s^2 <= 1 is inclusive, as in brute force."""
    n_q = Q.shape[0]
    d = X.shape[1]
    h2 = h * h
    out = np.zeros((n_q, V.shape[1]))
    stack_node = np.empty(2 * nodes.shape[0] + 1, dtype=np.int64)
    stack_gap = np.empty((2 * nodes.shape[0] + 1, d))  # per dimension, the query's distance to the node's cell
    # only nodes whose cell the window reaches are pushed
    for q in range(n_q):
        stack_node[0] = 0
        stack_gap[0] = 0.0
        top = 1
        while top > 0:
            top -= 1
            node = stack_node[top]
            if nodes[node, 2] < 0:
                for p in range(nodes[node, 0], nodes[node, 1]):
                    i = index[p]
                    s = _squared_distance(X[i], Q[q])
                    s2 = s / h2
                    if s2 <= 1.0:
                        w = 0.75 * (1.0 - s2) if epanechnikov else 1.0
                        for j in range(V.shape[1]):
                            out[q, j] += w * V[i, j]
            else:
                a = nodes[node, 4]
                gap = Q[q, a] - split[node]
                near, far = (nodes[node, 2], nodes[node, 3]) if gap <= 0 else (nodes[node, 3], nodes[node, 2])
                # the near child's cell is as far from the query as its parent's; the far one lies beyond the
                # plane along a. Summed in the order of a row's distance, so the bound never exceeds it in rounding.
                stack_node[top + 1] = near
                stack_gap[top + 1] = stack_gap[top]
                stack_gap[top, a] = abs(gap)
                s = 0.0
                for f in range(d):
                    s += stack_gap[top, f] * stack_gap[top, f]
                if s / h2 <= 1.0:
                    stack_node[top] = far
                    top += 2
                else:  # the window misses the far cell
                    stack_node[top] = near
                    stack_gap[top, a] = stack_gap[top + 1, a]
                    top += 1
    return out
