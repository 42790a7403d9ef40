"""KernelSHAP: Shapley values as the solution of a weighted linear regression over coalitions.

Fit g(z) = phi_0 + sum_i z_i phi_i to v(z) over coalitions z with the Shapley kernel weight
pi(z) = (d - 1) / (C(d, |z|) |z| (d - |z|)); phi_0 = v(empty) and sum_i phi_i = v(all) - v(empty) are imposed
exactly (their kernel weight is infinite), so efficiency holds by construction. With every coalition
enumerated the solution IS the exact Shapley value; otherwise coalitions are sampled (seeded) in
complementary pairs, and the standard errors come from a bootstrap over the sampled coalitions.
Value function and notes as in shapley.py (seed 004, D4:2042-2056; Lundberg & Lee 2017).

Sections cited: Ghent ML notes (seed 004): 11.2 Model Explainability (2042)"""

from __future__ import annotations

from math import comb

import numpy as np

from ..base import check_random_state, checked_arguments, positive_int
from .shapley import _coalition_values, additivity_error, coalition_masks


def _shapley_kernel_design(d: int, n_samples: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """(masks, weights): every proper coalition with its kernel weight when they fit in n_samples,
    otherwise n_samples coalitions drawn by size with the kernel's mass, in complementary pairs, weight 1."""
    if 2**d - 2 <= n_samples:
        masks = coalition_masks(d)[1:-1]
        s = masks.sum(axis=1)
        return masks, np.array([(d - 1) / (comb(d, k) * k * (d - k)) for k in s])
    sizes = np.arange(1, d)
    mass = (d - 1) / (sizes * (d - sizes))
    drawn = rng.choice(sizes, size=(n_samples + 1) // 2, p=mass / mass.sum())
    half = np.zeros((drawn.size, d), dtype=bool)
    for r, s in enumerate(drawn):
        half[r, rng.choice(d, size=s, replace=False)] = True
    masks = np.concatenate([half, ~half])[:n_samples]
    return masks, np.ones(masks.shape[0])


def _solve(masks, weights, y, delta):
    """Weighted least squares for phi with sum(phi) = delta, by eliminating the last coordinate."""
    Z = masks.astype(np.float64)
    A = Z[:, :-1] - Z[:, -1:]
    b = y - np.multiply.outer(Z[:, -1], delta)
    sw = np.sqrt(weights)
    head, *_ = np.linalg.lstsq(A * sw[:, None], b * (sw if b.ndim == 1 else sw[:, None]), rcond=None)
    return np.concatenate([head, (delta - head.sum(axis=0))[None]], axis=0)


@checked_arguments(n_bootstrap=positive_int(2))  # a bootstrap standard error needs two replicates
def kernel_shap(
    predict, X, background, n_samples: int = 2048, n_bootstrap: int = 100, random_state=0, progress=None
) -> dict:
    """KernelSHAP values of predict at each row of X (any dtype predict accepts) against the background rows;
    progress: optional callable progress(done, total) after each row.

    Returns {"values", "standard_errors" (0 when exact), "expected_value", "prediction", "additivity_error",
    "exact" (all coalitions enumerated), "n_coalitions"}.
    """
    X, background = np.atleast_2d(np.asarray(X)), np.atleast_2d(np.asarray(background))
    d = X.shape[1]
    if d < 2:
        raise ValueError("kernel_shap needs at least 2 features (with one, phi_1 = f(x) - E f)")
    rng = check_random_state(random_state)
    values, errors, prediction = [], [], []
    expected = None
    for x in X:
        masks, weights = _shapley_kernel_design(d, n_samples, rng)
        ends = _coalition_values(predict, x, background, np.array([np.zeros(d, bool), np.ones(d, bool)]))
        expected, full = ends[0], ends[1]
        y = _coalition_values(predict, x, background, masks) - expected
        phi = _solve(masks, weights, y, full - expected)
        exact = 2**d - 2 <= n_samples
        if exact:
            se = np.zeros_like(phi)
        else:
            boot = [
                _solve(masks[i], weights[i], y[i], full - expected)
                for i in (rng.integers(0, masks.shape[0], masks.shape[0]) for _ in range(n_bootstrap))
            ]
            se = np.std(boot, axis=0, ddof=1)
        values.append(phi)
        errors.append(se)
        prediction.append(full)
        if progress is not None:
            progress(len(values), X.shape[0])
    values, prediction = np.array(values), np.array(prediction)
    return {
        "values": values,
        "standard_errors": np.array(errors),
        "expected_value": expected,
        "prediction": prediction,
        "additivity_error": additivity_error(values, expected, prediction),
        "exact": 2**d - 2 <= n_samples,
        "n_coalitions": int(min(n_samples, 2**d - 2)),
    }
