"""Gaussian-process regression: the posterior of f ~ GP(0, s k) given y = f(x) + noise, noise ~ N(0, sigma^2).

Seed 002 G2, lines 2369-2458 (and seed 000 L5, lines 4242-4276): with K_ij = s k(x_i, x_j), kappa(x)_i = s k(x, x_i),
    mean     f_bar(x) = kappa(x)^T (K + sigma^2 I)^{-1} y            (= kernel ridge with lambda = sigma^2),
    variance var f(x) = s k(x, x) - kappa(x)^T (K + sigma^2 I)^{-1} kappa(x)   (add sigma^2 for a noisy y).
Computed with the Cholesky factor K + sigma^2 I = L L^T. Log marginal likelihood (Rasmussen & Williams eq. 2.30):
    log p(y | X) = -1/2 y^T (K + sigma^2 I)^{-1} y - sum_i log L_ii - n/2 log 2 pi;
optionally maximised over (log s, log sigma^2, log gamma) by L-BFGS-B (not in the notes).

Sections cited: ML 1 lecture notes (seed 000): ML 1 (5)"""

from __future__ import annotations

import numpy as np
from scipy import linalg, optimize

from ..base import BaseEstimator, RegressorMixin, check_fitted_X, check_is_fitted, check_X_y
from ..base.constraints import BOOLEAN, POSITIVE_FINITE, check_hyperparameters
from ..kernels import KERNEL_CONSTRAINTS, KernelParamsMixin, gram, kernel_diagonal

# search box for the optimised log-hyperparameters
_LOG_BOUNDS = (np.log(1e-6), np.log(1e6))


class GaussianProcessRegressor(KernelParamsMixin, RegressorMixin, BaseEstimator):
    """Gaussian process regression: the exact posterior mean and variance, optionally with the marginal likelihood
    maximised.

    Parameters
    ----------
    alpha : float, default 0.01
        Noise variance sigma^2 added to the diagonal (> 0).
    amplitude : float, default 1.0
        Signal variance s multiplying the kernel.
    kernel : {"rbf", "exponential", "linear", "poly", "sigmoid", "inverse_multiquadric"}, default "rbf"
        The Mercer kernel (mllib.kernels).
    gamma : "scale", "auto" or float, default "scale"
        "scale": the length scale l = sqrt(n_features Var(X)) (gamma = 1 / l^2 for the rbf, 1 / l for the exponential);
        "auto": the same with Var(X) = 1; or a positive number.
    degree : int, default 3
        Degree of the poly kernel.
    coef0 : float, default 1.0
        The constant of the poly / sigmoid kernels and c > 0 of the inverse multiquadric.
    optimize : bool, default False
        Maximise the log marginal likelihood over amplitude, alpha and gamma (for kernels with a gamma), starting from
        the given values.

    Attributes
    ----------
    X_train_ : ndarray
        The training rows.
    dual_coef_ : ndarray
        (K + sigma^2 I)^{-1} y.
    L_ : ndarray
        The lower Cholesky factor.
    amplitude_ : float
        The signal variance s (the log marginal likelihood's maximiser when optimize).
    noise_ : float
        The noise variance sigma^2 (the log marginal likelihood's maximiser when optimize).
    kernel_params_ : dict
        The kernel's hyperparameters resolved on the training X.
    log_marginal_likelihood_value_ : float
        The log marginal likelihood of the fit.
    """

    _constraints = {**KERNEL_CONSTRAINTS, "alpha": POSITIVE_FINITE, "amplitude": POSITIVE_FINITE, "optimize": BOOLEAN}

    def __init__(
        self,
        alpha: float = 1e-2,
        amplitude: float = 1.0,
        kernel: str = "rbf",
        gamma="scale",
        degree: int = 3,
        coef0: float = 1.0,
        optimize: bool = False,
    ):
        self.alpha = alpha
        self.amplitude = amplitude
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.optimize = optimize

    def fit(self, X, y):
        X, y = check_X_y(X, y, y_numeric=True)
        check_hyperparameters(self)
        self._resolve_kernel(X)
        self.amplitude_, self.noise_ = float(self.amplitude), float(self.alpha)
        if self.optimize:
            self._maximise_evidence(X, y)
        K = self.amplitude_ * self._gram(X)
        K[np.diag_indices_from(K)] += self.noise_
        self.L_ = np.ascontiguousarray(linalg.cholesky(K, lower=True))
        self.dual_coef_ = linalg.cho_solve((self.L_, True), y)
        self.log_marginal_likelihood_value_ = _log_evidence(self.L_, y, self.dual_coef_)
        self.X_train_ = X
        self.n_features_in_ = X.shape[1]
        return self

    def _maximise_evidence(self, X, y):
        has_gamma = "gamma" in self.kernel_params_
        start = [np.log(self.amplitude_), np.log(self.noise_)] + (
            [np.log(self.kernel_params_["gamma"])] if has_gamma else []
        )

        def negative_evidence(theta):
            params = dict(self.kernel_params_, **({"gamma": np.exp(theta[2])} if has_gamma else {}))
            K = np.exp(theta[0]) * gram(X, None, self.kernel, **params)
            K[np.diag_indices_from(K)] += np.exp(theta[1])
            try:
                L = linalg.cholesky(K, lower=True)
            except linalg.LinAlgError:
                return np.inf
            return -_log_evidence(L, y, linalg.cho_solve((L, True), y))

        result = optimize.minimize(
            negative_evidence, np.array(start), method="L-BFGS-B", bounds=[_LOG_BOUNDS] * len(start)
        )
        self.amplitude_, self.noise_ = float(np.exp(result.x[0])), float(np.exp(result.x[1]))
        if has_gamma:
            self.kernel_params_ = dict(self.kernel_params_, gamma=float(np.exp(result.x[2])))

    def predict(self, X, return_std: bool = False):
        """Posterior mean of f(x); with return_std, also the posterior std of f(x) (noise excluded)."""
        X = check_fitted_X(self, X)
        kappa = self.amplitude_ * self._gram(X, self.X_train_)
        mean = kappa @ self.dual_coef_
        if not return_std:
            return mean
        v = linalg.solve_triangular(self.L_, kappa.T, lower=True)
        var = self.amplitude_ * kernel_diagonal(X, self.kernel, **self.kernel_params_) - np.einsum("ij,ij->j", v, v)
        return mean, np.sqrt(np.maximum(var, 0.0))  # rounding can push a tiny variance below 0

    def log_marginal_likelihood(self) -> float:
        check_is_fitted(self)
        return self.log_marginal_likelihood_value_


def _log_evidence(L, y, dual_coef):
    return float(-0.5 * y @ dual_coef - np.log(np.diag(L)).sum() - 0.5 * y.size * np.log(2 * np.pi))
