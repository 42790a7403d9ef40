"""Each fitted term as a small tree of threshold splits on its feature(s), for the shared tree protocol
(tree_ensemble(), read by mllib.explain.tree_shap): the model is then a tree ensemble, and TreeSHAP gives the
exact Shapley values of the additive model (of a main term: its value minus its mean, all on its feature; of a pair:
shared between its two features).

A main term's leaves are its runs of consecutive bins of equal value; a pair's tree splits on the first feature's
runs (of equal rows of cells), each leaf a subtree on the second feature's runs; subtrees are balanced by the number
of leaves (depth ~ log2 of the bins: TreeSHAP's cost grows with the square of the depth). A node's cover is the
training rows' weight reaching it; TreeSHAP divides by it, and the fit gives every cell no training row reaches its
neighbour's value (fill_unreached), so each run, and so each node, carries weight."""

from __future__ import annotations

import numpy as np


class _Nodes:
    """Node arrays grown in preorder (the root is node 0; children come after their parent)."""

    def __init__(self):
        self.feature, self.threshold, self.left, self.right, self.value, self.cover = [], [], [], [], [], []

    def leaf(self, value: np.ndarray, cover: float) -> int:
        return self._add(-1, np.nan, value, cover)

    def split(self, feature: int, threshold: float, grow_left, grow_right) -> int:
        node = self._add(feature, threshold, None, 0.0)
        left, right = grow_left(), grow_right()
        self.left[node], self.right[node] = left, right
        cover = self.cover[left] + self.cover[right]
        # internal value: the cover-weighted mean of its leaves (the protocol's convention)
        self.value[node] = (self.cover[left] * self.value[left] + self.cover[right] * self.value[right]) / cover
        self.cover[node] = cover
        return node

    def _add(self, feature, threshold, value, cover) -> int:
        self.feature.append(feature)
        self.threshold.append(threshold)
        self.left.append(-1)
        self.right.append(-1)
        self.value.append(value)
        self.cover.append(cover)
        return len(self.feature) - 1

    def tree(self) -> dict:
        return dict(
            feature=np.array(self.feature, dtype=np.int64),
            threshold=np.array(self.threshold, dtype=np.float64),
            left=np.array(self.left, dtype=np.int64),
            right=np.array(self.right, dtype=np.int64),
            value=np.array(self.value, dtype=np.float64),
            cover=np.array(self.cover, dtype=np.float64),
        )


def runs(values: np.ndarray) -> np.ndarray:
    """Start of each run of equal consecutive entries along axis 0 (entries compared whole), then len(values)."""
    flat = values.reshape(values.shape[0], -1)
    changes = np.flatnonzero(np.any(flat[1:] != flat[:-1], axis=1)) + 1
    return np.concatenate([[0], changes, [values.shape[0]]]).astype(np.int64)


def _grow(nodes: _Nodes, feature: int, edges: np.ndarray, starts: np.ndarray, leaf) -> int:
    """A subtree over the runs [starts[r], starts[r + 1]) of a feature's bins: run r holds x with
    edges[starts[r] - 1] < x <= edges[starts[r + 1] - 1]; leaf(r) grows run r's leaf (or subtree)."""

    def over(lo: int, hi: int) -> int:
        if hi - lo == 1:
            return leaf(lo)
        m = (lo + hi) // 2
        return nodes.split(feature, float(edges[starts[m] - 1]), lambda: over(lo, m), lambda: over(m, hi))

    return over(0, starts.size - 1)


def main_tree(feature: int, edges: np.ndarray, values: np.ndarray, weights: np.ndarray) -> dict:
    """values (n_bins, K), weights (n_bins,): the term's tree on one feature."""
    nodes = _Nodes()
    starts = runs(values)
    covers = np.add.reduceat(weights, starts[:-1])
    _grow(nodes, feature, edges, starts, lambda r: nodes.leaf(values[starts[r]], covers[r]))
    return nodes.tree()


def pair_tree(features: tuple, edges: tuple, values: np.ndarray, weights: np.ndarray) -> dict:
    """values (n_a, n_b, K), weights (n_a, n_b): the pair's tree, first feature above the second."""
    nodes = _Nodes()
    rows = runs(values)
    row_weights = np.add.reduceat(weights, rows[:-1], axis=0)  # (runs of a, n_b)

    def subtree(r: int) -> int:
        row = values[rows[r]]
        starts = runs(row)
        covers = np.add.reduceat(row_weights[r], starts[:-1])
        return _grow(nodes, features[1], edges[1], starts, lambda s: nodes.leaf(row[starts[s]], covers[s]))

    _grow(nodes, features[0], edges[0], rows, subtree)
    return nodes.tree()


def fill_unreached(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """values (..., n, K) along axis -2 with each entry of zero weight (n,) replaced by the nearest weighted entry
    before it (after it for leading ones): a bin no training row reaches takes its neighbour's value."""
    position = np.where(weights > 0, np.arange(weights.size), -1)
    nearest = np.maximum.accumulate(position)
    nearest[nearest < 0] = np.flatnonzero(weights > 0)[0]
    return values[..., nearest, :]
