"""Sequential minimal optimisation (SMO) for the soft-margin SVM dual, as in libsvm.

Dual (seed 000, lines 1706-1751, catalogue E1-E2; seed 001-004 catalogue erratum E30: argmax, not argmin):
    max_alpha  sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j K_ij   s.t.  0 <= alpha_i <= C_i,  sum_i alpha_i
    y_i = 0.
Written as libsvm's minimisation of f(alpha) = 1/2 alpha^T Q alpha - e^T alpha with Q_ij = y_i y_j K_ij, gradient
G = Q alpha - e. With F_t = -y_t G_t = y_t - sum_j alpha_j y_j K_jt, the KKT conditions hold (to tol) iff
    max_{t in I_up} F_t - min_{t in I_low} F_t < tol,
I_up = {alpha_t < C_t, y_t = +1} u {alpha_t > 0, y_t = -1}, I_low = {alpha_t < C_t, y_t = -1} u {alpha_t > 0, y_t = +1}.
Each step optimises two multipliers analytically: i = argmax_{I_up} F (maximal violation), j by the second-order
rule of Fan, Chen & Lin (2005): j = argmin_{t in I_low, F_t < F_i} -(F_i - F_t)^2 / (K_ii + K_tt - 2 K_it).
The bias comes from the KKT conditions: for free multipliers 0 < alpha_i < C_i, y_i f(x_i) = 1, so b is the
average of F_i over them (midpoint of the feasible interval when none is free).

Sections cited: ML 1 lecture notes (seed 000): Predicting with the Dual Solution (1706)"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..kernels import kernel_diagonal
from ..kernels.functions import centred, from_inner_products, squared_norms

# libsvm's curvature floor for non-positive-definite pairs (sigmoid kernel, duplicate points)
TAU = 1e-12


class KernelCache:
    """Kernel rows K[i, :] on demand, the least recently used dropped once `cache_size` MB are held. The rows and
    their squared norms are of X centred as in `gram` (kernels of ||x - y||), so rows agree with `gram`'s."""

    def __init__(self, X, kernel, params, cache_size):
        self.X, _ = centred(kernel, X)
        self.kernel, self.params = kernel, params
        self.sq_norms = squared_norms(self.X)
        self.capacity = max(2, int(cache_size * 2**20) // (8 * X.shape[0]))
        self.rows: OrderedDict[int, np.ndarray] = OrderedDict()
        self.misses = 0

    def row(self, i: int) -> np.ndarray:
        cached = self.rows.get(i)
        if cached is not None:
            self.rows.move_to_end(i)
            return cached
        self.misses += 1
        if len(self.rows) >= self.capacity:
            self.rows.popitem(last=False)
        row = from_inner_products(self.kernel, self.X @ self.X[i], self.sq_norms, self.sq_norms[i], self.params)
        self.rows[i] = row
        return row


def solve_dual(X, y, C, kernel, params, tol=1e-3, max_iter=10_000_000, cache_size=200.0):
    """SMO with second-order working-set selection. y in {-1, +1}; C per sample (np.inf allowed: hard margin).

    Returns (alpha, b, f_train, n_iter, converged): the decision function is f(x) = sum_i alpha_i y_i k(x_i, x) + b,
    and f_train = y - F + b its values on the training rows (free from the SMO bookkeeping).
    No shrinking: libsvm's shrinking (with gradient reconstruction) was measured on the benchmark folds and saved
    no CPU time here, since a numpy step costs a fixed ~20 array calls whatever the active-set size.
    """
    n = y.shape[0]
    cache = KernelCache(X, kernel, params, cache_size)
    diag = kernel_diagonal(X, kernel, **params)
    alpha = np.zeros(n)
    F = y.copy()  # F = -y * G at alpha = 0 (G = -e)
    # I_up / I_low as additive masks (0 inside, -inf / +inf outside); only the two updated entries change per step
    up_mask = np.where(np.where(y > 0, alpha < C, alpha > 0), 0.0, -np.inf)
    low_mask = np.where(np.where(y > 0, alpha > 0, alpha < C), 0.0, np.inf)
    buf, gain = np.empty(n), np.empty(n)
    n_iter, converged = 0, False
    while n_iter < max_iter:
        pair = select_working_set(F, up_mask, low_mask, cache.row, diag, tol, buf, gain)
        if pair is None:
            converged = True
            break
        i, j = pair
        K_i = cache.row(i)
        K_j = cache.row(j)
        a_i, a_j = _pair_update(alpha[i], alpha[j], y[i], y[j], C[i], C[j], F[i], F[j], diag[i] + diag[j] - 2 * K_i[j])
        d_i, d_j = a_i - alpha[i], a_j - alpha[j]
        alpha[i], alpha[j] = a_i, a_j
        # F_t = y_t - sum_s alpha_s y_s K_st changes through the two updated multipliers only
        F -= (y[i] * d_i) * K_i
        F -= (y[j] * d_j) * K_j
        for t in (i, j):
            up_mask[t] = 0.0 if (alpha[t] < C[t] if y[t] > 0 else alpha[t] > 0) else -np.inf
            low_mask[t] = 0.0 if (alpha[t] > 0 if y[t] > 0 else alpha[t] < C[t]) else np.inf
        n_iter += 1
    b = _bias(alpha, F, y, C)
    return alpha, b, y - F + b, n_iter, converged


def select_working_set(F, up_mask, low_mask, row, diag, tol, buf, gain):
    """The pair (i, j) of the next SMO step by the second-order rule, or None when the KKT conditions hold to tol.

    i = argmax_{I_up} F; j = argmax (F_i - F_t)^2 / a_it over t in I_low with F_t < F_i, a_it = K_ii + K_tt - 2 K_it
    (floored at TAU): the largest decrease of the dual along the pair's feasible line, were the step unclipped.
    up_mask / low_mask: 0 inside I_up / I_low, -inf / +inf outside; row(i) = K[i, :]; buf, gain: scratch of size n.
    """
    np.add(F, up_mask, out=buf)
    i = int(np.argmax(buf))
    F_i = buf[i]
    np.add(F, low_mask, out=buf)
    if F_i - buf.min() < tol:
        return None
    np.subtract(F_i, buf, out=gain)  # +inf outside I_low -> -inf, excluded by the clip below
    np.maximum(gain, 0.0, out=gain)
    np.square(gain, out=gain)
    np.multiply(row(i), -2.0, out=buf)
    buf += diag
    buf += diag[i]
    np.maximum(buf, TAU, out=buf)
    gain /= buf
    return i, int(np.argmax(gain))


def _pair_update(alpha_i, alpha_j, y_i, y_j, C_i, C_j, F_i, F_j, curvature):
    """Exact minimiser of the dual along the feasible line through (alpha_i, alpha_j), clipped to the box.

    Moving alpha_i by +t y_i and alpha_j by -t y_j keeps sum alpha y fixed; the optimum is t = (F_i - F_j) / a_ij.
    """
    t = (F_i - F_j) / max(curvature, TAU)
    # box constraints on t: 0 <= alpha_i + t y_i <= C_i and 0 <= alpha_j - t y_j <= C_j
    hi, lo = np.inf, -np.inf
    for a, s, c in ((alpha_i, y_i, C_i), (alpha_j, -y_j, C_j)):
        if s > 0:
            hi, lo = min(hi, c - a), max(lo, -a)
        else:
            hi, lo = min(hi, a), max(lo, a - c)
    t = min(max(t, lo), hi)
    new_i = alpha_i + t * y_i
    new_j = alpha_j - t * y_j
    # land exactly on the bounds (so membership tests alpha < C, alpha > 0 are exact)
    return _snap(new_i, C_i), _snap(new_j, C_j)


def _snap(a, c):
    if a <= 0.0:
        return 0.0
    if a >= c:
        return c
    return a


def _bias(alpha, F, y, C):
    """b = mean of F over free multipliers (KKT: y_i f(x_i) = 1 there); else the middle of the feasible interval."""
    free = (alpha > 0) & (alpha < C)
    if free.any():
        return float(F[free].mean())
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    # optimality: max_{I_up} F <= b <= min_{I_low} F
    lo = F[up].max() if up.any() else -np.inf
    hi = F[low].min() if low.any() else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        return float((lo + hi) / 2)
    return float(lo if np.isfinite(lo) else hi)
