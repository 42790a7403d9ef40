"""k-means clustering by Lloyd's algorithm, seeded by k-means++.

Objective (seed 000, lines 3521-3618; seed 004, lines 616-665): J = sum_n w_n ||x_n - mu_{c(n)}||^2.
Lloyd alternates the assignment step c(n) = argmin_k ||x_n - mu_k||^2 and the update step mu_k = weighted mean of
cluster k; neither step can increase J, so J is non-increasing and the iteration reaches a local minimum.
Initialisation: greedy k-means++ (Arthur & Vassilvitskii 2007, with 2 + ln k candidate centres per step, as in
scikit-learn; the notes use random data points, init="random"); n_init restarts keep the run with the lowest J.
An empty cluster is moved to the point farthest from its centre, which cannot increase J either.

Sections cited:
- ML 1 lecture notes (seed 000): Lecture 12: Clustering (3521)
- Ghent ML notes (seed 004): 4.2 K-Means Clustering (616)"""

from __future__ import annotations

import numpy as np

from ..base import (
    BaseEstimator,
    ClusterMixin,
    check_array,
    check_fitted_X,
    check_random_state,
    check_sample_weight,
    check_within_data,
)
from ..base.constraints import NON_NEGATIVE, RANDOM_STATE, InstanceOf, Options, check_hyperparameters, positive_int

INITS = ("k-means++", "random")


def squared_distances(X, x_sq, centres):
    """||x_n - mu_k||^2 for every row and centre, (n, k), by ||x||^2 - 2 x^T mu + ||mu||^2 (one matrix product)."""
    D = X @ centres.T
    D *= -2.0
    D += x_sq[:, None]
    D += np.einsum("ij,ij->i", centres, centres)
    np.maximum(D, 0.0, out=D)  # the expansion can round a zero distance slightly below 0
    return D


def kmeans_plus_plus(X, x_sq, w, k, rng):
    """k centres: the first drawn with probability proportional to w, each next one among 2 + ln k candidates drawn
    with probability proportional to w D(x)^2 (D = distance to the nearest chosen centre), keeping the candidate
    that most reduces the potential sum_n w_n D(x_n)^2."""
    n_trials = 2 + int(np.log(k))
    centres = np.empty((k, X.shape[1]))
    first = rng.choice(X.shape[0], p=w / w.sum())
    centres[0] = X[first]
    closest = squared_distances(X, x_sq, centres[:1])[:, 0]
    for c in range(1, k):
        cumulative = np.cumsum(w * closest)
        draws = rng.random(n_trials) * cumulative[-1]
        candidates = np.minimum(np.searchsorted(cumulative, draws), X.shape[0] - 1)
        trial = np.minimum(closest[:, None], squared_distances(X, x_sq, X[candidates]))
        best = np.argmin(w @ trial)
        centres[c] = X[candidates[best]]
        closest = trial[:, best]
    return centres


class _Lloyd:
    """Lloyd iterations on fixed data, with the (n, k) work arrays allocated once per run."""

    def __init__(self, X, x_sq, w, k):
        self.X, self.x_sq, self.w = X, x_sq, w
        self.rows = np.arange(X.shape[0])
        self.scores = np.empty((X.shape[0], k))
        self.onehot = np.zeros((X.shape[0], k))

    def assign(self, centres):
        """Nearest-centre labels and the objective J they give with these centres. The argmin needs only
        -2 x^T mu + ||mu||^2 (||x||^2 is the same for every centre), one matrix product into a reused array."""
        np.matmul(self.X, centres.T * -2.0, out=self.scores)
        self.scores += np.einsum("ij,ij->i", centres, centres)
        labels = np.argmin(self.scores, axis=1)
        nearest = np.maximum(self.x_sq + self.scores[self.rows, labels], 0.0)
        return labels, float(self.w @ nearest)

    def update(self, labels, centres):
        """Weighted cluster means; an empty cluster takes the point farthest from its current centre."""
        self.onehot[self.rows, labels] = self.w
        mass = self.onehot.sum(axis=0)
        new = self.onehot.T @ self.X
        self.onehot[self.rows, labels] = 0.0
        empty = mass == 0
        if empty.any():
            diff = self.X - centres[labels]
            far = np.argsort(-np.einsum("ij,ij->i", diff, diff), kind="stable")[: empty.sum()]
            new[empty], mass[empty] = self.X[far], 1.0
        return new / mass[:, None]

    def run(self, centres, max_iter, tol):
        """Iterate from the given centres; returns centres, labels, J per iteration, iterations run."""
        labels, J = self.assign(centres)
        history = [J]
        n_iter = 0
        for n_iter in range(1, max_iter + 1):
            new = self.update(labels, centres)
            shift = float(np.sum((new - centres) ** 2))
            centres = new
            new_labels, J = self.assign(centres)
            history.append(J)
            unchanged = np.array_equal(new_labels, labels)
            labels = new_labels
            if unchanged or shift <= tol:
                break
        return centres, labels, np.array(history), n_iter


class KMeans(ClusterMixin, BaseEstimator):
    """k-means (Lloyd) with k-means++ or random initialisation and restarts.

    Parameters
    ----------
    n_clusters : int, default 8
        k, the number of clusters.
    init : "k-means++", "random" or array of shape (k, d), default "k-means++"
        k-means++ seeding, k distinct data points (the notes' scheme), or the starting centres (then n_init must be 1).
    n_init : int, default 1
        Restarts; the run with the lowest J is kept.
    max_iter : int, default 300
        Lloyd iterations per run.
    tol : float, default 0.0001
        Stop when the total squared centre shift is <= tol times the mean per-feature variance of X (or when no label
        changes).
    random_state : int, Generator or None, default 0
        Seeds the initialisation.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (k, d)
        The final centres.
    labels_ : ndarray
        Each training row's cluster.
    inertia_ : float
        J of the final centres.
    inertia_history_ : ndarray
        J of the best run after each assignment step, starting with the initial centres; non-increasing.
    n_iter_ : int
        The Lloyd iterations of the best run.
    """

    _constraints = {
        "n_clusters": positive_int(),  # at most the rows: at fit
        "init": [Options(INITS), InstanceOf((np.ndarray, list, tuple), "an array of shape (n_clusters, n_features)")],
        "n_init": positive_int(),
        "max_iter": positive_int(),
        "tol": NON_NEGATIVE,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        n_clusters: int = 8,
        init="k-means++",
        n_init: int = 1,
        max_iter: int = 300,
        tol: float = 1e-4,
        random_state=0,
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _check_params(self, X):
        n = X.shape[0]
        check_hyperparameters(self)
        check_within_data(self, "n_clusters", n, "n_samples")
        if isinstance(self.init, str):
            return None
        centres = check_array(self.init, name="init")
        if centres.shape != (self.n_clusters, X.shape[1]):
            raise ValueError(
                f"init array must have shape (n_clusters, n_features) = {(self.n_clusters, X.shape[1])}, "
                f"got {centres.shape}"
            )
        if self.n_init != 1:
            raise ValueError("init given as an array fixes the start: set n_init=1")
        return centres

    def fit(self, X, y=None, sample_weight=None):
        X = check_array(X)
        given = self._check_params(X)
        w = check_sample_weight(sample_weight, X.shape[0])
        rng = check_random_state(self.random_state)
        x_sq = np.einsum("ij,ij->i", X, X)
        tol = self.tol * float(np.mean(np.var(X, axis=0)))
        lloyd = _Lloyd(X, x_sq, w, self.n_clusters)
        best = None
        for _ in range(self.n_init):
            if given is not None:
                start = given
            elif self.init == "random":
                start = X[rng.choice(X.shape[0], size=self.n_clusters, replace=False)]
            else:
                start = kmeans_plus_plus(X, x_sq, w, self.n_clusters, rng)
            run = lloyd.run(start, self.max_iter, tol)
            if best is None or run[2][-1] < best[2][-1]:
                best = run
        centres, labels, history, n_iter = best
        self.n_features_in_ = X.shape[1]
        self.cluster_centers_ = centres
        self.labels_ = labels.astype(np.int64)
        self.inertia_ = float(history[-1])
        self.inertia_history_ = history
        self.n_iter_ = int(n_iter)
        return self

    def predict(self, X):
        """Index of the nearest centre for each row."""
        X = check_fitted_X(self, X)
        return np.argmin(squared_distances(X, np.einsum("ij,ij->i", X, X), self.cluster_centers_), axis=1).astype(
            np.int64
        )

    def transform(self, X):
        """Euclidean distances to each centre, (n, k)."""
        X = check_fitted_X(self, X)
        return np.sqrt(squared_distances(X, np.einsum("ij,ij->i", X, X), self.cluster_centers_))
