"""kd-tree for exact k-nearest-neighbour search (seed 002, lines 1326-1365, slides 4:20-4:23; catalogue 002 P6).

Build (numpy): each node splits its points at the median of one coordinate (the median gives a balanced tree; the
notes cycle the axes, here the axis of widest spread, which adapts to the data), recursing until a leaf holds at
most leaf_size points. Query (numba: a depth-first walk with a bounded best-list, one query row at a time):
descend to the leaf on the query's side, then unwind and search the other side of a split only when the
hypersphere of the current k-th best distance crosses the splitting plane, |x*_a - t| < d_k.
Neighbours are ordered by (distance, training index), so results equal brute force exactly except for rounding.
"""
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
def kdtree_query(X, index, nodes, split, Q, k):
    """The k nearest training rows of each query row: (distances (n_q, k), indices (n_q, k)), ascending."""
    n_q = Q.shape[0]
    d = X.shape[1]
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
                    s = 0.0
                    for f in range(d):
                        diff = X[i, f] - Q[q, f]
                        s += diff * diff
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
