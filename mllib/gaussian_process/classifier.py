"""Gaussian-process classification with the Laplace approximation (binary; one-vs-rest for more classes).

Seed 002 G4, lines 2514-2527 ("iterate GP estimation on a re-weighted data set"), made explicit by Rasmussen &
Williams, Algorithms 3.1-3.2, for p(y = 1 | f) = sigmoid(f), prior f ~ GP(0, s k), labels t in {0, 1}:
  mode:  repeat  pi = sigmoid(f), W = pi (1 - pi), B = I + W^1/2 K W^1/2 = L L^T, b = W f + t - pi,
                 a = b - W^1/2 L^-T L^-1 W^1/2 K b,  f = K a   (Newton's method on log p(t|f) - 1/2 f^T K^-1 f),
         a step that lowers the objective is halved until it raises it (not in Alg. 3.1: full Newton steps need
         not ascend, and with a large amplitude K is ill-conditioned and they can run away);
  predict: mean f*(x) = kappa(x)^T (t - pi), variance s k(x, x) - v^T v with v = L^-1 W^1/2 kappa(x);
           p(y = 1 | x) ~ sigmoid(f* / sqrt(1 + pi var / 8)) (probit approximation, seed 002 G3, line 2508 corrected).
O(n^3): on more than n_max rows the model is fitted on a random subsample of n_max rows (random_state).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg
from scipy.special import expit

from ..base import BaseEstimator, ClassifierMixin, ConvergenceWarning, check_fitted_X, check_random_state, check_X_y
from ..base.constraints import POSITIVE, RANDOM_STATE, check_hyperparameters, positive_int
from ..kernels import KERNEL_CONSTRAINTS, KernelParamsMixin, kernel_diagonal


class GaussianProcessClassifier(KernelParamsMixin, ClassifierMixin, BaseEstimator):
    """Gaussian process classifier by the Laplace approximation (one-vs-rest for more than two classes).

    Parameters
    ----------
    amplitude : float, default 1.0
        Prior variance s of the latent function (kernel s k).
    kernel : {"rbf", "exponential", "linear", "poly", "sigmoid", "inverse_multiquadric"}, default "rbf"
        The Mercer kernel (mllib.kernels).
    gamma : "scale", "auto" or float, default "scale"
        "scale": the length scale l = sqrt(n_features Var(X)) (gamma = 1 / l^2 for the rbf, 1 / l for the exponential);
        "auto": the same with Var(X) = 1; or a positive number.
    degree : int, default 3
        Degree of the poly kernel.
    coef0 : float, default 1.0
        The constant of the poly / sigmoid kernels and c > 0 of the inverse multiquadric.
    max_iter : int, default 100
        Newton iterations of the Laplace mode (a UserWarning if max_iter comes first).
    tol : float, default 1e-10
        Stop when the Laplace objective log p(t|f) - 1/2 a^T f improves by less than tol.
    n_max : int, default 2000
        Training rows used at most (a random subsample of larger data: the exact GP costs O(n^3)).
    random_state : int, Generator or None, default 0
        Seeds the subsample.

    Attributes
    ----------
    X_train_ : ndarray
        The training rows used (at most n_max).
    latent_mode_ : ndarray of shape (n_problems, n)
        The Laplace mode of the latent function.
    residual_ : ndarray of shape (n_problems, n)
        t - pi.
    W_sqrt_ : ndarray of shape (n_problems, n)
        W^1/2, with W = pi (1 - pi).
    L_ : ndarray of shape (n_problems, n, n)
        The lower Cholesky factor L of B = I + W^1/2 K W^1/2 = L L^T.
    log_marginal_likelihood_value_ : ndarray of shape (n_problems,)
        The log evidence of each binary problem (Laplace approximation).
    kernel_params_ : dict
        The kernel's hyperparameters resolved on the training X.
    """

    _constraints = {
        **KERNEL_CONSTRAINTS,
        "amplitude": POSITIVE,
        "max_iter": positive_int(),
        "n_max": positive_int(),
        "tol": POSITIVE,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        amplitude: float = 1.0,
        kernel: str = "rbf",
        gamma="scale",
        degree: int = 3,
        coef0: float = 1.0,
        max_iter: int = 100,
        tol: float = 1e-10,
        n_max: int = 2000,
        random_state=0,
    ):
        self.amplitude = amplitude
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.max_iter = max_iter
        self.tol = tol
        self.n_max = n_max
        self.random_state = random_state

    def fit(self, X, y):
        X, y = check_X_y(X, y)
        check_hyperparameters(self)
        encoded = self._encode_targets(y)
        if X.shape[0] > self.n_max:
            keep = np.sort(check_random_state(self.random_state).choice(X.shape[0], self.n_max, replace=False))
            X, encoded = X[keep], encoded[keep]
        self._resolve_kernel(X)
        K = self.amplitude * self._gram(X)
        positives = [1] if self.classes_.size == 2 else range(self.classes_.size)
        fits = [_laplace_mode(K, (encoded == k).astype(float), self.max_iter, self.tol) for k in positives]
        self.latent_mode_, self.residual_, self.W_sqrt_, self.L_, evidence, converged = map(np.array, zip(*fits))
        if not converged.all():
            warnings.warn(
                f"GaussianProcessClassifier: the Newton iteration for the Laplace mode was still improving "
                f"the objective by more than tol={self.tol} after max_iter={self.max_iter} steps; increase "
                "max_iter (a large amplitude needs more steps)",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.log_marginal_likelihood_value_ = evidence
        self.X_train_ = X
        self.n_features_in_ = X.shape[1]
        return self

    def latent(self, X):
        """Posterior mean and variance of the latent f(x) under the Laplace approximation, each (n, n_problems)."""
        X = check_fitted_X(self, X)
        kappa = self.amplitude * self._gram(X, self.X_train_)
        prior_var = self.amplitude * kernel_diagonal(X, self.kernel, **self.kernel_params_)
        mean = kappa @ self.residual_.T
        var = np.empty_like(mean)
        for k in range(self.residual_.shape[0]):
            v = linalg.solve_triangular(self.L_[k], self.W_sqrt_[k][:, None] * kappa.T, lower=True)
            var[:, k] = np.maximum(prior_var - np.einsum("ij,ij->j", v, v), 0.0)
        return mean, var

    def decision_function(self, X):
        """The latent posterior mean f*(x): binary (n,), multiclass (n, K) one-vs-rest."""
        mean, _ = self.latent(X)
        return mean[:, 0] if self.classes_.size == 2 else mean

    def predict_proba(self, X):
        p = probit_approximation(*self.latent(X))
        if self.classes_.size == 2:
            return np.column_stack([1.0 - p[:, 0], p[:, 0]])
        return p / p.sum(axis=1, keepdims=True)


def probit_approximation(mean, var):
    """p(y = 1) = integral sigmoid(f) N(f | mean, var) df ~ sigmoid(mean / sqrt(1 + pi var / 8)) (seed 002 G3)."""
    return expit(np.asarray(mean) / np.sqrt(1.0 + np.pi * np.asarray(var) / 8.0))


# halvings of a Newton step before the objective counts as maximal to rounding (2^-40 of the step)
_MAX_HALVINGS = 40


def _laplace_objective(a, f, t) -> float:
    """log p(t | f) - 1/2 f^T K^-1 f with f = K a; log p(t | f) = -sum log(1 + exp(-(2t - 1) f)) (no overflow)."""
    return float(-0.5 * a @ f - np.logaddexp(0.0, -(2 * t - 1) * f).sum())


def _laplace_mode(K, t, max_iter, tol):
    """Algorithm 3.1 with step halving: Newton iterations for the mode of p(f | t).

    Returns (f, t - pi, W^1/2, L, log evidence, converged)."""
    n = t.size
    a, f = np.zeros(n), np.zeros(n)
    objective = _laplace_objective(a, f, t)
    converged = False
    for _ in range(max_iter):
        pi = expit(f)
        W = pi * (1.0 - pi)
        W_sqrt = np.sqrt(W)
        L = linalg.cholesky(np.eye(n) + W_sqrt[:, None] * K * W_sqrt[None, :], lower=True)
        b = W * f + (t - pi)
        step = b - W_sqrt * linalg.cho_solve((L, True), W_sqrt * (K @ b)) - a
        K_step = K @ step
        for _ in range(_MAX_HALVINGS):
            new = _laplace_objective(a + step, f + K_step, t)
            if new >= objective:
                break
            step *= 0.5
            K_step *= 0.5
        else:  # no fraction of the Newton step raises the objective: f is the mode to rounding
            converged = True
            break
        a, f, objective, improvement = a + step, f + K_step, new, new - objective
        if improvement < tol:
            converged = True
            break
    # the returned quantities belong to the final f (so prediction uses the mode, not the previous iterate)
    pi = expit(f)
    W_sqrt = np.sqrt(pi * (1.0 - pi))
    L = linalg.cholesky(np.eye(n) + W_sqrt[:, None] * K * W_sqrt[None, :], lower=True)
    evidence = objective - np.log(np.diag(L)).sum()
    return f, t - pi, W_sqrt, L, evidence, converged
