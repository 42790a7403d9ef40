"""Kernel hyperparameters shared by the kernel estimators (kernel, gamma, degree, coef0)."""

from __future__ import annotations

import numpy as np

from .functions import gram, gram_dot, kernel_params


class KernelParamsMixin:
    """Resolves the constructor's kernel hyperparameters on the training X into `kernel_params_`."""

    def _resolve_kernel(self, X) -> None:
        self.kernel_params_ = kernel_params(self.kernel, X, self.gamma, self.degree, self.coef0)

    def _gram(self, X, Y=None) -> np.ndarray:
        return gram(X, Y, self.kernel, **self.kernel_params_)

    def _gram_dot(self, X, Y, coef) -> np.ndarray:
        return gram_dot(X, Y, coef, self.kernel, **self.kernel_params_)
