"""Regressors of the lecture notes: least squares, ridge, lasso, Bayesian linear regression, PLS; and the wrappers that
fit a regressor on a transformed target (standardized, or log(y + c))."""

from .bayesian import BayesianLinearRegression
from .lasso import Lasso
from .least_squares import LinearRegression, Ridge
from .pls import PLSRegression
from .target import LogTarget, StandardizedTarget, fitted_scale_prediction, log_shift, returns_std

__all__ = [
    "LinearRegression",
    "Ridge",
    "Lasso",
    "BayesianLinearRegression",
    "PLSRegression",
    "StandardizedTarget",
    "LogTarget",
    "fitted_scale_prediction",
    "log_shift",
    "returns_std",
]
