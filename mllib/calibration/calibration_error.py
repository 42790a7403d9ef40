"""Scalar summaries of the reliability diagram: expected and maximum calibration error.

Rule: ECE = sum_b (n_b / n) |fraction_positive_b - mean_predicted_b| over the non-empty bins;
MCE = max_b |fraction_positive_b - mean_predicted_b| over the non-empty bins.
The binning spec: `expected_calibration_error` / `maximum_calibration_error` return the bare number for the
n_bins / strategy passed in; `calibration_summary` returns both numbers with the spec recorded beside them.
Not in the notes (catalogue section 3.1, [STD] scalar summaries); the binning is `reliability_curve`'s,
so the same n_bins / strategy / edge rule must be reported with the number.
"""

from __future__ import annotations

import numpy as np

from ..base import check_array, check_class_indices, check_rows, to_python
from ._checks import check_binary, check_probabilities, group_index
from .reliability import reliability_curve


def _bin_gaps(y_true, proba, n_bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    curve = reliability_curve(y_true, proba, n_bins=n_bins, strategy=strategy)
    filled = curve["count"] > 0
    gaps = np.abs(curve["fraction_positive"][filled] - curve["mean_predicted"][filled])
    return gaps, curve["count"][filled]


def expected_calibration_error(y_true, proba, n_bins: int = 10, strategy: str = "uniform") -> float:
    """ECE: the count-weighted mean absolute gap between observed frequency and mean prediction per bin."""
    gaps, counts = _bin_gaps(y_true, proba, n_bins, strategy)
    return float(counts @ gaps / counts.sum())


def maximum_calibration_error(y_true, proba, n_bins: int = 10, strategy: str = "uniform") -> float:
    """MCE: the largest absolute gap between observed frequency and mean prediction over non-empty bins."""
    gaps, _ = _bin_gaps(y_true, proba, n_bins, strategy)
    return float(gaps.max())


def calibration_summary(y_true, proba, n_bins: int = 10, strategy: str = "uniform") -> dict:
    """ECE and MCE together with the binning spec that produced them.

    Returns {ece, mce, n_bins (requested), strategy, n_bins_used (bins after quantile merging),
    n_nonempty_bins, n}; the numbers are only comparable between runs with the same spec.
    """
    curve = reliability_curve(y_true, proba, n_bins=n_bins, strategy=strategy)
    filled = curve["count"] > 0
    gaps = np.abs(curve["fraction_positive"][filled] - curve["mean_predicted"][filled])
    counts = curve["count"][filled]
    return {
        "ece": float(counts @ gaps / counts.sum()),
        "mce": float(gaps.max()),
        "n_bins": int(n_bins),
        "strategy": strategy,
        "n_bins_used": int(curve["count"].size),
        "n_nonempty_bins": int(filled.sum()),
        "n": int(counts.sum()),
    }


def group_calibration_summary(y_true, proba, groups, n_bins: int = 10, strategy: str = "uniform") -> dict:
    """calibration_summary within each group: {group value: {ece, mce, n_bins, strategy, ...}} in sorted order.

    Bins are formed within each group (quantile edges from that group's predictions), so a small group gets
    few rows per bin and a noisy ECE: read it with the group's n.
    """
    p = check_probabilities(proba)
    y = check_binary(y_true, p.shape[0], name="y_true")
    values, inverse = group_index(groups, p.shape[0])
    return {
        to_python(value): calibration_summary(y[inverse == i], p[inverse == i], n_bins=n_bins, strategy=strategy)
        for i, value in enumerate(values)
    }


def _class_matrix(y_true, proba) -> tuple[np.ndarray, np.ndarray]:
    P = check_array(proba, name="proba")
    y = check_class_indices(y_true, P.shape[1], "y_true")
    check_rows(proba=P, y_true=y)
    return y, P


def top_label_calibration(y_true, proba, n_bins: int = 10, strategy: str = "uniform") -> dict:
    """calibration_summary of the top label: is the largest probability as often right as it says?
    (confidence max_k p_k against whether argmax_k p_k is the true class; Guo et al. 2017's ECE.)"""
    y, P = _class_matrix(y_true, proba)
    correct = (np.argmax(P, axis=1) == y).astype(np.int64)
    return calibration_summary(correct, P.max(axis=1), n_bins=n_bins, strategy=strategy)


def classwise_ece(y_true, proba, n_bins: int = 10, strategy: str = "uniform") -> dict:
    """{per_class: ECE of p_k against [y = k] for each class k, mean: their average} (Kull et al. 2019)."""
    y, P = _class_matrix(y_true, proba)
    per_class = [
        expected_calibration_error((y == k).astype(np.int64), P[:, k], n_bins=n_bins, strategy=strategy)
        for k in range(P.shape[1])
    ]
    return {"per_class": per_class, "mean": float(np.mean(per_class))}
