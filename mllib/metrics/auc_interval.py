"""A confidence interval for the ROC AUC that holds at the boundary: the Hanley-McNeil variance of an AUC A from m
positives and n negatives,

    Var(A) = A (1 - A) [1 + (m - 1) (1 - A) / (2 - A) + (n - 1) A / (1 + A)] / (m n)

(Hanley & McNeil 1982, Radiology 143:29-36: the exponential-scores model's Q1 = A / (2 - A), Q2 = 2 A^2 / (1 + A)),
inverted as a score interval: the A for which |A_hat - A| <= z sqrt(Var(A)) (Newcombe 2006, Statistics in Medicine
25:559-573). Wald's interval A_hat -/+ z sqrt(Var(A_hat)) and a bootstrap of the rows both collapse to [1, 1] when the
sample separates the classes (A_hat = 1), whatever m and n; the score interval does not: 5 positives and 12 negatives
separated perfectly give a lower end near 0.7.
Not in the notes (catalogue: [STD])."""

from __future__ import annotations

import math

from scipy import special

from ..base import OPEN_UNIT, UNIT, checked_arguments, positive_int


def hanley_mcneil_variance(auc: float, n_positive: int, n_negative: int) -> float:
    """Var(A) of the module docstring."""
    a, m, n = float(auc), n_positive, n_negative
    return a * (1 - a) * (1 + (m - 1) * (1 - a) / (2 - a) + (n - 1) * a / (1 + a)) / (m * n)


@checked_arguments(auc=UNIT, n_positive=positive_int(), n_negative=positive_int(), confidence_level=OPEN_UNIT)
def auc_score_interval(auc: float, n_positive: int, n_negative: int, confidence_level: float = 0.95) -> list[float]:
    """[lower, upper]: every A in [0, 1] with |auc - A| <= z sqrt(Var(A)), z the two-sided normal quantile; found by
    bisection on each side of auc (|auc - A| - z sqrt(Var(A)) changes sign once there: it is <= 0 at A = auc, >= 0 at
    the ends 0 and 1, where Var vanishes)."""
    z = float(special.ndtri(0.5 + confidence_level / 2))

    def outside(a: float) -> bool:
        return abs(auc - a) > z * math.sqrt(max(hanley_mcneil_variance(a, n_positive, n_negative), 0.0))

    def boundary(inside: float, out: float) -> float:
        for _ in range(100):  # 2^-100 of [0, 1]: below float64's resolution
            middle = (inside + out) / 2
            inside, out = (inside, middle) if outside(middle) else (middle, out)
        return inside

    lower = 0.0 if not outside(0.0) else boundary(auc, 0.0)
    upper = 1.0 if not outside(1.0) else boundary(auc, 1.0)
    return [lower, upper]
