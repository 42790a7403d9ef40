"""Regression metrics: mean squared error, mean absolute error and the coefficient of determination.

Rule: MSE = mean (y - yhat)^2, MAE = mean |y - yhat|, R^2 = 1 - SS_res / SS_tot.
Notes: seed 004, D4:262-304 (squared loss ~ Gaussian noise, absolute loss ~ Laplace noise, robust;
catalogue 7.12) and D4:308 (MSE/SSE as the regression objective). R^2 is standard [STD].
All three take sample weights: every mean becomes a weighted mean, including the mean of y in SS_tot.

Sections cited: Ghent ML notes (seed 004): 2.1.1 Regression (262); 2.2 Learning parameters for Specific Cases (308)"""

from __future__ import annotations

import numpy as np

from mllib.base import check_array, check_rows, check_sample_weight


def _checked(y_true, y_pred, sample_weight):
    y_true, y_pred = check_array(y_true, ndim=1, name="y_true"), check_array(y_pred, ndim=1, name="y_pred")
    n = check_rows(y_true=y_true, y_pred=y_pred)
    return y_true, y_pred, check_sample_weight(sample_weight, n)


def mean_squared_error(y_true, y_pred, sample_weight=None) -> float:
    """(Weighted) mean of (y - yhat)^2."""
    y_true, y_pred, w = _checked(y_true, y_pred, sample_weight)
    return float(np.sum(w * (y_true - y_pred) ** 2) / np.sum(w))


def mean_absolute_error(y_true, y_pred, sample_weight=None) -> float:
    """(Weighted) mean of |y - yhat|."""
    y_true, y_pred, w = _checked(y_true, y_pred, sample_weight)
    return float(np.sum(w * np.abs(y_true - y_pred)) / np.sum(w))


def r2_score(y_true, y_pred, sample_weight=None) -> float:
    """1 - sum w (y - yhat)^2 / sum w (y - ybar_w)^2; 1 is perfect, 0 is predicting the mean, < 0 is worse.

    Undefined (nan) when y_true is constant over the positively weighted samples (SS_tot = 0);
    sklearn returns 1.0 or 0.0 there by default.
    """
    y_true, y_pred, w = _checked(y_true, y_pred, sample_weight)
    counted = y_true[w > 0]
    # test constancy directly: a weighted mean of equal values can be off by an ulp, making SS_tot tiny but > 0
    if np.all(counted == counted[0]):
        return float("nan")
    mean = np.sum(w * y_true) / np.sum(w)
    ss_res = np.sum(w * (y_true - y_pred) ** 2)
    ss_tot = np.sum(w * (y_true - mean) ** 2)
    return float(1.0 - ss_res / ss_tot)
