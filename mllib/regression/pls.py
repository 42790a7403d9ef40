"""Partial least squares regression by NIPALS, with predictions and scores for new data.

Seed 002, lines 1236-1282 (Hastie 3.5.2): from centred X, each component takes the direction of X most correlated
with the response, z = X X^T y, regresses y on z and deflates every column of X by its projection on z; the z_i are
mutually orthogonal. NIPALS computes the same components and, for several targets Y, finds the pair of weight
vectors (w, c) by alternating regressions until w stops changing (one pass suffices for a single target):
    w = X^T u / ||X^T u||,  t = X w,  c = Y^T t / t^T t,  u = Y c / c^T c;
then loadings p = X^T t / t^T t and deflation X <- X - t p^T, Y <- Y - t c^T.
New data (catalogue P4 "predicting on new data"): scores T = (X - xbar) R with rotations R = W (P^T W)^{-1}, and
predictions ybar + (X - xbar) R C^T. X is centred, not scaled (scikit-learn's PLSRegression(scale=False)).
Sample weights w_i: every NIPALS step is an inner product over rows (X^T u, Y^T t, t^T t, X^T t), so weighted PLS
(weighted means, cross-products sum_i w_i x_i y_i) is PLS of the weighted-centred rows scaled by sqrt(w_i).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..base import (
    BaseEstimator,
    RegressorMixin,
    check_array,
    check_fitted_X,
    check_rows,
    check_sample_weight,
    check_within_data,
    check_X_y,
)
from ..base.constraints import NON_NEGATIVE, check_hyperparameters, positive_int
from ._centring import centre


def _nipals_weights(X, Y, max_iter, tol):
    """The X weight vector w of the next component of the deflated X and Y (unit norm)."""
    u = Y[:, np.argmax(np.var(Y, axis=0))]
    w = np.zeros(X.shape[1])
    for _ in range(max_iter):
        w_new = X.T @ u
        w_new /= np.linalg.norm(w_new)
        t = X @ w_new
        c = Y.T @ t / (t @ t)
        u = Y @ c / (c @ c)
        converged = Y.shape[1] == 1 or np.sum((w_new - w) ** 2) < tol
        w = w_new
        if converged:
            break
    return w


class PLSRegression(RegressorMixin, BaseEstimator):
    """PLS regression with n_components latent scores; y may be 1-D (predict returns 1-D) or (n, m). Components stop
    early (n_components_ < n_components) when the deflated X or Y is exhausted, i.e. X^T Y = 0.

    Parameters
    ----------
    n_components : int, default 2
        Number of latent components.
    max_iter : int, default 500
        Power iterations per component (NIPALS) for a multi-column Y.
    tol : float, default 1e-06
        Stop a component's iterations when the squared change of its weight vector is below tol.

    Attributes
    ----------
    x_mean_ : ndarray
        The column means of X.
    y_mean_ : ndarray
        The column means of Y.
    x_weights_ : ndarray
        W.
    x_loadings_ : ndarray
        P.
    y_loadings_ : ndarray
        C.
    x_rotations_ : ndarray
        R.
    coef_ : ndarray of shape (d,) or (d, m)
        The coefficients.
    intercept_ : float or ndarray
        The intercept (one per column of a 2-D y).
    n_components_ : int
        The number of components fitted.
    """

    _constraints = {"n_components": positive_int(), "max_iter": positive_int(), "tol": NON_NEGATIVE}

    def __init__(self, n_components: int = 2, max_iter: int = 500, tol: float = 1e-6):
        self.n_components = n_components
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True) if np.ndim(y) == 1 else (check_array(X), check_array(y, name="y"))
        check_rows(X=X, y=y)
        check_hyperparameters(self)
        n, d = X.shape
        check_within_data(self, "n_components", min(n, d), "min(n_samples, n_features)")
        row_weights = None if sample_weight is None else check_sample_weight(sample_weight, n)
        self.x_mean_, self.y_mean_, Xk, Yk = centre(X, y.reshape(n, -1), row_weights)
        W, P, C = [], [], []
        # a component whose cross-covariance X^T Y is at rounding level would only fit noise
        floor = 1e3 * np.finfo(np.float64).eps * max(np.linalg.norm(Xk.T @ Yk), np.finfo(np.float64).tiny)
        for _ in range(self.n_components):
            if np.linalg.norm(Xk.T @ Yk) <= floor:
                break
            w = _nipals_weights(Xk, Yk, self.max_iter, self.tol)
            t = Xk @ w
            tt = t @ t
            p, c = Xk.T @ t / tt, Yk.T @ t / tt
            Xk -= np.outer(t, p)
            Yk -= np.outer(t, c)
            W.append(w)
            P.append(p)
            C.append(c)
        self.n_features_in_ = d
        self.n_components_ = len(W)
        self.x_weights_, self.x_loadings_, self.y_loadings_ = np.array(W).T, np.array(P).T, np.array(C).T
        self.x_rotations_ = self.x_weights_ @ linalg.solve(self.x_loadings_.T @ self.x_weights_, np.eye(len(W)))
        coef = self.x_rotations_ @ self.y_loadings_.T
        intercept = self.y_mean_ - self.x_mean_ @ coef
        if y.ndim == 1:
            coef, intercept = coef[:, 0], float(intercept[0])
        self.coef_, self.intercept_ = coef, intercept
        return self

    def predict(self, X):
        X = check_fitted_X(self, X)
        return X @ self.coef_ + self.intercept_

    def transform(self, X):
        """The latent scores T = (X - xbar) R of X, one column per component."""
        X = check_fitted_X(self, X)
        return (X - self.x_mean_) @ self.x_rotations_

    def get_feature_names_out(self, input_features=None):
        return [f"pls{k}" for k in range(self.n_components_)]
