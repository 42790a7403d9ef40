"""Mercer kernels k(x, y) = <phi(x), phi(y)>, their Gram matrices and the PSD (Mercer) check.

Kernels (seed 000, lines 1856-1874; seed 002, lines 664-682): linear x.y; polynomial (gamma x.y + coef0)^degree;
RBF exp(-gamma ||x - y||^2) (gamma = 1 / (2 sigma^2)); sigmoid tanh(gamma x.y + coef0) (named at seed 002,
line 1049; not Mercer for every gamma, coef0); inverse multiquadric 1 / sqrt(||x - y||^2 + c^2) (the notes'
"inverse quadratic"); exponential exp(-gamma ||x - y||) (seed 002, lines 2440-2442: the gamma-exponential
exp(-|(x - x') / l|^g) with exponent g = 1 and our gamma = 1 / l; Ornstein-Uhlenbeck / Matern-1/2).
Mercer's condition (seed 000, lines 1754-1764, erratum E35): every Gram matrix K_ij = k(x_i, x_j) is symmetric
positive semidefinite. Kernel trick (lines 1766-1789): (x.y)^2 = phi(x).phi(y) with
phi(x) = (x_1^2, sqrt(2) x_1 x_2, x_2^2) in R^2; `quadratic_features` is that map in any dimension.
The kernels of ||x - y|| alone take it as |x|^2 + |y|^2 - 2 x.y (one matrix product) after shifting both sets by
one common point, Y's mean: the cancellation then errs at the scale of the data's spread, not of its distance
from the origin (which the square root of the exponential kernel would magnify at near-duplicates).

Sections cited:
- ML 1 lecture notes (seed 000): Exercise Sheet 6 (1754); → Kernel Trick (1774); Example: (1856)
- Machine Learning lecture notes (seed 002): Example Kernels (664); End of Part I: The Basis (1049); GP: different
  covariance functions (2440)"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..base import FINITE, OPTIONAL, Options, checked_arguments, positive_int
from ..base.constraints import POSITIVE_FINITE

# Gram blocks are at most this many entries (32 MB of float64), whatever the sizes of X and Y.
_BLOCK_ENTRIES = 1 << 22
DISTANCE_KERNELS = ("rbf", "exponential", "inverse_multiquadric")


def squared_norms(X) -> np.ndarray:
    return np.einsum("ij,ij->i", X, X)


def from_inner_products(kernel, dots, sq_x, sq_y, params) -> np.ndarray:
    """k(x, y) from <x, y> and the squared norms: every kernel here is a function of these three numbers,
    so a Gram block or a single kernel row costs one matrix product. `dots` is overwritten."""
    if kernel == "linear":
        return dots
    if kernel in DISTANCE_KERNELS:
        # ||x - y||^2 = |x|^2 + |y|^2 - 2 x.y, clipped at 0 against cancellation
        dots *= -2.0
        dots += sq_x
        dots += sq_y
        d2 = np.maximum(dots, 0.0, out=dots)
        if kernel == "rbf":
            d2 *= -params["gamma"]
            return np.exp(d2, out=d2)
        if kernel == "exponential":
            d = np.sqrt(d2, out=d2)
            d *= -params["gamma"]
            return np.exp(d, out=d)
        d2 += params["c"] ** 2
        return np.divide(1.0, np.sqrt(d2, out=d2), out=d2)
    dots *= params["gamma"]
    dots += params["coef0"]
    if kernel == "poly":
        return np.power(dots, params["degree"], out=dots)
    return np.tanh(dots, out=dots)  # sigmoid: the kernel name was checked where its parameters were resolved


def centred(kernel, X, Y=None):
    """(X, Y) as float64, both shifted by Y's mean when k depends on ||x - y|| only (Y = None: Y = X, shifted
    once): the same distances, computed without cancelling the data's distance from the origin."""
    X = np.asarray(X, dtype=np.float64)
    Y = X if Y is None else np.asarray(Y, dtype=np.float64)
    if kernel not in DISTANCE_KERNELS or Y.shape[0] == 0:
        return X, Y
    centre = Y.mean(axis=0)
    X_c = X - centre
    return X_c, (X_c if Y is X else Y - centre)


def _pairwise(kernel, X, Y, params):
    X, Y = centred(kernel, X, Y)
    return from_inner_products(kernel, X @ Y.T, squared_norms(X)[:, None], squared_norms(Y)[None, :], params)


def linear(X, Y):
    return _pairwise("linear", X, Y, {})


def polynomial(X, Y, gamma=1.0, coef0=1.0, degree=3):
    return _pairwise("poly", X, Y, {"gamma": gamma, "coef0": coef0, "degree": degree})


def rbf(X, Y, gamma=1.0):
    return _pairwise("rbf", X, Y, {"gamma": gamma})


def exponential(X, Y, gamma=1.0):
    return _pairwise("exponential", X, Y, {"gamma": gamma})


def sigmoid(X, Y, gamma=1.0, coef0=0.0):
    return _pairwise("sigmoid", X, Y, {"gamma": gamma, "coef0": coef0})


def inverse_multiquadric(X, Y, c=1.0):
    return _pairwise("inverse_multiquadric", X, Y, {"c": c})


KERNELS = {
    "linear": linear,
    "poly": polynomial,
    "rbf": rbf,
    "exponential": exponential,
    "sigmoid": sigmoid,
    "inverse_multiquadric": inverse_multiquadric,
}
_PARAMS = {
    "linear": (),
    "poly": ("gamma", "coef0", "degree"),
    "rbf": ("gamma",),
    "exponential": ("gamma",),
    "sigmoid": ("gamma", "coef0"),
    "inverse_multiquadric": ("c",),
}
_KERNEL = Options(tuple(KERNELS))


@checked_arguments(kernel=_KERNEL)
def gram(X, Y=None, kernel="rbf", **params) -> np.ndarray:
    """K_ij = k(x_i, y_j), computed in row blocks so temporaries stay bounded (Y = None: Y = X)."""
    symmetric = Y is None
    X, Y = centred(kernel, X, Y)
    sq_y = squared_norms(Y)[None, :]
    step = max(1, _BLOCK_ENTRIES // max(1, Y.shape[0]))
    out = np.empty((X.shape[0], Y.shape[0]))
    for start in range(0, X.shape[0], step):
        block = X[start : start + step]
        out[start : start + step] = from_inner_products(
            kernel, block @ Y.T, squared_norms(block)[:, None], sq_y, params
        )
    if symmetric:  # a matrix product is symmetric only up to rounding; mirror the lower triangle exactly
        for start in range(0, X.shape[0], step):
            stop = start + step
            out[start:stop, stop:] = out[stop:, start:stop].T
            diagonal = out[start:stop, start:stop]
            upper = np.triu_indices(diagonal.shape[0], 1)
            diagonal[upper] = diagonal.T[upper]
        # ||x - x|| = 0 exactly: the product form leaves ~eps |x|^2, whose square root (exponential) is ~1e-8
        out[np.diag_indices_from(out)] = kernel_diagonal(X, kernel, **params)
    return out


def gram_dot(X, Y, coef, kernel="rbf", **params) -> np.ndarray:
    """K(X, Y) @ coef without holding K(X, Y): row blocks of bounded size (kernel expansions f(x) = sum_i c_i k(x,
    y_i))."""
    X = np.asarray(X, dtype=np.float64)
    step = max(1, _BLOCK_ENTRIES // max(1, Y.shape[0]))
    parts = [gram(X[start : start + step], Y, kernel, **params) @ coef for start in range(0, X.shape[0], step)]
    return np.concatenate(parts, axis=0)


@checked_arguments(kernel=_KERNEL)
def kernel_diagonal(X, kernel="rbf", **params) -> np.ndarray:
    """k(x_i, x_i) for every row, without the n x n matrix."""
    X = np.asarray(X, dtype=np.float64)
    sq = np.einsum("ij,ij->i", X, X)
    if kernel == "linear":
        return sq
    if kernel == "poly":
        return (params["gamma"] * sq + params["coef0"]) ** params["degree"]
    if kernel in ("rbf", "exponential"):
        return np.ones(X.shape[0])
    if kernel == "sigmoid":
        return np.tanh(params["gamma"] * sq + params["coef0"])
    return np.full(X.shape[0], 1.0 / abs(params["c"]))  # inverse_multiquadric


@checked_arguments(
    kernel=_KERNEL,
    gamma=[Options(("scale", "auto")), POSITIVE_FINITE],
    degree=positive_int(),
    coef0=[FINITE, OPTIONAL],
)
def kernel_params(kernel, X, gamma="scale", degree=3, coef0=None) -> dict:
    """The parameters `kernel` uses, with gamma and coef0 resolved.

    gamma: "scale" sets the length scale l = sqrt(n_features Var(X)) (libsvm / scikit-learn's gamma = 1 / l^2 for
    the RBF; gamma = 1 / l for the exponential, whose distance is not squared), "auto" the same with Var(X) = 1,
    or a positive number. coef0: None = the kernel's default, 0 for poly / sigmoid (as libsvm) and c = 1 for the
    inverse multiquadric, whose c = coef0 must be > 0."""
    names = _PARAMS[kernel]
    out = {}
    if "gamma" in names:
        if gamma == "scale":
            var = float(np.var(X))
            out["gamma"] = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        elif gamma == "auto":
            out["gamma"] = 1.0 / X.shape[1]
        else:
            out["gamma"] = float(gamma)
        if kernel == "exponential" and isinstance(gamma, str):
            out["gamma"] = float(np.sqrt(out["gamma"]))
    if "degree" in names:
        out["degree"] = int(degree)
    if "coef0" in names:
        out["coef0"] = 0.0 if coef0 is None else float(coef0)
    if "c" in names:
        if coef0 is not None and not coef0 > 0:
            raise ValueError(
                f"the inverse multiquadric 1/sqrt(||x-y||^2 + c^2) needs c = coef0 > 0, got "
                f"coef0={coef0!r}; set coef0 to a positive number or None (c = 1)"
            )
        out["c"] = 1.0 if coef0 is None else float(coef0)
    return out


def is_psd(K, tol=1e-10) -> bool:
    """Mercer check on a Gram matrix: symmetric and every eigenvalue >= -tol * max(1, largest |eigenvalue|)."""
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    scale = max(1.0, float(np.max(np.abs(K)))) if K.size else 1.0
    if not np.allclose(K, K.T, rtol=0.0, atol=tol * scale):
        return False
    eigenvalues = linalg.eigvalsh(K)
    return bool(eigenvalues[0] >= -tol * max(1.0, float(np.max(np.abs(eigenvalues)))))


def quadratic_features(X) -> np.ndarray:
    """Explicit feature map of k(x, y) = (x.y)^2: all x_i^2 and sqrt(2) x_i x_j (i < j), d (d + 1) / 2 columns.

    For d = 2 this is the notes' phi(x) = (x_1^2, sqrt(2) x_1 x_2, x_2^2) (seed 000, line 1774).
    """
    X = np.asarray(X, dtype=np.float64)
    i, j = np.triu_indices(X.shape[1])
    weight = np.where(i == j, 1.0, np.sqrt(2.0))
    return X[:, i] * X[:, j] * weight
