"""Kernel ridge regression: ridge regression in feature space, solved in its dual.

f(x) = sum_i alpha_i k(x, x_i) with alpha = (K + lambda I)^{-1} y (seed 000 L3, lines 4142-4190; seed 002 R7,
lines 590-638, push-through identity (X^T X + lambda I)^{-1} X^T y = X^T (X X^T + lambda I)^{-1} y).
No intercept (as in the notes): centre y, or add a constant to the kernel (poly with coef0 > 0).
Sample weights minimise sum_i w_i (y_i - f(x_i))^2 + lambda ||f||^2: with S = diag(sqrt(w)),
alpha = S (S K S + lambda I)^{-1} S y.

Sections cited: ML 1 lecture notes (seed 000): ML 1 (3)"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..base import BaseEstimator, RegressorMixin, check_fitted_X, check_sample_weight, check_X_y
from ..base.constraints import POSITIVE, check_hyperparameters
from ._params import KERNEL_CONSTRAINTS, KernelParamsMixin


class KernelRidge(KernelParamsMixin, RegressorMixin, BaseEstimator):
    """Kernel ridge regression: the dual solution (K + lambda I) a = y.

    Parameters
    ----------
    alpha : float, default 1.0
        Ridge strength lambda > 0.
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
    dual_coef_ : ndarray of shape (n_train,)
        The dual solution a.
    X_fit_ : ndarray
        The training rows the prediction sums over.
    kernel_params_ : dict
        The kernel's hyperparameters resolved on the training X.
    """

    _constraints = {**KERNEL_CONSTRAINTS, "alpha": POSITIVE}  # the ridge strength lambda

    def __init__(self, alpha: float = 1.0, kernel: str = "rbf", gamma="scale", degree: int = 3, coef0: float = 1.0):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        check_hyperparameters(self)
        s = np.sqrt(check_sample_weight(sample_weight, X.shape[0]))
        self._resolve_kernel(X)
        A = self._gram(X) * s[:, None] * s[None, :]
        A[np.diag_indices_from(A)] += self.alpha
        self.dual_coef_ = s * linalg.cho_solve(linalg.cho_factor(A, lower=True), s * y)
        self.X_fit_ = X
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        X = check_fitted_X(self, X)
        return self._gram_dot(X, self.X_fit_, self.dual_coef_)
