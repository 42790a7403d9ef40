"""One regression tree on gradients and hessians, grown best-first on binned features (the base learner h_m
of seed 000, lines 3008-3028, fitted to the negative gradient as in seed 002, lines 1523-1549).

Best-first growth (LightGBM, scikit-learn's HistGradientBoosting): the leaf whose best split gains most is split
next, until max_leaf_nodes leaves exist or no leaf has an admissible split (both children >= min_samples_leaf
rows and >= _MIN_HESSIAN hessian, gain > 0, depth < max_depth). A leaf's value is the Newton step
-G / (H + l2_regularization), shrunk by the learning rate. Histograms: the smaller child's is built from its
rows, the larger child's is the parent's minus the smaller one (the subtraction trick: each level costs the
rows of the smaller children only).

Sections cited:
- ML 1 lecture notes (seed 000): Gradient Tree Boosting - conceptually (3008)
- Machine Learning lecture notes (seed 002): Gradient Boosting (1523)"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ._kernels import build_histogram, find_best_split, partition

# a child must carry at least this much hessian (LightGBM's min_sum_hessian_in_leaf): a near-zero hessian sum
# (rows the model already fits almost perfectly) would make the Newton step -G/H explode when l2 = 0
_MIN_HESSIAN = 1e-3
# keeps -G / (H + l2) finite for a root whose hessian underflowed to 0 (every row saturated)
_TINY = 1e-15


@dataclass
class Tree:
    """Flat arrays, node 0 the root, children after parents; rows with bin code <= split_bin go left.
    At leaves feature = split_bin = left = right = -1."""

    feature: np.ndarray
    split_bin: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray  # leaves: shrunk Newton step; internal nodes: row-count-weighted mean of their leaves
    cover: np.ndarray  # number of rows reaching the node at fit


class TreeGrower:
    def __init__(self, binned, n_bins, max_leaf_nodes, max_depth, min_samples_leaf, l2_regularization, learning_rate):
        self.binned = binned
        self.n_bins = n_bins
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2 = l2_regularization
        self.learning_rate = learning_rate
        self.bin_start = np.concatenate([[0], np.cumsum(n_bins)[:-1]]).astype(np.int64)
        self.scratch = np.empty(binned.shape[0], dtype=np.intp)
        self.hist_shape = (int(n_bins.sum()), 3)
        self.pool: list[np.ndarray] = []  # histogram buffers reused across nodes and trees

    def _histogram(self, rows, g, h):
        hist = self.pool.pop() if self.pool else np.empty(self.hist_shape)
        build_histogram(self.binned, rows, g, h, self.bin_start, hist)
        return hist

    def _can_split(self, n_rows, depth, n_leaves):
        return (
            n_rows >= 2 * self.min_samples_leaf
            and (self.max_depth is None or depth < self.max_depth)
            and (self.max_leaf_nodes is None or n_leaves < self.max_leaf_nodes)
        )

    def grow(self, rows, g, h):
        """Grow one tree on rows, which are permuted in place so that each leaf's rows end up contiguous.
        Returns the tree and, per leaf, its rows' range in `rows` (leaf_start, leaf_stop)."""
        feature, split_bin, left, right = [-1], [-1], [-1], [-1]
        sum_g, sum_h, count = [float(np.sum(g[rows]))], [float(np.sum(h[rows]))], [float(rows.size)]
        start, stop, depth = [0], [rows.size], [0]
        splits, hists, heap = {}, {}, []

        def consider(node, hist):
            split = find_best_split(
                hist,
                self.bin_start,
                self.n_bins,
                sum_g[node],
                sum_h[node],
                count[node],
                self.l2,
                self.min_samples_leaf,
                _MIN_HESSIAN,
            )
            if split[1] >= 0:
                splits[node], hists[node] = split, hist
                heapq.heappush(heap, (-split[0], node))  # ties: the older node first
            else:
                self.pool.append(hist)

        if self._can_split(rows.size, 0, 1):
            consider(0, self._histogram(rows, g, h))
        n_leaves = 1
        while heap:
            _, node = heapq.heappop(heap)
            _, f, b, g_left, h_left, _ = splits.pop(node)
            parent_hist = hists.pop(node)
            mid = partition(rows, start[node], stop[node], self.binned[:, f], b, self.scratch)
            children = (len(feature), len(feature) + 1)
            feature[node], split_bin[node], left[node], right[node] = f, b, children[0], children[1]
            for lo, hi, G, H in (
                (start[node], mid, g_left, h_left),
                (mid, stop[node], sum_g[node] - g_left, sum_h[node] - h_left),
            ):
                feature.append(-1), split_bin.append(-1), left.append(-1), right.append(-1)
                sum_g.append(G), sum_h.append(H), count.append(float(hi - lo))
                start.append(lo), stop.append(hi), depth.append(depth[node] + 1)
            n_leaves += 1
            grow = [self._can_split(count[c], depth[c], n_leaves) for c in children]
            if any(grow):
                small, large = sorted(children, key=lambda c: count[c])
                small_hist = self._histogram(rows[start[small] : stop[small]], g, h)
                np.subtract(parent_hist, small_hist, out=parent_hist)  # the larger child's, in place
                for c, hist in ((small, small_hist), (large, parent_hist)):
                    if grow[children.index(c)]:
                        consider(c, hist)
                    else:
                        self.pool.append(hist)
            else:
                self.pool.append(parent_hist)
            if self.max_leaf_nodes is not None and n_leaves >= self.max_leaf_nodes:
                break
        self.pool.extend(hists.values())

        feature = np.array(feature, dtype=np.int64)
        count = np.array(count)
        leaves = np.flatnonzero(feature < 0)
        value = np.zeros(feature.size)
        G, H = np.array(sum_g)[leaves], np.array(sum_h)[leaves]
        value[leaves] = -self.learning_rate * G / (H + self.l2 + _TINY)
        left, right = np.array(left, dtype=np.int64), np.array(right, dtype=np.int64)
        for node in np.flatnonzero(feature >= 0)[::-1]:  # children come after parents: bottom-up
            value[node] = (count[left[node]] * value[left[node]] + count[right[node]] * value[right[node]]) / count[
                node
            ]
        tree = Tree(feature, np.array(split_bin, dtype=np.int64), left, right, value, count)
        return tree, np.array(start)[leaves], np.array(stop)[leaves]
