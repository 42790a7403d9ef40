"""ROC and precision-recall curves by sweeping a threshold over the scores, and their summaries.

Rule: predict positive when score >= t; each distinct score t gives one point, (FPR, TPR) for ROC
and (recall, precision) for PR. Tied scores cross the threshold together, so they form one step.
Notes: seed 001, D1:112-127 (ROC and PR curves); seed 004, D4:413 (prompt only). AUC and average
precision are standard summaries [STD] (catalogue 2.8); conventions follow sklearn.

y_true must be binary {0, 1} (1 = positive). A curve needs both classes (ROC) or at least one
positive (PR); otherwise it is undefined and a ValueError says so. Samples with zero weight are
dropped first, so they add no threshold.

Sections cited:
- CS 276 course review (seed 001): 2.3 ROC and PR Curves (112)
- Ghent ML notes (seed 004): 3.1 Error Functions for Model Selection (413)"""

from __future__ import annotations

import numpy as np

from mllib.base import (
    check_array,
    check_binary_labels,
    check_class_indices,
    check_rows,
    check_sample_weight,
    check_value,
    positive_int,
)


def _cumulative_counts(y_true, y_score, sample_weight):
    """(tps, fps, thresholds): weighted TP and FP counts when predicting score >= t, t descending."""
    positive = check_binary_labels(y_true, "y_true")
    score = check_array(y_score, ndim=1, name="y_score")
    n = check_rows(y_true=positive, y_score=score)
    w = check_sample_weight(sample_weight, n)
    keep = w != 0
    positive, score, w = positive[keep], score[keep], w[keep]
    order = np.argsort(-score, kind="stable")
    positive, score, w = positive[order], score[order], w[order]
    # last index of each run of tied scores: the threshold admits the whole run at once
    step_ends = np.r_[np.flatnonzero(np.diff(score)), score.size - 1]
    tps = np.cumsum(w * positive)[step_ends]
    fps = np.cumsum(w * ~positive)[step_ends]
    return tps, fps, score[step_ends]


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(what)


def roc_curve(y_true, y_score, sample_weight=None):
    """(fpr, tpr, thresholds), one point per distinct score plus a first point (0, 0) at threshold +inf.

    thresholds are decreasing; point i predicts positive for score >= thresholds[i]. Matches
    sklearn.metrics.roc_curve(..., drop_intermediate=False). ValueError if y_true (after dropping
    zero weights) has a single class: FPR or TPR would divide by zero.
    """
    tps, fps, thresholds = _cumulative_counts(y_true, y_score, sample_weight)
    _require(
        tps[-1] > 0 and fps[-1] > 0,
        f"y_true has a single class ({'no positives' if tps[-1] == 0 else 'no negatives'}); "
        "the ROC curve and ROC-AUC are undefined",
    )
    fpr = np.r_[0.0, fps] / fps[-1]
    tpr = np.r_[0.0, tps] / tps[-1]
    return fpr, tpr, np.r_[np.inf, thresholds]


def roc_auc_score(y_true, y_score, sample_weight=None) -> float:
    """Area under the ROC curve = P(score of a random positive > score of a random negative) + 1/2 P(tie).

    Trapezoids over the tie-aware curve: a tied group is one diagonal step, which is exactly the
    1/2 credit of the Mann-Whitney statistic. Invariant under any strictly increasing transform of
    the scores. ValueError if y_true has a single class (AUC undefined).
    """
    fpr, tpr, _ = roc_curve(y_true, y_score, sample_weight=sample_weight)
    return float(np.trapezoid(tpr, fpr))


def precision_recall_curve(y_true, y_score, sample_weight=None):
    """(precision, recall, thresholds) in sklearn's layout.

    thresholds increasing (one per distinct score); precision[i], recall[i] are those of predicting
    score >= thresholds[i]; a final point (recall 0, precision 1) without threshold closes the curve
    on the y-axis. ValueError if y_true has no positives (recall undefined).
    """
    tps, fps, thresholds = _cumulative_counts(y_true, y_score, sample_weight)
    _require(tps[-1] > 0, "y_true has no positives; recall and the precision-recall curve are undefined")
    # tps + fps > 0 at every threshold: the highest score group holds at least one weighted sample
    precision = tps / (tps + fps)
    recall = tps / tps[-1]
    return np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0], thresholds[::-1]


def average_precision_score(y_true, y_score, sample_weight=None) -> float:
    """AP = sum_n (R_n - R_{n-1}) P_n over thresholds, highest first: the step-function (not
    interpolated) area under the PR curve, as sklearn. ValueError if y_true has no positives."""
    precision, recall, _ = precision_recall_curve(y_true, y_score, sample_weight=sample_weight)
    # recall is decreasing in this layout, so -diff is the recall gained at each step
    return float(max(0.0, -np.sum(np.diff(recall) * precision[:-1])))


def _class_columns(y_true, proba) -> tuple[np.ndarray, np.ndarray]:
    """(class index per row, (n, K) scores) for one-vs-rest summaries of K >= 2 classes."""
    P = check_array(proba, name="proba")
    y = check_class_indices(y_true, P.shape[1], "y_true")
    check_rows(proba=P, y_true=y)
    return y, P


def one_vs_rest_auc(y_true, proba, sample_weight=None) -> np.ndarray:
    """ROC AUC of each class k against the rest, ranking by column k; nan for a class absent from y_true (or
    the only one present)."""
    y, P = _class_columns(y_true, proba)
    out = np.full(P.shape[1], np.nan)
    for k in range(P.shape[1]):
        positive = y == k
        if positive.any() and not positive.all():
            out[k] = roc_auc_score(positive.astype(np.int64), P[:, k], sample_weight=sample_weight)
    return out


def roc_auc_ovr(y_true, proba, sample_weight=None) -> float:
    """Macro one-vs-rest ROC AUC: the unweighted mean of each present class's AUC against the rest (as
    scikit-learn's roc_auc_score(multi_class="ovr", average="macro")). Classes absent from y_true are left out."""
    auc = one_vs_rest_auc(y_true, proba, sample_weight=sample_weight)
    if np.isnan(auc).all():
        raise ValueError("y_true holds a single class; one-vs-rest ROC AUC is undefined")
    return float(np.nanmean(auc))


def top_k_accuracy(y_true, proba, k: int) -> float:
    """Fraction of rows whose true class is among the k classes of largest probability (ties: the lower index)."""
    y, P = _class_columns(y_true, proba)
    check_value("top_k_accuracy", "k", k, positive_int(1, P.shape[1]))
    top = np.argsort(-P, axis=1, kind="stable")[:, :k]
    return float(np.mean((top == y[:, None]).any(axis=1)))
