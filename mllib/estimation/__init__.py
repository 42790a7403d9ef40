"""Parameter estimation of the lecture notes: maximum likelihood, conjugate Bayesian estimates and posterior
predictives, James-Stein shrinkage."""

from .bayesian import (
    bernoulli_posterior,
    bernoulli_predictive,
    gaussian_mean_posterior,
    gaussian_predictive,
    geometric_posterior,
    geometric_predictive,
)
from .maximum_likelihood import bernoulli_ml, gaussian_ml, geometric_log_likelihood, geometric_ml
from .shrinkage import james_stein

__all__ = [
    "gaussian_ml",
    "bernoulli_ml",
    "geometric_ml",
    "geometric_log_likelihood",
    "bernoulli_posterior",
    "bernoulli_predictive",
    "geometric_posterior",
    "geometric_predictive",
    "gaussian_mean_posterior",
    "gaussian_predictive",
    "james_stein",
]
