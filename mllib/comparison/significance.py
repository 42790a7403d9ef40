"""Tests of the difference between two models.

Corrected resampled t-test (Nadeau and Bengio 2003): the k fold-score differences d_j of two models on the same splits
are correlated (the training parts overlap), so the plain t statistic is too large. With n_1 training and n_2 validation
rows per split, t = mean(d) / sqrt((1 / k + n_2 / n_1) s^2), s^2 the sample variance of d (ddof 1), with k - 1 degrees
of freedom; n_1 and n_2 are the mean sizes over the splits, fractions kept (splits of whole groups differ in size). Its
standard error sqrt((1 / k + n_2 / n_1) s^2) gives the difference's Student t interval with k - 1 degrees of freedom,
what the one-standard-error rule of a model comparison reads. McNemar's test: of the test rows where exactly one of two
classifiers is right (b rows only A, c rows only B), under equal error rates b ~ Binomial(b + c, 1/2): the exact two-
sided p-value, and the chi-square statistic (|b - c| - 1)^2 / (b + c) with continuity correction beside it. Paired
t-test: two regressors' squared (or absolute) errors on the same rows.
Where the differences have no spread (s = 0) the statistics follow their formulas as scipy does: t = +-inf (p = 0)
when the mean difference is not 0, and t = 0 / 0 = NaN (p = NaN: no evidence either way) when it is.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ..base import check_1d, check_array, check_rows, checked_arguments
from ..base.constraints import OPEN_UNIT, POSITIVE_FINITE


def _t_and_p(mean: float, scale2: float, df: int) -> tuple[float, float]:
    """t = mean / sqrt(scale2) and its two-sided p-value with df degrees of freedom; no spread: +-inf / NaN."""
    if scale2 == 0:
        return (math.nan, math.nan) if mean == 0 else (math.copysign(math.inf, mean), 0.0)
    t = mean / math.sqrt(scale2)
    return t, float(2 * special.stdtr(df, -abs(t)))


def _paired_differences(a, b, what: str) -> np.ndarray:
    """a - b for two finite 1-D arrays of one length >= 2 (a t-test needs a spread)."""
    a, b = check_array(a, ndim=1, name=f"{what}_a"), check_array(b, ndim=1, name=f"{what}_b")
    if check_rows(**{f"{what}_a": a, f"{what}_b": b}) < 2:
        raise ValueError(f"{what}_a and {what}_b need at least 2 entries each for a t-test")
    return a - b


@checked_arguments(n_train=POSITIVE_FINITE, n_test=POSITIVE_FINITE, confidence_level=OPEN_UNIT)
def corrected_resampled_t_test(scores_a, scores_b, n_train: float, n_test: float, confidence_level=0.95) -> dict:
    """{mean_difference, standard_error, interval (the difference's corrected Student t interval at
    confidence_level), t, df, p_value (two-sided), correction}: A minus B on the same k splits (n_train, n_test:
    the mean rows per split)."""
    d = _paired_differences(scores_a, scores_b, "scores")  # one score per split
    k, variance, mean = d.size, d.var(ddof=1), float(d.mean())
    correction = 1.0 / k + float(n_test) / float(n_train)
    t, p = _t_and_p(mean, correction * variance, k - 1)
    standard_error = math.sqrt(correction * variance)
    half_width = float(special.stdtrit(k - 1, 0.5 + confidence_level / 2)) * standard_error
    return {
        "mean_difference": mean,
        "standard_error": standard_error,
        "interval": [mean - half_width, mean + half_width],
        "t": float(t),
        "df": k - 1,
        "p_value": p,
        "correction": correction,
    }


def mcnemar_test(y_true, pred_a, pred_b) -> dict:
    """{only_a_right, only_b_right, p_value (exact binomial, two-sided), chi2 (continuity-corrected), chi2_p_value}."""
    y, a, b = (check_1d(v, name) for v, name in ((y_true, "y_true"), (pred_a, "pred_a"), (pred_b, "pred_b")))
    check_rows(y_true=y, pred_a=a, pred_b=b)
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
    d = _paired_differences(errors_a, errors_b, "errors")
    n, mean = d.size, float(d.mean())
    t, p = _t_and_p(mean, d.var(ddof=1) / n, n - 1)
    return {"mean_difference": mean, "t": float(t), "df": n - 1, "p_value": p}
