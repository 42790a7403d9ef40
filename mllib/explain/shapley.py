"""Shapley values: each feature's fair share of f(x) - E f, by exact enumeration over all coalitions.

phi_i = sum over S not containing i of |S|! (d - |S| - 1)! / d! [v(S u {i}) - v(S)], with the interventional
value function v(S) = mean over background rows b of f(x_S, b_not_S) (seed 004, D4:2042-2056; catalogue 4.2,
whose worked table is wrong: for f(x) = x1 (x2 + x3) at x = (1, 1, 1) with baseline 0, phi = (1, 1/2, 1/2)).
Efficiency (additivity): sum_i phi_i = v(all) - v(empty) = f(x) - E_b f(b); every result reports its error.
The linear closed form phi_i = w_i (x_i - E x_i) is the special case of a linear model.

Sections cited: Ghent ML notes (seed 004): 11.2 Model Explainability (2042)"""

from __future__ import annotations

from math import factorial

import numpy as np

MAX_EXACT_FEATURES = 16  # 2^16 coalitions x background rows model evaluations per explained row


def coalition_masks(d: int) -> np.ndarray:
    """All 2^d coalitions as boolean rows; row k holds feature i iff bit i of k is set."""
    k = np.arange(2**d)
    return ((k[:, None] >> np.arange(d)) & 1).astype(bool)


def shapley_from_values(v: np.ndarray, d: int) -> np.ndarray:
    """Shapley values from the value of every coalition (v indexed like coalition_masks; trailing output axes kept)."""
    v = np.asarray(v, dtype=np.float64)
    masks = coalition_masks(d)
    size = masks.sum(axis=1)
    weight = np.array([factorial(s) * factorial(d - s - 1) / factorial(d) if s < d else 0.0 for s in range(d + 1)])
    phi = np.zeros((d,) + v.shape[1:])
    for i in range(d):
        without = np.flatnonzero(~masks[:, i])
        gain = v[without | (1 << i)] - v[without]
        phi[i] = np.tensordot(weight[size[without]], gain, axes=(0, 0))
    return phi


def _coalition_values(predict, x: np.ndarray, background: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """v(S) for every coalition: mean over background rows of predict(x on S, background elsewhere)."""
    n_b = background.shape[0]
    rows = np.where(np.repeat(masks, n_b, axis=0), x[None, :], np.tile(background, (masks.shape[0], 1)))
    out = np.asarray(predict(rows), dtype=np.float64)
    return out.reshape((masks.shape[0], n_b) + out.shape[1:]).mean(axis=1)


def exact_shapley(predict, X, background) -> dict:
    """Exact Shapley values of predict at each row of X against the background rows (any dtype, e.g. raw
    categorical strings, as long as predict accepts the rows).

    Returns {"values": (n, d[, outputs]), "expected_value": E_b f(b), "prediction": f(x),
    "additivity_error": |sum phi + E f - f(x)| per row}.
    """
    X, background = np.atleast_2d(np.asarray(X)), np.atleast_2d(np.asarray(background))
    d = X.shape[1]
    if background.shape[1] != d:
        raise ValueError(f"background has {background.shape[1]} columns but X has {d}")
    if d > MAX_EXACT_FEATURES:
        raise ValueError(f"exact Shapley enumerates 2^d coalitions; d = {d} > {MAX_EXACT_FEATURES}: use kernel_shap")
    masks = coalition_masks(d)
    values, expected, prediction = [], None, []
    for x in X:
        v = _coalition_values(predict, x, background, masks)
        values.append(shapley_from_values(v, d))
        expected, prediction = v[0], prediction + [v[-1]]
    values, prediction = np.array(values), np.array(prediction)
    return {
        "values": values,
        "expected_value": expected,
        "prediction": prediction,
        "additivity_error": additivity_error(values, expected, prediction),
    }


def linear_shapley(coef, X, background_mean, intercept=0.0) -> dict:
    """Closed form for f(x) = w.x + b with independent features: phi_i = w_i (x_i - E x_i)."""
    coef, X = np.asarray(coef, dtype=np.float64), np.atleast_2d(np.asarray(X, dtype=np.float64))
    mean = np.asarray(background_mean, dtype=np.float64)
    values = (X - mean) * coef
    expected = float(mean @ coef + intercept)
    prediction = X @ coef + intercept
    return {
        "values": values,
        "expected_value": expected,
        "prediction": prediction,
        "additivity_error": additivity_error(values, expected, prediction),
    }


def additivity_error(values, expected, prediction) -> np.ndarray:
    """|sum_i phi_i + E f - f(x)| per row (per output), the efficiency axiom's residual."""
    return np.abs(np.asarray(values).sum(axis=1) + expected - np.asarray(prediction))
