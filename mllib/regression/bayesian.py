"""Bayesian linear regression: Gaussian prior on the slopes, Gaussian noise, closed-form Gaussian posterior.

Model (seed 002, lines 2283-2367; seed 000, lines 4191-4241): y = b0 + x^T beta + eps, eps ~ N(0, 1/beta_noise),
prior beta ~ N(0, I / alpha) (alpha = prior precision) and a flat prior on the intercept b0.
Posterior of the slopes (centred data): N(m, S) with S^{-1} = alpha I + beta_noise Xc^T Xc,
m = beta_noise S Xc^T yc, i.e. the ridge solution with lam = alpha / beta_noise (seed 004, lines 1389-1397).
The intercept is a posteriori independent of the slopes in the centred parametrisation, with variance
1 / (beta_noise sum_i w_i). Predictive for a new x (seed 000 line 4220 corrected to x*^T A^{-1} x*):
f(x) ~ N(b0 + x^T m, 1/(beta_noise n) + (x - xbar)^T S (x - xbar)); the observed y* adds the noise 1/beta_noise.
sample_weight w_i scales the noise precision of row i. The precisions are fixed hyperparameters: the notes do not
teach evidence maximisation, so it is not done here.

Sections cited:
- ML 1 lecture notes (seed 000): → Bayesian Linear Model (4191, 4220)
- Machine Learning lecture notes (seed 002): Ridge regression as Bayesian inference (2283)
- Ghent ML notes (seed 004): 7.3.2 Maximum-A-Priori (MAP) Estimation (1389)"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..base import check_array, check_sample_weight, check_X_y
from ..base.constraints import POSITIVE, check_hyperparameters
from ._centring import centre
from .least_squares import _LinearPredictor


class BayesianLinearRegression(_LinearPredictor):
    """Gaussian posterior over linear coefficients with a predictive standard deviation.

    Parameters
    ----------
    alpha : float, default 1.0
        Prior precision of each slope (> 0).
    beta : float, default 1.0
        Noise precision 1 / sigma^2 (> 0).

    Attributes
    ----------
    coef_ : ndarray
        The posterior mean of the slopes.
    intercept_ : float
        The intercept.
    coef_cov_ : ndarray
        S, the posterior covariance of the slopes.
    intercept_var_ : float
        The posterior variance of the intercept at the centre of the data.
    x_mean_ : ndarray
        The centre of the data: the (weighted) column means of the training rows.
    """

    _constraints = {"alpha": POSITIVE, "beta": POSITIVE}  # precisions of the prior and of the noise

    def __init__(self, alpha: float = 1.0, beta: float = 1.0):
        self.alpha = alpha
        self.beta = beta

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        check_hyperparameters(self)
        w = check_sample_weight(sample_weight, X.shape[0])
        x_mean, y_mean, Xc, yc = centre(X, y, None if sample_weight is None else w)
        precision = self.beta * (Xc.T @ Xc) + self.alpha * np.eye(X.shape[1])
        factor = linalg.cho_factor(precision, check_finite=False)
        self.n_features_in_ = X.shape[1]
        self.coef_ = self.beta * linalg.cho_solve(factor, Xc.T @ yc, check_finite=False)
        self.intercept_ = y_mean - float(x_mean @ self.coef_)
        self.coef_cov_ = linalg.cho_solve(factor, np.eye(X.shape[1]), check_finite=False)
        self.intercept_var_ = float(1.0 / (self.beta * w.sum()))
        self.x_mean_ = x_mean
        return self

    def predict(self, X, return_std: bool = False):
        """Posterior predictive mean; with return_std=True also the predictive std of a new observation y*
        (latent-function variance plus the noise variance 1/beta)."""
        mean = super().predict(X)
        if not return_std:
            return mean
        Xc = check_array(X) - self.x_mean_
        latent_var = self.intercept_var_ + np.sum((Xc @ self.coef_cov_) * Xc, axis=1)
        return mean, np.sqrt(latent_var + 1.0 / self.beta)
