"""Cholesky whitening: z = M^{-1} (x - mu) with A = Var(x) = M M^T, so the training z have identity covariance.

Seed 002, lines 1096-1101 (4:2): A = (1/n) X^T X - mu mu^T (population covariance), Cholesky A = M M^T,
x <- M^{-1} x with Var(M^{-1} x) = I; the notes whiten x itself, we subtract mu first so the training z also have
mean 0 (catalogue P1). M^{-1} is never formed: transform solves the triangular system M z = x - mu.
PCA whitening is the other route: mllib.decomposition.PCA(whiten=True).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..base import BaseEstimator, TransformerMixin, check_array, check_fitted_X
from ..base.constraints import NON_NEGATIVE, check_hyperparameters


class CholeskyWhitening(TransformerMixin, BaseEstimator):
    """x -> M^{-1} (x - mean), M the lower Cholesky factor of the training covariance A: whitened rows have identity
    covariance.

    Parameters
    ----------
    reg : float, default 0.0
        Ridge added to the covariance as a fraction of its mean variance, A + reg * (tr A / d) I. With reg = 0 (exact
        whitening) a singular covariance (constant or collinear columns, e.g. a full one-hot block) is an error; a small
        reg such as 1e-6 whitens it approximately instead.

    Attributes
    ----------
    mean_ : ndarray
        The column means of the training rows.
    covariance_ : ndarray
        A, the regularised training covariance.
    cholesky_ : ndarray
        M, its lower-triangular Cholesky factor.
    """

    _constraints = {"reg": NON_NEGATIVE}

    def __init__(self, reg: float = 0.0):
        self.reg = reg

    def fit(self, X, y=None):
        check_hyperparameters(self)
        X = check_array(X)
        self.n_features_in_ = X.shape[1]
        self.mean_ = X.mean(axis=0)
        Xc = X - self.mean_
        A = Xc.T @ Xc / X.shape[0]
        A += self.reg * np.trace(A) / A.shape[0] * np.eye(A.shape[0])
        try:
            M = linalg.cholesky(A, lower=True)
        except linalg.LinAlgError:
            M = None
        # a pivot that is zero up to rounding means a direction without variance: z would be noise times 1e16
        if M is None or np.diag(M).min() ** 2 <= 1e-12 * max(np.diag(A).max(), np.finfo(float).tiny):
            raise ValueError(
                "the covariance of X is singular (a constant column or collinear columns); "
                "drop them or set reg > 0, e.g. reg=1e-6"
            )
        self.covariance_ = A
        self.cholesky_ = M
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        return linalg.solve_triangular(self.cholesky_, (X - self.mean_).T, lower=True).T

    def inverse_transform(self, Z):
        Z = check_fitted_X(self, Z, name="Z")
        return Z @ self.cholesky_.T + self.mean_
