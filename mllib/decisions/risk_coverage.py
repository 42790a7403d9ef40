"""Risk-coverage curve of selective classification: the error rate among the rows kept, as the confidence
threshold is lowered and more rows are kept.

Rule: sort rows by confidence, keep those with confidence >= t; coverage(t) = kept / n, selective
risk(t) = errors among kept / kept. Rows with tied confidence are kept or rejected together, so the curve has
one point per distinct confidence. AURC = (1/n) sum_{k=1..n} risk_k, with risk_k the selective risk of the k
most confident rows, where ties are averaged over every order of the tied rows (the expected value under
random tie-breaking, not the order the sort happened to produce).
Notes: seed 004, D4:1986-1996 (reject option); catalogue section 3.4 ([STD] accuracy-coverage curve);
Geifman & El-Yaniv 2017, Geifman et al. 2019 (AURC, E-AURC).

Sections cited: Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1986)"""

from __future__ import annotations

import math

import numpy as np

from ..base import UNIT, Interval, check_1d, check_array, checked_arguments, positive_int


def _sorted_errors(y_true, y_pred, confidence):
    """Errors (0/1) and confidences sorted by decreasing confidence, and the tie-group boundaries."""
    y = check_1d(y_true, "y_true")
    y_hat = check_1d(y_pred, "y_pred", y.shape[0])
    conf = check_array(check_1d(confidence, "confidence", y.shape[0]), ndim=None, name="confidence")
    order = np.argsort(-conf, kind="stable")
    errors = (y[order] != y_hat[order]).astype(np.float64)
    conf = conf[order]
    # last position of each group of equal confidences (in sorted order)
    group_end = np.append(np.nonzero(conf[1:] != conf[:-1])[0], conf.size - 1)
    return errors, conf, group_end


def risk_coverage_curve(y_true, y_pred, confidence) -> dict:
    """One point per distinct confidence t, in increasing coverage: accept the rows with confidence >= t.

    Returns {threshold, coverage, risk, n_accepted, n_errors} as arrays; the last point (lowest threshold)
    has coverage 1 and risk = the overall error rate.
    """
    errors, conf, group_end = _sorted_errors(y_true, y_pred, confidence)
    n_accepted = group_end + 1
    n_errors = np.cumsum(errors)[group_end]
    return {
        "threshold": conf[group_end],
        "coverage": n_accepted / errors.size,
        "risk": n_errors / n_accepted,
        "n_accepted": n_accepted.astype(np.int64),
        "n_errors": n_errors.astype(np.int64),
    }


def _risk_per_rank(y_true, y_pred, confidence) -> np.ndarray:
    """risk_k for k = 1..n, expected over random orders of tied confidences."""
    errors, _, group_end = _sorted_errors(y_true, y_pred, confidence)
    group_start = np.concatenate([[0], group_end[:-1] + 1])
    cum = np.concatenate([[0.0], np.cumsum(errors)])
    errors_before = cum[group_start]
    group_rate = (cum[group_end + 1] - errors_before) / (group_end + 1 - group_start)
    group_of = np.repeat(np.arange(group_end.size), group_end + 1 - group_start)
    k = np.arange(1, errors.size + 1)
    # the first k - start rows of a tied group hold group_rate errors each on average
    expected_errors = errors_before[group_of] + (k - group_start[group_of]) * group_rate[group_of]
    return expected_errors / k


def aurc(y_true, y_pred, confidence) -> float:
    """Area under the risk-coverage curve, (1/n) sum_k risk_k with ties averaged (lower is better)."""
    return float(np.mean(_risk_per_rank(y_true, y_pred, confidence)))


@checked_arguments(n_samples=positive_int(), n_errors=positive_int(0))
def optimal_aurc(n_samples: int, n_errors: int) -> float:
    """AURC of a perfect confidence ranking (every error ranked below every correct row), in closed form:
    (m - (n - m) (H_n - H_{n-m})) / n for n rows and m errors, H the harmonic numbers."""
    n, m = int(n_samples), int(n_errors)
    if m > n:
        raise ValueError(f"n_errors must be at most n_samples, got {n_errors} > {n_samples}")
    tail = np.sum(1.0 / np.arange(n - m + 1, n + 1))  # H_n - H_{n-m}
    return float((m - (n - m) * tail) / n)


def excess_aurc(y_true, y_pred, confidence) -> float:
    """E-AURC = AURC - optimal AURC at the same error count: the part due to the ranking alone."""
    y = check_1d(y_true, "y_true")
    n_errors = int(np.sum(y != check_1d(y_pred, "y_pred", y.shape[0])))
    return aurc(y_true, y_pred, confidence) - optimal_aurc(y.shape[0], n_errors)


@checked_arguments(target_risk=UNIT)
def coverage_at_risk(y_true, y_pred, confidence, target_risk: float) -> dict:
    """The largest coverage whose selective risk is <= target_risk, over the curve's thresholds.

    Returns {coverage, threshold, risk, achievable}; when no threshold reaches the target, coverage 0,
    threshold inf (reject everything), risk nan, achievable False.
    """
    target = float(target_risk)
    curve = risk_coverage_curve(y_true, y_pred, confidence)
    ok = np.nonzero(curve["risk"] <= target)[0]
    if ok.size == 0:
        return {"coverage": 0.0, "threshold": math.inf, "risk": math.nan, "achievable": False}
    i = ok[-1]
    return {
        "coverage": float(curve["coverage"][i]),
        "threshold": float(curve["threshold"][i]),
        "risk": float(curve["risk"][i]),
        "achievable": True,
    }


@checked_arguments(target_coverage=Interval(False, 0, 1, "right"))
def risk_at_coverage(y_true, y_pred, confidence, target_coverage: float) -> dict:
    """Selective risk at the highest threshold whose coverage is >= target_coverage: {coverage, threshold, risk}."""
    target = float(target_coverage)
    curve = risk_coverage_curve(y_true, y_pred, confidence)
    i = int(np.argmax(curve["coverage"] >= target - 1e-12))
    return {
        "coverage": float(curve["coverage"][i]),
        "threshold": float(curve["threshold"][i]),
        "risk": float(curve["risk"][i]),
    }
