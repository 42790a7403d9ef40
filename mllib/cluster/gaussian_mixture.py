"""Gaussian mixture model fitted by expectation-maximisation.

Model (seed 000, lines 3619-3696; seed 002, lines 3482-3553): p(x) = sum_k tau_k N(x | mu_k, Sigma_k).
E-step: responsibilities q_nk = tau_k N(x_n | mu_k, Sigma_k) / sum_l tau_l N(x_n | mu_l, Sigma_l), in log space with
log-sum-exp. M-step (seed 004, lines 667-745): N_k = sum_n q_nk, tau_k = N_k / n, mu_k = sum_n q_nk x_n / N_k,
Sigma_k = sum_n q_nk (x_n - mu_k)(x_n - mu_k)^T / N_k + reg_covar I (the ridge keeps Sigma_k from collapsing onto a
point). Each EM iteration cannot decrease the log-likelihood (seed 000, lines 3811-4045: the E-step makes Jensen's
bound tight, the M-step maximises it). Hard ("classification") EM, lines 3731-3753, replaces q by the one-hot argmax.
Covariances: "full" Sigma_k, "diag" (one variance per feature), "spherical" (sigma_k^2 I). Densities through the
Cholesky factor of Sigma_k, never its inverse. Initialisation as in seed 004 lines 751-757: k-means labels as
hard responsibilities, then an M-step; or random data points as means ("random", the notes' scheme, with the
remaining parameters from the nearest-mean partition).
Sample weights w_n (a row of weight w_n counts as w_n copies of it): the M-step takes the weighted responsibilities
w_n q_nk and tau_k = N_k / sum_n w_n; the log-likelihood is the weighted average sum_n w_n log p(x_n) / sum_n w_n.

Sections cited:
- ML 1 lecture notes (seed 000): Density Estimation (3619); → Fitting a GMM (3811)
- Machine Learning lecture notes (seed 002): Gaussian Mixture Model – as example for EM (3482)
- Ghent ML notes (seed 004): 4.3 Mixture Distributions: Mixture of Gaussians (667, 751)"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg

from ..base import (
    BaseEstimator,
    ClusterMixin,
    ConvergenceWarning,
    check_array,
    check_fitted_X,
    check_random_state,
    check_sample_weight,
    check_within_data,
)
from ..base.constraints import NON_NEGATIVE, RANDOM_STATE, Options, check_hyperparameters, positive_int
from .kmeans import KMeans, squared_distances

COVARIANCE_TYPES = ("full", "diag", "spherical")
ASSIGNMENTS = ("soft", "hard")
INIT_PARAMS = ("kmeans", "random")
_LOG_2PI = np.log(2 * np.pi)


def log_gaussian_density(X, means, covariances, covariance_type, X_sq=None):
    """log N(x_n | mu_k, Sigma_k) for every row and component, (n, K). X_sq: X * X if already computed.

    For diag / spherical, sum_j (x_j - mu_kj)^2 / var_kj is expanded into matrix products (no (n, d) array per
    component); callers pass X centred near the data mean so the expansion has no cancellation."""
    n, d = X.shape
    if covariance_type != "full":
        var = covariances if covariance_type == "diag" else np.repeat(covariances[:, None], d, axis=1)
        prec = 1.0 / var
        X_sq = X * X if X_sq is None else X_sq
        maha = X_sq @ prec.T - 2.0 * (X @ (means * prec).T) + np.sum(means * means * prec, axis=1)
        return -0.5 * (d * _LOG_2PI + np.sum(np.log(var), axis=1) + np.maximum(maha, 0.0))
    out = np.empty((n, means.shape[0]))
    for k, mu in enumerate(means):
        L = linalg.cholesky(covariances[k], lower=True, check_finite=False)
        z = linalg.solve_triangular(L, (X - mu).T, lower=True, check_finite=False)
        out[:, k] = -0.5 * (d * _LOG_2PI + 2 * np.sum(np.log(np.diag(L))) + np.einsum("ij,ij->j", z, z))
    return out


def e_step(X, weights, means, covariances, covariance_type, X_sq=None):
    """log q_nk and the per-row log-likelihood log p(x_n) (log-sum-exp over the components)."""
    joint = log_gaussian_density(X, means, covariances, covariance_type, X_sq) + np.log(weights)
    top = joint.max(axis=1)
    log_px = np.log(np.exp(joint - top[:, None]).sum(axis=1)) + top
    return joint - log_px[:, None], log_px


def m_step(X, resp, covariance_type, reg_covar, X_sq=None):
    """tau, mu, Sigma maximising the expected complete-data log-likelihood for responsibilities resp (n, K)
    (rows weighted by sample weights: resp = w_n q_nk).
    For diag / spherical the variances are E_q[x^2] - mu^2 (one matrix product): pass X centred near its mean."""
    mass = resp.sum(axis=0) + 10 * np.finfo(np.float64).eps  # a component with no mass keeps finite parameters
    weights = mass / mass.sum()
    means = resp.T @ X / mass[:, None]
    d = X.shape[1]
    if covariance_type == "full":
        covariances = np.empty((means.shape[0], d, d))
        for k, mu in enumerate(means):
            diff = X - mu
            covariances[k] = (resp[:, k, None] * diff).T @ diff / mass[k]
            covariances[k].flat[:: d + 1] += reg_covar
        return weights, means, covariances
    X_sq = X * X if X_sq is None else X_sq
    variances = np.maximum(resp.T @ X_sq / mass[:, None] - means * means, 0.0) + reg_covar
    return weights, means, (variances if covariance_type == "diag" else variances.mean(axis=1))


class GaussianMixture(ClusterMixin, BaseEstimator):
    """Mixture of K Gaussians by (soft or hard) EM.

    Parameters
    ----------
    n_components : int, default 1
        K, the number of components.
    covariance_type : {"full", "diag", "spherical"}, default "full"
        Shape of each component's covariance.
    assignment : {"soft", "hard"}, default "soft"
        EM, or classification EM (hard assignments; it also stops as soon as the partition repeats).
    reg_covar : float, default 1e-06
        Added to every variance.
    tol : float, default 0.001
        Stop when the average log-likelihood per sample changes by less than tol between iterations.
    max_iter : int, default 100
        EM iterations per run.
    n_init : int, default 1
        Runs from different initialisations; the one with the highest final log-likelihood is kept.
    init_params : {"kmeans", "random"}, default "kmeans"
        k-means labels as hard responsibilities, then an M-step; or random data points as means (the notes' scheme),
        the other parameters from the nearest-mean partition.
    random_state : int, Generator or None, default 0
        Seeds the initialisation.

    Attributes
    ----------
    weights_ : ndarray of shape (K,)
        The mixing weights.
    means_ : ndarray of shape (K, d)
        The components' means.
    covariances_ : ndarray
        The components' covariances: (K, d, d) full, (K, d) diag, (K,) spherical.
    log_likelihood_history_ : ndarray
        The average log-likelihood per sample at each E-step of the best run, i.e. of the parameters before each
        M-step; non-decreasing for soft EM.
    log_likelihood_ : float
        Its last value.
    n_iter_ : int
        The EM iterations of the best run.
    converged_ : bool
        Whether the best run converged before max_iter.
    """

    _constraints = {
        "covariance_type": Options(COVARIANCE_TYPES),
        "assignment": Options(ASSIGNMENTS),
        "init_params": Options(INIT_PARAMS),
        "n_init": positive_int(),
        "max_iter": positive_int(),
        "reg_covar": NON_NEGATIVE,
        "tol": NON_NEGATIVE,
        "n_components": positive_int(),  # at most the rows: at fit
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        n_components: int = 1,
        covariance_type: str = "full",
        assignment: str = "soft",
        reg_covar: float = 1e-6,
        tol: float = 1e-3,
        max_iter: int = 100,
        n_init: int = 1,
        init_params: str = "kmeans",
        random_state=0,
    ):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.assignment = assignment
        self.reg_covar = reg_covar
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.random_state = random_state

    def _check_params(self, n):
        check_hyperparameters(self)
        check_within_data(self, "n_components", n, "n_samples")

    def _initial_resp(self, X, w, rng):
        K = self.n_components
        if self.init_params == "kmeans":
            labels = KMeans(n_clusters=K, n_init=1, random_state=rng).fit(X, sample_weight=w).labels_
        else:  # a row of weight 0 is not data
            means = X[rng.choice(np.flatnonzero(w > 0), size=K, replace=False)]
            labels = np.argmin(squared_distances(X, np.einsum("ij,ij->i", X, X), means), axis=1)
        return np.eye(K)[labels]

    def fit(self, X, y=None, sample_weight=None):
        X = check_array(X)
        w = check_sample_weight(sample_weight, X.shape[0])
        self._check_params(int(np.count_nonzero(w)))
        rng = check_random_state(self.random_state)
        # EM is translation-equivariant: run it on centred data (see log_gaussian_density), shift the means back
        centre = w @ X / w.sum()
        Xc = X - centre
        Xc_sq = None if self.covariance_type == "full" else Xc * Xc
        best = None
        for _ in range(self.n_init):
            run = self._em(Xc, Xc_sq, w, self._initial_resp(X, w, rng))
            if best is None or run[1][-1] > best[1][-1]:
                best = run
        (self.weights_, means, self.covariances_), history, self.n_iter_, self.converged_ = best
        if not self.converged_:
            warnings.warn(
                f"GaussianMixture: EM stopped at max_iter={self.max_iter} with the log-likelihood still improving by "
                f"more than tol={self.tol}; increase max_iter",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.means_ = means + centre
        self.n_features_in_ = X.shape[1]
        self.log_likelihood_history_ = np.array(history)
        self.log_likelihood_ = float(history[-1])
        return self

    def _em(self, X, X_sq, w, resp):
        rows = w[:, None]
        params = m_step(X, rows * resp, self.covariance_type, self.reg_covar, X_sq)
        history, converged, n_iter, labels = [], False, 0, None
        for n_iter in range(1, self.max_iter + 1):
            log_resp, log_px = e_step(X, *params, self.covariance_type, X_sq)
            history.append(float(w @ log_px / w.sum()))
            if self.assignment == "soft":
                resp = np.exp(log_resp)
            else:
                previous, labels = labels, np.argmax(log_resp, axis=1)
                if np.array_equal(previous, labels):  # a fixed partition: hard EM has converged exactly
                    converged = True
                    break
                resp = np.eye(self.n_components)[labels]
            params = m_step(X, rows * resp, self.covariance_type, self.reg_covar, X_sq)
            if n_iter > 1 and abs(history[-1] - history[-2]) < self.tol:
                converged = True
                break
        return params, history, n_iter, converged

    def _log_resp(self, X):
        X = check_fitted_X(self, X)
        centre = self.weights_ @ self.means_  # the mixture's mean: keeps the diag / spherical expansion accurate
        return e_step(X - centre, self.weights_, self.means_ - centre, self.covariances_, self.covariance_type)

    def predict_proba(self, X):
        """Responsibilities p(component k | x), rows summing to 1."""
        return np.exp(self._log_resp(X)[0])

    def predict(self, X):
        """The most probable component for each row (hard assignment)."""
        return np.argmax(self._log_resp(X)[0], axis=1).astype(np.int64)

    def score_samples(self, X):
        """log p(x) under the mixture, per row."""
        return self._log_resp(X)[1]

    def score(self, X, y=None):
        """Average log-likelihood per row."""
        return float(np.mean(self.score_samples(X)))
