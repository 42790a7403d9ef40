"""Scores for predicted probabilities: log-loss, Brier score and Murphy's Brier decomposition.

Rule: log-loss = mean of -ln p(observed class); Brier = mean squared distance between the
probability vector and the one-hot outcome.
Notes: seed 004, D4:291-295 (cross-entropy loss, eq. 10; ERRATUM E7: the printed losses lack the
minus sign, the loss is -ln g(x) for y = +1 and -ln(1 - g(x)) for y = -1, so it is >= 0).
Brier score and its decomposition are standard calibration summaries [STD] (catalogue 3.1).

Inputs: binary -> y_true in {0, 1} and proba = P(y = 1), 1-D; multiclass -> proba of shape
(n, K), rows summing to 1, and y_true holding class indices 0..K-1 (column order of proba).

Sections cited: Ghent ML notes (seed 004): 2.1.2 Classification (291)"""

from __future__ import annotations

import numpy as np

from mllib.base import (
    check_array,
    check_binary_labels,
    check_class_indices,
    check_int,
    check_posteriors,
    check_probabilities,
    check_rows,
    check_sample_weight,
    check_unit_interval,
)

_EPS = np.finfo(np.float64).eps


def _probabilities(proba) -> np.ndarray:
    """P(y = 1) as given (1-D), or (n, K) posteriors."""
    proba = check_array(proba, ndim=(1, 2), name="proba")
    return check_unit_interval(proba, "proba") if proba.ndim == 1 else check_posteriors(proba)


def _one_hot_and_proba(y_true, proba):
    """(outcome matrix, probability matrix, n): the binary case as a single column P(y = 1)."""
    proba = _probabilities(proba)
    if proba.ndim == 1:
        outcome = check_binary_labels(y_true, "y_true").astype(np.float64)[:, None]
        proba = proba[:, None]
    else:
        idx = check_class_indices(y_true, proba.shape[1], "y_true")
        check_rows(y_true=idx, proba=proba)
        outcome = np.zeros_like(proba)
        outcome[np.arange(idx.size), idx] = 1.0
    n = check_rows(y_true=outcome, proba=proba)
    return outcome, proba, n


def log_loss(y_true, proba, sample_weight=None) -> float:
    """(Weighted) mean of -ln p_i, p_i = probability given to the observed class of sample i.

    p_i is clipped to [eps, 1 - eps], eps = float64 machine epsilon, so a confident mistake costs
    at most -ln(eps) ~ 36.04 instead of inf. Natural log; always >= 0 (E7).
    """
    outcome, proba, n = _one_hot_and_proba(y_true, proba)
    if proba.shape[1] == 1:
        observed = np.where(outcome[:, 0] == 1.0, proba[:, 0], 1.0 - proba[:, 0])
    else:
        observed = proba[outcome == 1.0]
    observed = np.clip(observed, _EPS, 1.0 - _EPS)
    w = check_sample_weight(sample_weight, n)
    return float(np.sum(w * -np.log(observed)) / np.sum(w))


def brier_score(y_true, proba, sample_weight=None) -> float:
    """(Weighted) mean over samples of sum_k (p_k - 1[y = k])^2.

    Binary (1-D proba = P(y = 1)): mean (p - y)^2, in [0, 1]. This one-column form is HALF the
    two-column multiclass sum, because (1 - p) - (1 - y) = -(p - y) repeats the same error; a 2-D
    proba of shape (n, 2) therefore gives twice the 1-D value (range [0, 2], as for any K).
    """
    outcome, proba, n = _one_hot_and_proba(y_true, proba)
    w = check_sample_weight(sample_weight, n)
    return float(np.sum(w * np.sum((proba - outcome) ** 2, axis=1)) / np.sum(w))


def _groups(proba: np.ndarray, n_bins, weight: np.ndarray):
    """(group index per sample, weighted mean forecast per group), groups numbered 0..G-1 with no empty group."""
    if n_bins is None:
        # the distinct values themselves, not a weighted mean, so the within-group spread is exactly 0
        distinct, group = np.unique(proba, return_inverse=True)
        return group, distinct
    n_bins = check_int(n_bins, "n_bins")
    # equal-width bins [k/B, (k+1)/B), the last one closed at 1.0
    bin_index = np.minimum((proba * n_bins).astype(np.int64), n_bins - 1)
    _, group = np.unique(bin_index, return_inverse=True)  # renumber so empty bins vanish
    return group, np.bincount(group, weights=weight * proba) / np.bincount(group, weights=weight)


def brier_decomposition(y_true, proba, n_bins=None, sample_weight=None) -> dict:
    """Murphy (1973): brier = reliability - resolution + uncertainty + within_bin, binary only.

    Groups k of forecasts with size n_k, mean forecast f_k, observed frequency o_k; base rate o:
      reliability  = sum_k n_k (f_k - o_k)^2 / n    (calibration error, lower is better)
      resolution   = sum_k n_k (o_k - o)^2 / n      (how far groups move from the base rate, higher is better)
      uncertainty  = o (1 - o)                      (Brier score of always forecasting o)
      within_bin   = sum_i [(p_i - f_k)^2 - 2 (p_i - f_k)(y_i - o_k)] / n
    n_bins=None groups by distinct forecast value, so within_bin is exactly 0 and the classic
    three-term identity holds; with n_bins equal-width bins, within_bin is the within-bin variance
    minus twice the within-bin covariance of forecast and outcome (Stephenson et al. 2008), which
    makes the four terms sum to the Brier score exactly. Empty bins are dropped.
    sample_weight: n_k and n become sums of weights and f_k, o_k, o and the sum over i weighted means, so the
    identity still holds exactly (integer weights equal repeated rows); rows of weight 0 are left out.
    Returns {brier, reliability, resolution, uncertainty, within_bin, n_groups}.
    """
    proba = check_probabilities(proba)  # binary only: P(y = 1)
    outcome = check_binary_labels(y_true, "y_true").astype(np.float64)
    n = check_rows(y_true=outcome, proba=proba)
    w = check_sample_weight(sample_weight, n)
    present = w > 0  # a weightless row would make a group of total weight 0
    proba, outcome, w = proba[present], outcome[present], w[present]
    total = w.sum()
    group, mean_forecast = _groups(proba, n_bins, w)
    size = np.bincount(group, weights=w)
    observed_rate = np.bincount(group, weights=w * outcome) / size
    base_rate = np.sum(w * outcome) / total
    forecast_spread = proba - mean_forecast[group]
    within = forecast_spread**2 - 2.0 * forecast_spread * (outcome - observed_rate[group])
    return {
        "brier": float(np.sum(w * (proba - outcome) ** 2) / total),
        "reliability": float(np.sum(size * (mean_forecast - observed_rate) ** 2) / total),
        "resolution": float(np.sum(size * (observed_rate - base_rate) ** 2) / total),
        "uncertainty": float(base_rate * (1.0 - base_rate)),
        "within_bin": float(np.sum(w * within) / total),
        "n_groups": int(size.size),
    }
