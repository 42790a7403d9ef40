"""k-nearest-neighbour and Parzen-window classifier and regressor.

Seed 002, lines 1284-1324 (slides 4:17-4:19; catalogue 002 P5): a local model with the smoothing kernel
"1 if x_i is among the k nearest neighbours of x*, else 0"; the kNN regressor is the (weighted) mean of the
neighbours' targets, the kNN classifier the class frequencies among them. Seed 001, lines 880-929 (catalogue
001-004 7.7): k-NN and Parzen density estimates p(x) = (k / n) / V; with a fixed window of width h
(bandwidth) every class's Parzen density gives the posterior P(c | x) = sum_{i in c} K(|x - x_i| / h) / sum_i K(.),
kernels box (1 inside the window), Epanechnikov 3/4 (1 - s^2) on s <= 1 (catalogue 002 P5) or Gaussian.
A query whose window holds no training point gets the class priors (regressor: the training mean).
Neighbours are found by brute force (blocked BLAS distances ||a||^2 + ||b||^2 - 2 a^T b, then a compiled k-smallest
selection) or a kd-tree (kdtree.py); "auto" takes the kd-tree in low dimension only, where its pruning pays (d <= 15).
A Parzen window sums the kernel-weighted one-hot labels (regressor: weights and weighted targets) per query, never
the whole (query x training) kernel matrix: the compact windows (box, Epanechnikov) by a kd-tree radius query, the
Gaussian (no finite support) and any window in high dimension by brute force, one block of queries at a time.
weights="distance" weighs each neighbour by 1 / distance (a neighbour at distance 0 takes all the weight).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    check_array,
    check_fitted_X,
    check_is_fitted,
    check_n_features,
    check_sample_weight,
    check_within_data,
    check_X_y,
)
from ..base.constraints import OPTIONAL, POSITIVE, Options, check_hyperparameters, positive_int
from .kdtree import build_kdtree, kdtree_query, kdtree_window_sums

ALGORITHMS = ("auto", "kd_tree", "brute")
WEIGHTS = ("uniform", "distance")
KERNELS = ("box", "epanechnikov", "gaussian")
_BLOCK = 1 << 21  # distance-matrix entries per block (16 MB)
_KD_TREE_MAX_DIM = 15


def squared_distances(A: np.ndarray, B: np.ndarray, B_sq: np.ndarray) -> np.ndarray:
    """||a||^2 + ||b||^2 - 2 a^T b, clipped at 0 (rounding can make it slightly negative)."""
    D = A @ B.T
    D *= -2.0
    D += np.einsum("ij,ij->i", A, A)[:, None]
    D += B_sq
    return np.maximum(D, 0.0, out=D)


@njit(cache=True)
def smallest_k(D, k):
    """Per row of D, the k smallest entries and their columns, ordered by (value, column): a sorted list of k
    candidates that most entries fail to enter after a single comparison (numpy's argpartition makes several
    passes over each row and was the bottleneck of brute-force kNN, benchmarks/results/classifiers.md)."""
    m, n = D.shape
    vals = np.empty((m, k))
    cols = np.empty((m, k), dtype=np.int64)
    for r in range(m):
        best_v = vals[r]
        best_c = cols[r]
        best_v[:] = np.inf
        best_c[:] = n
        for c in range(n):
            v = D[r, c]
            if v < best_v[k - 1]:  # columns come in increasing order, so an equal value never enters
                j = k - 1
                while j > 0 and best_v[j - 1] > v:
                    best_v[j] = best_v[j - 1]
                    best_c[j] = best_c[j - 1]
                    j -= 1
                best_v[j] = v
                best_c[j] = c
    return vals, cols


def brute_kneighbors(X: np.ndarray, Q: np.ndarray, k: int):
    """k nearest rows of X for every row of Q, ordered by (distance, index): distances and indices (n_q, k).
    Ranks by ||b||^2 - 2 a^T b (||a||^2 is constant along a row), computed by a single GEMM of the augmented
    matrices `[a, 1] [-2 b, ||b||^2]^T` in blocks of queries, and adds ||a||^2 back to the k selected only."""
    Xa = np.hstack([-2.0 * X, np.einsum("ij,ij->i", X, X)[:, None]])
    dist = np.empty((Q.shape[0], k))
    ind = np.empty((Q.shape[0], k), dtype=np.int64)
    step = max(1, _BLOCK // X.shape[0])
    for lo in range(0, Q.shape[0], step):
        q = Q[lo : lo + step]
        d, ind[lo : lo + step] = smallest_k(np.hstack([q, np.ones((q.shape[0], 1))]) @ Xa.T, k)
        d += np.einsum("ij,ij->i", q, q)[:, None]
        dist[lo : lo + step] = np.sqrt(np.maximum(d, 0.0))  # rounding can make a squared distance slightly negative
    return dist, ind


class _Neighbours(BaseEstimator):
    """Storage, neighbour search and weights shared by the classifier and the regressor."""

    _constraints = {
        "algorithm": Options(ALGORITHMS),
        "weights": Options(WEIGHTS),
        "kernel": Options(KERNELS),
        "bandwidth": [OPTIONAL, POSITIVE],  # the Parzen window width; None: k nearest neighbours
        "leaf_size": positive_int(),
        "n_neighbors": positive_int(),  # at most the training rows: at fit
    }

    def __init__(
        self,
        n_neighbors: int = 5,
        weights: str = "uniform",
        algorithm: str = "auto",
        leaf_size: int = 30,
        bandwidth: float | None = None,
        kernel: str = "box",
    ):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.bandwidth = bandwidth
        self.kernel = kernel

    def _store(self, X, sample_weight):
        check_hyperparameters(self)
        if self.bandwidth is None:
            check_within_data(self, "n_neighbors", X.shape[0], "n_samples")
        self.n_features_in_ = X.shape[1]
        self.X_fit_ = X
        self.sample_weight_ = check_sample_weight(sample_weight, X.shape[0])
        if self.bandwidth is not None and self.kernel == "gaussian" and self.algorithm == "kd_tree":
            raise ValueError(
                "algorithm='kd_tree' needs a window of finite width (kernel 'box' or 'epanechnikov'); "
                "the gaussian kernel weighs every training row: use algorithm='auto' or 'brute'"
            )
        use_tree = (self.bandwidth is None or self.kernel != "gaussian") and (
            self.algorithm == "kd_tree" or (self.algorithm == "auto" and X.shape[1] <= _KD_TREE_MAX_DIM)
        )
        if use_tree:
            self.tree_index_, self.tree_nodes_, self.tree_split_ = build_kdtree(X, int(self.leaf_size))
        else:  # a refit after set_params(algorithm="brute") must not query a stale tree
            for name in ("tree_index_", "tree_nodes_", "tree_split_"):
                self.__dict__.pop(name, None)

    def kneighbors(self, X):
        """Distances and training indices of the n_neighbors nearest rows, ascending (ties by index)."""
        X = check_fitted_X(self, X)
        if hasattr(self, "tree_nodes_"):
            return kdtree_query(
                self.X_fit_, self.tree_index_, self.tree_nodes_, self.tree_split_, X, int(self.n_neighbors)
            )
        return brute_kneighbors(self.X_fit_, X, int(self.n_neighbors))

    def _neighbour_weights(self, X):
        """Indices and weights (n, k) of the n_neighbors nearest training rows, sample weights included."""
        dist, ind = self.kneighbors(X)
        if self.weights == "uniform":
            w = np.ones_like(dist)
        else:
            exact = dist == 0
            w = np.divide(1.0, dist, out=np.zeros_like(dist), where=~exact)
            rows = exact.any(axis=1)
            w[rows] = exact[rows]
        return ind, w * self.sample_weight_[ind]

    def _window_sums(self, X, V):
        """sum_i K(|x - x_i| / h) sample_weight_i V[i] for every query row x: (n, V.shape[1])."""
        X = check_array(X)
        check_n_features(self, X)
        V = V * self.sample_weight_[:, None]
        if hasattr(self, "tree_nodes_"):
            return kdtree_window_sums(
                self.X_fit_,
                self.tree_index_,
                self.tree_nodes_,
                self.tree_split_,
                X,
                float(self.bandwidth),
                V,
                self.kernel == "epanechnikov",
            )
        X_sq = np.einsum("ij,ij->i", self.X_fit_, self.X_fit_)
        out = np.empty((X.shape[0], V.shape[1]))
        step = max(1, _BLOCK // self.X_fit_.shape[0])
        for lo in range(0, X.shape[0], step):
            s2 = squared_distances(X[lo : lo + step], self.X_fit_, X_sq) / self.bandwidth**2
            if self.kernel == "box":
                K = (s2 <= 1.0).astype(np.float64)
            elif self.kernel == "epanechnikov":
                K = np.maximum(0.75 * (1.0 - s2), 0.0)
            else:
                K = np.exp(-0.5 * s2)
            out[lo : lo + step] = K @ V
        return out


class KNeighborsClassifier(ClassifierMixin, _Neighbours):
    """k-nearest-neighbour vote (or Parzen-window posterior when bandwidth is set). sample_weight multiplies each
    training row's vote.

    Parameters
    ----------
    n_neighbors : int, default 5
        k, the number of neighbours.
    weights : {"uniform", "distance"}, default "uniform"
        Equal weights, or 1 / distance (a neighbour at distance 0 takes all the weight).
    algorithm : {"auto", "kd_tree", "brute"}, default "auto"
        Neighbour search: a kd-tree, brute force, or auto (the kd-tree for at most 15 features, where its pruning pays).
    leaf_size : int, default 30
        Rows per kd-tree leaf.
    bandwidth : float or None, default None
        None for kNN; else the Parzen window width h (every training row within the window counts).
    kernel : {"box", "epanechnikov", "gaussian"}, default "box"
        Parzen window shape (with bandwidth set); the gaussian weighs every training row, so it always searches by
        brute force.
    """

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        self.y_codes_ = self._encode_targets(y)
        self._store(X, sample_weight)
        counts = np.bincount(self.y_codes_, weights=self.sample_weight_, minlength=self.classes_.size)
        self.class_prior_ = counts / counts.sum()
        return self

    def predict_proba(self, X):
        check_is_fitted(self)
        K = self.classes_.size
        if self.bandwidth is not None:
            votes = self._window_sums(X, np.eye(K)[self.y_codes_])
        else:
            ind, w = self._neighbour_weights(X)
            codes = self.y_codes_[ind]
            votes = np.column_stack([np.sum(w * (codes == c), axis=1) for c in range(K)])
        total = votes.sum(axis=1, keepdims=True)
        empty = total[:, 0] <= 0
        votes[empty] = self.class_prior_
        total[empty] = 1.0
        return votes / total


class KNeighborsRegressor(RegressorMixin, _Neighbours):
    """Mean of the k nearest neighbours' targets (weighted as in KNeighborsClassifier), or the Parzen-window
    (Nadaraya-Watson) kernel-weighted mean when bandwidth is set.

    Parameters
    ----------
    n_neighbors : int, default 5
        k, the number of neighbours.
    weights : {"uniform", "distance"}, default "uniform"
        Equal weights, or 1 / distance (a neighbour at distance 0 takes all the weight).
    algorithm : {"auto", "kd_tree", "brute"}, default "auto"
        Neighbour search: a kd-tree, brute force, or auto (the kd-tree for at most 15 features, where its pruning pays).
    leaf_size : int, default 30
        Rows per kd-tree leaf.
    bandwidth : float or None, default None
        None for kNN; else the Parzen window width h (every training row within the window counts).
    kernel : {"box", "epanechnikov", "gaussian"}, default "box"
        Parzen window shape (with bandwidth set); the gaussian weighs every training row, so it always searches by
        brute force.
    """

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        self.y_fit_ = y
        self._store(X, sample_weight)
        self.y_mean_ = float(self.sample_weight_ @ y / self.sample_weight_.sum())
        return self

    def predict(self, X):
        check_is_fitted(self)
        if self.bandwidth is not None:
            total, num = self._window_sums(X, np.column_stack([np.ones_like(self.y_fit_), self.y_fit_])).T
        else:
            ind, w = self._neighbour_weights(X)
            num, total = np.sum(w * self.y_fit_[ind], axis=1), w.sum(axis=1)
        return np.divide(num, total, out=np.full(total.shape, self.y_mean_), where=total > 0)
