"""Tests of the difference between two models.

Corrected resampled t-test (Nadeau and Bengio 2003): the k fold-score differences d_j of two models on the same
splits are correlated (the training parts overlap), so the plain t statistic is too large. With n_1 training and n_2
validation rows per split, t = mean(d) / sqrt((1 / k + n_2 / n_1) s^2), s^2 the sample variance of d (ddof 1), with
k - 1 degrees of freedom. McNemar's test: of the test rows where exactly one of two classifiers is right (b rows
only A, c rows only B), under equal error rates b ~ Binomial(b + c, 1/2): the exact two-sided p-value, and the
chi-square statistic (|b - c| - 1)^2 / (b + c) with continuity correction beside it. Paired t-test: two
regressors' squared (or absolute) errors on the same rows.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special


def corrected_resampled_t_test(scores_a, scores_b, n_train: int, n_test: int) -> dict:
    """{mean_difference, t, df, p_value (two-sided), correction}: A minus B on the same k splits."""
    a, b = np.asarray(scores_a, dtype=np.float64), np.asarray(scores_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(
            f"scores_a and scores_b must be 1-D of one length >= 2 (one score per split), got {a.shape}, {b.shape}"
        )
    if n_train < 1 or n_test < 1:
        raise ValueError(f"n_train and n_test must be >= 1, got {n_train}, {n_test}")
    d = a - b
    k, variance = d.size, d.var(ddof=1)
    correction = 1.0 / k + n_test / n_train
    if variance == 0:
        t = 0.0 if d.mean() == 0 else math.copysign(math.inf, d.mean())
    else:
        t = d.mean() / math.sqrt(correction * variance)
    p = 1.0 if t == 0 else float(2 * special.stdtr(k - 1, -abs(t)))
    return {"mean_difference": float(d.mean()), "t": float(t), "df": k - 1, "p_value": p, "correction": correction}


def mcnemar_test(y_true, pred_a, pred_b) -> dict:
    """{only_a_right, only_b_right, p_value (exact binomial, two-sided), chi2 (continuity-corrected), chi2_p_value}."""
    y, a, b = (np.asarray(v) for v in (y_true, pred_a, pred_b))
    if not (y.shape == a.shape == b.shape) or y.ndim != 1:
        raise ValueError("y_true, pred_a and pred_b must be 1-D arrays of one length")
    right_a, right_b = a == y, b == y
    only_a, only_b = int(np.sum(right_a & ~right_b)), int(np.sum(~right_a & right_b))
    discordant = only_a + only_b
    if discordant == 0:
        return {"only_a_right": 0, "only_b_right": 0, "p_value": 1.0, "chi2": 0.0, "chi2_p_value": 1.0}
    # P(X <= min(b, c)) for X ~ Binomial(b + c, 1/2) through the regularised incomplete beta function: O(1) in b + c
    p = float(min(1.0, 2 * special.bdtr(min(only_a, only_b), discordant, 0.5)))
    chi2 = (abs(only_a - only_b) - 1) ** 2 / discordant
    return {
        "only_a_right": only_a,
        "only_b_right": only_b,
        "p_value": p,
        "chi2": float(chi2),
        "chi2_p_value": float(special.chdtrc(1, chi2)),
    }


def paired_t_test(errors_a, errors_b) -> dict:
    """{mean_difference, t, df, p_value}: A's per-row errors minus B's on the same rows."""
    a, b = np.asarray(errors_a, dtype=np.float64), np.asarray(errors_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError("errors_a and errors_b must be 1-D of one length >= 2")
    d = a - b
    n, mean, variance = d.size, d.mean(), d.var(ddof=1)
    if variance == 0:  # identical errors, or a constant shift: no spread to test against
        t, p = 0.0, 1.0 if mean == 0 else 0.0
    else:
        t = mean / math.sqrt(variance / n)
        p = float(2 * special.stdtr(n - 1, -abs(t)))
    return {"mean_difference": float(mean), "t": float(t), "df": n - 1, "p_value": p}
