"""Weighted centring shared by the linear regressors: an unpenalised intercept is the same as fitting the
slopes on centred data and setting b0 = mean(y) - mean(x)^T beta (seed 002, lines 1087-1091).

Sections cited: Machine Learning lecture notes (seed 002): Centering & Whitening (1087)"""

from __future__ import annotations

import numpy as np


def centre(X: np.ndarray, y: np.ndarray, sample_weight=None):
    """Weighted means of X and y, and X, y centred by them with rows scaled by sqrt(w), so that plain least
    squares on the returned arrays minimises sum_i w_i (y_i - b0 - x_i^T beta)^2 over beta.
    y: (n,) (its mean a float) or (n, m) (one mean per column). sample_weight None means unit weights (no
    scaling pass over X)."""
    if sample_weight is None:
        x_mean, y_mean = X.mean(axis=0), y.mean(axis=0)
        Xc, yc = X - x_mean, y - y_mean
    else:
        w = sample_weight
        x_mean, y_mean = w @ X / w.sum(), w @ y / w.sum()
        root = np.sqrt(w)
        Xc = X - x_mean
        Xc *= root[:, None]
        yc = (y - y_mean) * root.reshape(-1, *[1] * (y.ndim - 1))
    return x_mean, (float(y_mean) if y.ndim == 1 else y_mean), Xc, yc


def positive_eigenvalues(values: np.ndarray) -> np.ndarray:
    """The eigenvalues of a Gram matrix that are not rounding noise of a zero eigenvalue."""
    cutoff = values.size * np.finfo(np.float64).eps * max(float(values.max(initial=0.0)), 0.0)
    return values[values > cutoff]
