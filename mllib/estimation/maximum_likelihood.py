"""Maximum-likelihood estimates: theta_hat = argmax_theta sum_k log p(x_k | theta) for iid samples.

Seed 000, lines 333-536 and 737-771: the gradient of the log-likelihood set to zero gives
Gaussian mean = sample mean and covariance (1/N) sum (x - mu)(x - mu)^T (biased; the unbiased 1/(N-1) version is
line 2061, corrected: it sums over the samples); Bernoulli theta = fraction of ones; geometric
P(x = k | theta) = (1 - theta)^k theta (k = 0, 1, ...): theta = N / (N + sum_k x_k). The notes' worked example
(lines 471-536) prints theta_2 = 3/7 for D_2 = {0, 2, 0, 1}; the likelihood theta^4 (1 - theta)^3 peaks at 4/7.
"""

from __future__ import annotations

import numpy as np

from ..base import Interval, check_array, check_binary_labels, checked_arguments


def _samples(x, name="x"):
    return check_array(x, ndim=1, name=name)


def gaussian_ml(x, unbiased: bool = False):
    """(mean, variance) of 1-D samples, or (mean vector, covariance matrix) of rows of a 2-D array.
    unbiased=True divides by N - 1 instead of the ML's N."""
    x = check_array(x, ndim=(1, 2), name="x")
    if x.shape[0] < (2 if unbiased else 1):
        raise ValueError("the unbiased estimate divides by N - 1: x needs at least two rows")
    mean = x.mean(axis=0)
    centred = x - mean
    scatter = centred @ centred if x.ndim == 1 else centred.T @ centred
    return mean, scatter / (x.shape[0] - unbiased)


def bernoulli_ml(x) -> float:
    """P(x = 1) estimated by the fraction of ones in 0/1 samples."""
    return float(check_binary_labels(x, "x (Bernoulli samples)").mean())


def geometric_ml(x) -> float:
    """theta of P(x = k | theta) = (1 - theta)^k theta, k = 0, 1, 2, ...: N / (N + sum x)."""
    x = _samples(x)
    if (x < 0).any() or (x != np.round(x)).any():
        raise ValueError("geometric samples must be non-negative integers (the number of failures before a success)")
    return float(x.size / (x.size + x.sum()))


@checked_arguments(theta=Interval(False, 0, 1, "right"))
def geometric_log_likelihood(x, theta: float) -> float:
    """sum_k log[(1 - theta)^{x_k} theta]."""
    x = _samples(x)
    if theta == 1:  # only zeros are possible
        return 0.0 if x.sum() == 0 else -np.inf
    return float(x.size * np.log(theta) + x.sum() * np.log1p(-theta))
