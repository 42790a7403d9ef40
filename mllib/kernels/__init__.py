"""Kernels and kernel machines: Mercer kernels and Gram matrices, kernel ridge, kernel PCA, Nystroem features."""

from ._params import KERNEL_CONSTRAINTS, KernelParamsMixin
from .functions import (
    KERNELS,
    exponential,
    gram,
    gram_dot,
    inverse_multiquadric,
    is_psd,
    kernel_diagonal,
    kernel_params,
    linear,
    polynomial,
    quadratic_features,
    rbf,
    sigmoid,
)
from .kernel_pca import KernelPCA
from .kernel_ridge import KernelRidge
from .nystroem import Nystroem

__all__ = [
    "KERNEL_CONSTRAINTS",
    "KernelParamsMixin",
    "KernelRidge",
    "KernelPCA",
    "Nystroem",
    "KERNELS",
    "gram",
    "gram_dot",
    "is_psd",
    "kernel_diagonal",
    "kernel_params",
    "quadratic_features",
    "linear",
    "polynomial",
    "rbf",
    "exponential",
    "sigmoid",
    "inverse_multiquadric",
]
