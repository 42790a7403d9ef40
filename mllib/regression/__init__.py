"""Regressors of the lecture notes: least squares, ridge, lasso, Bayesian linear regression, PLS."""

from .bayesian import BayesianLinearRegression
from .lasso import Lasso
from .least_squares import LinearRegression, Ridge
from .pls import PLSRegression
from .target import StandardizedTarget, returns_std

__all__ = [
    "LinearRegression",
    "Ridge",
    "Lasso",
    "BayesianLinearRegression",
    "PLSRegression",
    "StandardizedTarget",
    "returns_std",
]
