"""Ordinary least squares and ridge regression with an unpenalised intercept.

OLS (seed 002, lines 318-352; seed 000, lines 4074-4111): minimise ||y - X beta||^2, normal equations
X^T X beta = X^T y, solved by lstsq (SVD, minimum-norm slopes for collinear columns), never an explicit inverse.
Ridge (seed 002, lines 485-513; seed 000, lines 4112-4141): minimise ||y - b0 - X beta||^2 + lam ||beta||^2,
beta = (X^T X + lam I)^{-1} X^T y on centred data, so b0 is not shrunk (seed 002 catalogue R4). Its effective
degrees of freedom df(lam) = sum_j d_j^2 / (d_j^2 + lam), d_j^2 the eigenvalues of the centred X^T X (line 507).
Both minimise the weighted sum of squares sum_i w_i r_i^2 when sample_weight is given (lam is not rescaled),
which is scikit-learn's convention for LinearRegression and Ridge(alpha=lam).

Sections cited:
- ML 1 lecture notes (seed 000): Linear Regression (4074); → Ridge Regression (4112)
- Machine Learning lecture notes (seed 002): Linear Regression (318); Ridge regression: L_2 -regularization (485)"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..base import BaseEstimator, RegressorMixin, check_fitted_X, check_sample_weight, check_X_y, summed
from ..base.constraints import NON_NEGATIVE, Options, check_hyperparameters
from ._centring import centre, positive_eigenvalues

RIDGE_SOLVERS = ("auto", "cholesky", "svd")


class _LinearPredictor(RegressorMixin, BaseEstimator):
    """predict(X) = X coef_ + intercept_."""

    def predict(self, X):
        X = check_fitted_X(self, X)
        return X @ self.coef_ + self.intercept_


class LinearRegression(_LinearPredictor):
    """Least squares with an intercept; rank-deficient X gets the minimum-norm slopes.

    Attributes
    ----------
    coef_ : ndarray of shape (d,)
        The slopes.
    intercept_ : float
        The intercept.
    rank_ : int
        The numerical rank of the centred design.
    """

    def __init__(self):
        pass

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        w = check_sample_weight(sample_weight, X.shape[0])
        x_mean, y_mean, Xc, yc = centre(X, y, None if sample_weight is None else w)
        # SVD-based lstsq: singular values below max(n, d) * eps * the largest count as zero (collinear columns)
        coef, _, rank, _ = linalg.lstsq(Xc, yc, cond=max(X.shape) * np.finfo(np.float64).eps, check_finite=False)
        self.n_features_in_ = X.shape[1]
        self.coef_ = coef
        self.intercept_ = y_mean - float(x_mean @ coef)
        self.rank_ = int(rank)
        return self


class Ridge(_LinearPredictor):
    """L2-penalised least squares, intercept not penalised.

    Parameters
    ----------
    lam : float, default 1.0
        Penalty lambda >= 0 (scikit-learn's Ridge(alpha=lam)); lam = 0 is OLS.
    solver : {"auto", "cholesky", "svd"}, default "auto"
        "cholesky" solves (X^T X + lam I) beta = X^T y; "svd" uses X = U D V^T, beta = V D/(D^2 + lam) U^T y (stable for
        lam = 0 with collinear columns); "auto" is svd for lam = 0, otherwise cholesky, falling back to svd if X^T X +
        lam I is numerically singular.

    Attributes
    ----------
    coef_ : ndarray
        The slopes.
    intercept_ : float
        The intercept.
    effective_degrees_of_freedom_ : float
        df(lam) (= the rank of X at lam = 0).
    """

    _constraints = {"lam": NON_NEGATIVE, "solver": Options(RIDGE_SOLVERS)}

    def __init__(self, lam: float = 1.0, solver: str = "auto"):
        self.lam = lam
        self.solver = solver

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        check_hyperparameters(self)
        w = check_sample_weight(sample_weight, X.shape[0])
        x_mean, y_mean, Xc, yc = centre(X, y, None if sample_weight is None else w)
        lam = float(self.lam)
        coef = d2 = None
        if self.solver == "cholesky" or (self.solver == "auto" and lam > 0):
            coef, d2 = self._cholesky(Xc.T @ Xc, Xc.T @ yc, lam)
        if coef is None:
            U, d, Vt = linalg.svd(Xc, full_matrices=False, check_finite=False)
            keep = d > d.size * np.finfo(np.float64).eps * d.max(initial=0.0)  # zero directions stay out of beta
            U, d, Vt = U[:, keep], d[keep], Vt[keep]
            coef = Vt.T @ (d / (d**2 + lam) * (U.T @ yc))
            d2 = d**2
        return self._set_fitted(X.shape[1], coef, d2, x_mean, y_mean, lam)

    def fit_blocks(self, blocks):
        """The same model from rows held in blocks (mllib.base.RowBlocks, or a cluster's: a block is (X, y,
        sample_weight or None)): two passes, the weighted means from the blocks' sums, then the centred Gram matrix
        Xc^T Xc and Xc^T yc summed over the blocks (centring before the products keeps fit's accuracy), so memory
        holds a block at a time. lam = 0 (or a singular system) solves by the Gram matrix's eigenvectors, fit's SVD
        in exact arithmetic."""
        check_hyperparameters(self)
        n, x_sum, y_sum = summed(blocks.map(_weighted_sums))
        x_mean, y_mean = x_sum / n, float(y_sum / n)
        G, r = summed(blocks.map(_centred_products, x_mean, y_mean))
        lam = float(self.lam)
        coef = d2 = None
        if self.solver == "cholesky" or (self.solver == "auto" and lam > 0):
            coef, d2 = self._cholesky(G, r, lam)
        if coef is None:
            values, vectors = linalg.eigh(G, check_finite=False)
            keep = values > values.size * np.finfo(np.float64).eps * max(float(values.max(initial=0.0)), 0.0)
            values, vectors = values[keep], vectors[:, keep]
            coef = vectors @ ((vectors.T @ r) / (values + lam))
            d2 = values
        return self._set_fitted(G.shape[0], coef, d2, x_mean, y_mean, lam)

    def _cholesky(self, G, r, lam):
        """(beta, the Gram matrix's positive eigenvalues) from (G + lam I) beta = r; (None, None) when singular
        under solver auto (the caller's fallback)."""
        try:
            factor = linalg.cho_factor(G + lam * np.eye(G.shape[0]), check_finite=False)
            return linalg.cho_solve(factor, r, check_finite=False), positive_eigenvalues(
                linalg.eigvalsh(G, check_finite=False)
            )
        except linalg.LinAlgError:
            if self.solver == "cholesky":
                raise ValueError(
                    "X^T X + lam I is singular (lam = 0 with collinear columns); use solver='svd' or 'auto', or lam > 0"
                ) from None
            return None, None

    def _set_fitted(self, n_features, coef, d2, x_mean, y_mean, lam):
        self.n_features_in_ = n_features
        self.coef_ = coef
        self.intercept_ = y_mean - float(x_mean @ coef)
        self.effective_degrees_of_freedom_ = float(np.sum(d2 / (d2 + lam)))
        return self


def _weighted_sums(block):
    """A block's (sum of weights, weighted sums of X and of y)."""
    X, y, w = block
    X, y = check_X_y(X, y, y_numeric=True)
    w = check_sample_weight(w, X.shape[0])
    return w.sum(), w @ X, w @ y


def _centred_products(block, x_mean, y_mean):
    """A block's Xc^T Xc and Xc^T yc, rows centred by the means of all rows and scaled by sqrt(w)."""
    X, y, w = block
    X, y = check_X_y(X, y, y_numeric=True)
    root = np.sqrt(check_sample_weight(w, X.shape[0]))
    Xc = (X - x_mean) * root[:, None]
    yc = (y - y_mean) * root
    return Xc.T @ Xc, Xc.T @ yc
