"""Nystroem approximation: explicit features z(x) with z(x)^T z(y) ~ k(x, y), so linear models scale like kernel ones.

With m landmarks x_l sampled from the training rows, K ~ K_nm K_mm^{-1} K_mn, hence z(x) = K_mm^{-1/2} kappa_m(x)
(kappa_m(x)_l = k(x, x_l)); K_mm^{-1/2} from its eigendecomposition, eigenvalues floored at 1e-12 as a
pseudo-inverse square root. With every training row as a landmark the approximation is exact on them.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..base import BaseEstimator, TransformerMixin, check_array, check_fitted_X, check_random_state
from ..base.constraints import RANDOM_STATE, check_hyperparameters, positive_int
from ._params import KERNEL_CONSTRAINTS, KernelParamsMixin


class Nystroem(KernelParamsMixin, TransformerMixin, BaseEstimator):
    """Nystroem features: an explicit map whose inner products approximate the kernel, from m landmark rows.

    Parameters
    ----------
    n_components : int, default 100
        Number of landmarks m (at most n).
    kernel : {"rbf", "exponential", "linear", "poly", "sigmoid", "inverse_multiquadric"}, default "rbf"
        The Mercer kernel (mllib.kernels).
    gamma : "scale", "auto" or float, default "scale"
        "scale": the length scale l = sqrt(n_features Var(X)) (gamma = 1 / l^2 for the rbf, 1 / l for the exponential);
        "auto": the same with Var(X) = 1; or a positive number.
    degree : int, default 3
        Degree of the poly kernel.
    coef0 : float, default 1.0
        The constant of the poly / sigmoid kernels and c > 0 of the inverse multiquadric.
    random_state : int, Generator or None, default 0
        Seeds the landmarks (drawn without replacement).

    Attributes
    ----------
    components_ : ndarray of shape (m, d)
        The landmarks.
    component_indices_ : ndarray
        The landmarks' indices among the training rows.
    normalization_ : ndarray
        K_mm^{-1/2}.
    kernel_params_ : dict
        The kernel's hyperparameters resolved on the training X.
    """

    _constraints = {**KERNEL_CONSTRAINTS, "n_components": positive_int(), "random_state": RANDOM_STATE}

    def __init__(
        self,
        n_components: int = 100,
        kernel: str = "rbf",
        gamma="scale",
        degree: int = 3,
        coef0: float = 1.0,
        random_state=0,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.random_state = random_state

    def fit(self, X, y=None):
        X = check_array(X)
        check_hyperparameters(self)
        n_components = self.n_components
        rng = check_random_state(self.random_state)
        m = min(n_components, X.shape[0])
        self.component_indices_ = np.sort(rng.choice(X.shape[0], size=m, replace=False))
        self.components_ = X[self.component_indices_]
        self._resolve_kernel(X)
        eigenvalues, U = linalg.eigh(self._gram(self.components_))
        self.normalization_ = np.ascontiguousarray((U / np.sqrt(np.maximum(eigenvalues, 1e-12))) @ U.T)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        return self._gram(X, self.components_) @ self.normalization_.T

    def get_feature_names_out(self, input_features=None):
        return np.array([f"nystroem{j}" for j in range(self.components_.shape[0])], dtype=object)
