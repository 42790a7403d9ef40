"""Kernel PCA: PCA of phi(x) through the eigenvectors of the centred Gram matrix.

Seed 002 P3, lines 1161-1176, 1203-1234: K~ = (I - 11^T/n) K (I - 11^T/n), K~ a_j = lambda_j a_j; the
feature-space direction v_j = sum_i a_ji phi~(x_i) has unit norm when a_j is scaled by 1/sqrt(lambda_j)
(missing from the notes). A new point is centred with the training statistics,
kappa~(x) = kappa(x) - mean_i K_i. - mean(kappa(x)) + mean(K), and projected as z_j(x) = kappa~(x)^T a_j /
sqrt(lambda_j).
Training scores are then sqrt(lambda_j) a_j, with variance lambda_j / n.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..base import BaseEstimator, TransformerMixin, check_array, check_fitted_X
from ..base.constraints import check_hyperparameters, positive_int
from ._params import KERNEL_CONSTRAINTS, KernelParamsMixin


class KernelPCA(KernelParamsMixin, TransformerMixin, BaseEstimator):
    """Kernel PCA: the leading eigenvectors of the centred Gram matrix. Signs: each component is oriented so its
    largest-|.| training coefficient is positive (deterministic).

    Parameters
    ----------
    n_components : int, default 10
        Leading components kept (at most the number of positive eigenvalues).
    kernel : {"rbf", "exponential", "linear", "poly", "sigmoid", "inverse_multiquadric"}, default "rbf"
        The Mercer kernel (mllib.kernels).
    gamma : "scale", "auto" or float, default "scale"
        "scale": the length scale l = sqrt(n_features Var(X)) (gamma = 1 / l^2 for the rbf, 1 / l for the exponential);
        "auto": the same with Var(X) = 1; or a positive number.
    degree : int, default 3
        Degree of the poly kernel.
    coef0 : float, default 1.0
        The constant of the poly / sigmoid kernels and c > 0 of the inverse multiquadric.

    Attributes
    ----------
    eigenvalues_ : ndarray
        The eigenvalues lambda_j of K~.
    alphas_ : ndarray of shape (n_train, k)
        a_j / sqrt(lambda_j).
    X_fit_ : ndarray
        The training rows.
    K_fit_rows_ : ndarray
        The column means of K.
    K_fit_all_ : float
        The mean of K.
    kernel_params_ : dict
        The kernel's hyperparameters resolved on the training X.
    """

    _constraints = {**KERNEL_CONSTRAINTS, "n_components": positive_int()}

    def __init__(self, n_components: int = 10, kernel: str = "rbf", gamma="scale", degree: int = 3, coef0: float = 1.0):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X, y=None):
        X = check_array(X)
        check_hyperparameters(self)
        self._resolve_kernel(X)
        K = self._gram(X)
        rows = K.mean(axis=0)
        total = rows.mean()
        Kc = K - rows[None, :] - rows[:, None] + total
        n = X.shape[0]
        k = min(int(self.n_components), n)
        eigenvalues, vectors = linalg.eigh(Kc, subset_by_index=[n - k, n - 1])
        eigenvalues, vectors = eigenvalues[::-1], vectors[:, ::-1]
        # directions with (numerically) zero variance carry no signal; 1/sqrt(lambda) would blow them up
        positive = eigenvalues > 1e-12 * max(1.0, eigenvalues[0])
        eigenvalues, vectors = eigenvalues[positive], vectors[:, positive]
        signs = np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])])
        self.eigenvalues_ = eigenvalues
        self.alphas_ = np.ascontiguousarray(vectors * signs / np.sqrt(eigenvalues))  # C order, as after loading
        self.X_fit_ = X
        self.K_fit_rows_ = rows
        self.K_fit_all_ = float(total)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        K = self._gram(X, self.X_fit_)
        Kc = K - self.K_fit_rows_[None, :] - K.mean(axis=1, keepdims=True) + self.K_fit_all_
        return Kc @ self.alphas_

    def get_feature_names_out(self, input_features=None):
        return np.array([f"kernel_pca{j}" for j in range(self.alphas_.shape[1])], dtype=object)
