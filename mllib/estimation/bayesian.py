"""Bayesian parameter estimation with conjugate priors, and posterior-predictive probabilities.

Seed 000, lines 537-736: p(theta | D) = p(D | theta) p(theta) / integral p(D | theta) p(theta) dtheta, and the
class-conditional predictive p(x | D) = integral p(x | theta) p(theta | D) dtheta (lines 557-588).
Beta(a, b) prior, Bernoulli likelihood: posterior Beta(a + #ones, b + #zeros), P(x = 1 | D) = a' / (a' + b').
Beta(a, b) prior, geometric likelihood theta (1 - theta)^k: posterior Beta(a + N, b + sum x),
P(x = k | D) = B(a' + 1, b' + k) / B(a', b'). The notes' example (lines 590-679, uniform prior = Beta(1, 1)):
D_1 = {0, 2} gives 30 theta^2 (1 - theta)^2 (the "~20" at line 600 is a typo) and P(x = 1 | D_1) = 3/14;
D_2 = {0, 2, 0, 1} gives 280 theta^4 (1 - theta)^3 and P(x = 1 | D_2) = 2/9, so the Bayes classifier picks
omega_2 where the ML plug-in picks omega_1.
Gaussian mean with known variance sigma^2 and prior N(mu_0, tau_0^2) (lines 712-736, closed form from the
catalogue): mu_N = (N tau_0^2 xbar + sigma^2 mu_0) / (N tau_0^2 + sigma^2), tau_N^2 = tau_0^2 sigma^2 / (N tau_0^2 +
sigma^2);
predictive N(mu_N, sigma^2 + tau_N^2). Few points: mu_N near mu_0; many points: mu_N -> the ML mean.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln

from ..base import checked_arguments
from ..base.constraints import POSITIVE_FINITE
from .maximum_likelihood import _samples, bernoulli_ml, geometric_ml

# the Beta(a, b) prior's parameters
_BETA_PRIOR = {"a": POSITIVE_FINITE, "b": POSITIVE_FINITE}


@checked_arguments(**_BETA_PRIOR)
def bernoulli_posterior(x, a: float = 1.0, b: float = 1.0) -> tuple[float, float]:
    """Parameters (a', b') of the Beta posterior of P(x = 1) after 0/1 samples x, prior Beta(a, b)."""
    x = _samples(x)
    ones = bernoulli_ml(x) * x.size
    return float(a + ones), float(b + x.size - ones)


@checked_arguments(**_BETA_PRIOR)
def bernoulli_predictive(a: float, b: float) -> float:
    """P(x = 1 | D) under the Beta(a, b) posterior: its mean a / (a + b)."""
    return float(a / (a + b))


@checked_arguments(**_BETA_PRIOR)
def geometric_posterior(x, a: float = 1.0, b: float = 1.0) -> tuple[float, float]:
    """Parameters (a', b') = (a + N, b + sum x) of the Beta posterior of a geometric theta, prior Beta(a, b)."""
    geometric_ml(x)  # validates the samples
    x = _samples(x)
    return float(a + x.size), float(b + x.sum())


@checked_arguments(**_BETA_PRIOR)
def geometric_predictive(k, a: float, b: float):
    """P(x = k | D) = integral theta (1 - theta)^k Beta(theta; a, b) dtheta = B(a + 1, b + k) / B(a, b)."""
    k = np.asarray(k, dtype=np.float64)
    if (k < 0).any() or (k != np.round(k)).any():
        raise ValueError("k must be a non-negative integer")
    p = np.exp(betaln(a + 1, b + k) - betaln(a, b))
    return float(p) if p.ndim == 0 else p


@checked_arguments(sigma2=POSITIVE_FINITE, tau0_2=POSITIVE_FINITE)
def gaussian_mean_posterior(x, sigma2: float, mu0: float = 0.0, tau0_2: float = 1.0) -> tuple[float, float]:
    """(mu_N, tau_N^2) of the Gaussian posterior of the mean of N(mu, sigma2) samples x, prior N(mu0, tau0_2)."""
    x = _samples(x)
    n = x.size
    denominator = n * tau0_2 + sigma2
    return float((n * tau0_2 * x.mean() + sigma2 * mu0) / denominator), float(tau0_2 * sigma2 / denominator)


def gaussian_predictive(x, sigma2: float, mu0: float = 0.0, tau0_2: float = 1.0) -> tuple[float, float]:
    """(mean, variance) of the posterior predictive N(mu_N, sigma2 + tau_N^2) of a new sample."""
    mu_n, tau_n2 = gaussian_mean_posterior(x, sigma2, mu0, tau0_2)
    return mu_n, sigma2 + tau_n2
