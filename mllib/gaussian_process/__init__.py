"""Gaussian processes: regression (exact posterior, marginal likelihood) and classification (Laplace approximation)."""

from .classifier import GaussianProcessClassifier, probit_approximation
from .regressor import GaussianProcessRegressor

__all__ = ["GaussianProcessRegressor", "GaussianProcessClassifier", "probit_approximation"]
