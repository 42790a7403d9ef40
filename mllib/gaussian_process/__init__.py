"""Gaussian processes: regression (exact posterior, marginal likelihood) and classification (Laplace approximation)."""
from .classifier import GaussianProcessClassifier
from .regressor import GaussianProcessRegressor

__all__ = ["GaussianProcessRegressor", "GaussianProcessClassifier"]
