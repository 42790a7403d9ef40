"""Kernel hyperparameters shared by the kernel estimators (kernel, gamma, degree, coef0)."""

from __future__ import annotations

import numpy as np

from ..base.constraints import FINITE, OPTIONAL, POSITIVE_FINITE, Options, positive_int
from .functions import KERNELS, gram, gram_dot, kernel_params

# what a kernel estimator's kernel hyperparameters may be; kernel_params checks the rules that join them (the
# inverse multiquadric's c = coef0 > 0)
KERNEL_CONSTRAINTS = {
    "kernel": Options(tuple(KERNELS)),
    "gamma": [Options(("scale", "auto")), POSITIVE_FINITE],
    "degree": positive_int(),
    "coef0": [OPTIONAL, FINITE],
}


class KernelParamsMixin:
    """Resolves the constructor's kernel hyperparameters on the training X into `kernel_params_`."""

    def _resolve_kernel(self, X) -> None:
        self.kernel_params_ = kernel_params(self.kernel, X, self.gamma, self.degree, self.coef0)

    def _gram(self, X, Y=None) -> np.ndarray:
        return gram(X, Y, self.kernel, **self.kernel_params_)

    def _gram_dot(self, X, Y, coef) -> np.ndarray:
        return gram_dot(X, Y, coef, self.kernel, **self.kernel_params_)
