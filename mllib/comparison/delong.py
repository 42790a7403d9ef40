"""DeLong's test: two ROC AUCs of the same rows, and their difference's standard error.

AUC = (1 / (m n)) sum_i sum_j psi(x_i, y_j) over the m positives' scores x and the n negatives' y, psi = 1 when
x > y, 1/2 when tied, 0 otherwise. A positive's placement V10(x_i) = (1/n) sum_j psi(x_i, y_j) and a negative's
V01(y_j) = (1/m) sum_i psi(x_i, y_j) both average to the AUC, and Var(AUC) = S10 / m + S01 / n with S10, S01 the
sample variances of the placements; for two scores of the same rows, the variance of AUC_a - AUC_b is the same
formula over the differences of their placements (DeLong, DeLong & Clarke-Pearson 1988, Biometrics 44:837-845).
The placements come from midranks (Sun & Xu 2014, IEEE Signal Processing Letters 21:1389-1393): with R the midrank
of a score among all rows and R_pos its midrank among the positives, V10 = (R - R_pos) / n; for a negative with
R_neg its midrank among the negatives, V01 = 1 - (R - R_neg) / m. O(n log n).

More than two classes: the macro one-vs-rest AUC is the mean of K such AUCs over the same rows, each row a positive
of its class and a negative of the others; its difference's variance sums each row's contributions to the K
differences, (placement difference - AUC difference) / sqrt(c (c - 1)) with c the count of its role, which is the
two-class formula above when K = 2 classes are read as one (an estimate that keeps the covariance between classes).
Not in the notes (catalogue: [STD])."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ..base import check_1d, check_array, check_rows


def midranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks of x, tied values sharing the mean of the ranks they span (scipy.stats.rankdata's "average",
    without importing scipy.stats, which costs the stages that only compare models half a second)."""
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], x.size]  # one past each run of ties
    ranks = np.empty(x.size)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks


def placements(positive, score) -> tuple[np.ndarray, float]:
    """(each row's placement: V10 for a positive, V01 for a negative; the AUC) of `score` for the 0/1 labels
    `positive` (both classes present)."""
    is_pos = np.asarray(positive).astype(bool)
    s = np.asarray(score, dtype=np.float64)
    m, n = int(is_pos.sum()), int((~is_pos).sum())
    if m == 0 or n == 0:
        raise ValueError("placements need both classes: the AUC is undefined")
    rank = midranks(s)
    within = np.empty_like(rank)
    within[is_pos] = midranks(s[is_pos])
    within[~is_pos] = midranks(s[~is_pos])
    v = np.where(is_pos, (rank - within) / n, 1.0 - (rank - within) / m)
    return v, float(v[is_pos].mean())


def _contributions(positive: np.ndarray, score_a: np.ndarray, score_b: np.ndarray) -> tuple[np.ndarray, float, float]:
    """(each row's term of Var(AUC_a - AUC_b), squared and summed over rows; AUC_a; AUC_b)."""
    va, auc_a = placements(positive, score_a)
    vb, auc_b = placements(positive, score_b)
    is_pos = positive.astype(bool)
    count = np.where(is_pos, is_pos.sum(), (~is_pos).sum()).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # a role with one row has no variance term
        term = np.where(count > 1, ((va - vb) - (auc_a - auc_b)) / np.sqrt(count * (count - 1)), 0.0)
    return term, auc_a, auc_b


def delong_test(y_true, score_a, score_b) -> dict:
    """AUC of score_a and of score_b on the same rows, their difference a - b with DeLong's standard error, z and the
    two-sided p-value. Two classes: y_true 0/1 and 1-D scores; K classes: y_true 0..K-1 and (n, K) scores, compared by
    the macro one-vs-rest AUC over the classes present (each with both roles). No spread (identical rankings): the
    standard error is 0 and z, p follow the paired t-test's convention (NaN when the difference is 0)."""
    y = check_1d(y_true, "y_true")
    a, b = check_array(score_a, ndim=(1, 2), name="score_a"), check_array(score_b, ndim=(1, 2), name="score_b")
    check_rows(y_true=y, score_a=a, score_b=b)
    if b.shape != a.shape:
        raise ValueError(f"score_a and score_b must have one shape, (n,) or (n, K), got {a.shape} and {b.shape}")
    if a.ndim == 1:
        columns = [(y.astype(np.int64), a, b)]
    else:
        present = [k for k in range(a.shape[1]) if 0 < np.sum(y == k) < y.size]
        if not present:
            raise ValueError("y_true holds a single class: the AUC is undefined")
        columns = [((y == k).astype(np.int64), a[:, k], b[:, k]) for k in present]
    terms, aucs_a, aucs_b = zip(*(_contributions(*c) for c in columns))
    per_row = np.mean(terms, axis=0)  # a row's term of the macro difference: the mean of its K terms
    difference = float(np.mean(aucs_a) - np.mean(aucs_b))
    se = float(math.sqrt(np.sum(per_row**2)))
    if se == 0:
        z, p = (math.nan, math.nan) if difference == 0 else (math.copysign(math.inf, difference), 0.0)
    else:
        z = difference / se
        p = float(2 * special.ndtr(-abs(z)))
    return {
        "auc_a": float(np.mean(aucs_a)),
        "auc_b": float(np.mean(aucs_b)),
        "difference": difference,
        "standard_error": se,
        "z": float(z),
        "p_value": p,
    }
