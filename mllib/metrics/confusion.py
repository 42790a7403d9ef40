"""Confusion matrix and the table of rates read off it.

Rule: count (true, predicted) pairs; every classification rate is a ratio of sums of those counts.
Notes: seed 004, D4:395-409 (metric table, Table 1); seed 003, D3:151-162 (matrix, FP/FN rate vs
fraction); seed 004, D4:570 ("three confusion matrices": raw, row- and column-normalised).

Orientation: rows = TRUE label, columns = PREDICTED label (sklearn's convention). The notes print
the transpose (D3:153-158, D4:2070-2077). Binary metrics never index the matrix by position: they
go through `binary_counts`, which names the four cells tp, fp, fn, tn.

Errata corrected (catalogue section 1):
  E1  specificity          = TN / (TN + FP)              (D4:403 prints TP / (FP + TN))
  E2  false omission rate  = FN / (FN + TN) = 1 - NPV    (D4:406 prints FN / (FN + FP))
  E3  F_beta               = (1 + b^2) P R / (b^2 P + R)  (D4:409 prints (1 + b^2) P R / (b^2 (P + R)),
                                                          which exceeds 1 for b < 1)

Undefined values: a ratio whose denominator is zero (precision when nothing is predicted positive,
recall when a class never occurs, ...) is float('nan'), never 0.

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Deterministic classifier (151, 153)
- Ghent ML notes (seed 004): 3.1 Error Functions for Model Selection (395, 403, 406, 409); 3.5 Analysis of Model
  Performance (570); 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2070)"""

from __future__ import annotations

import numpy as np

from mllib.base import (
    Interval,
    Options,
    check_binary_labels,
    check_rows,
    check_sample_weight,
    checked_arguments,
    safe_divide,
)

from ._checks import check_label_kinds, class_labels

_AVERAGES = Options(("macro", "micro", "weighted", None))
_NORMALIZE = Options((None, "true", "pred", "all"))
_BETA = Interval(False, 0, float("inf"), "left", "a finite number >= 0")


def _unique_labels(labels, name: str = "labels") -> np.ndarray:
    labels = class_labels(labels, name)
    if np.unique(labels).size != labels.size:
        raise ValueError(f"{name} contains duplicates: {labels.tolist()}")
    return labels


def _index_of(values: np.ndarray, labels: np.ndarray, name: str) -> np.ndarray:
    """Position of each value in `labels`; ValueError naming the values that are not in `labels`."""
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    pos = np.minimum(np.searchsorted(sorted_labels, values), labels.size - 1)
    found = sorted_labels[pos] == values
    if not found.all():
        unseen = np.unique(values[~found]).tolist()
        raise ValueError(f"{name} contains labels {unseen} that are not in labels={labels.tolist()}")
    return order[pos]


def _checked_pair(y_true, y_pred, sample_weight):
    y_true, y_pred = class_labels(y_true, "y_true"), class_labels(y_pred, "y_pred")
    n = check_rows(y_true=y_true, y_pred=y_pred)
    check_label_kinds(y_true=y_true, y_pred=y_pred)
    return y_true, y_pred, check_sample_weight(sample_weight, n)


def _counts(true_idx, pred_idx, w, n_labels: int, weighted: bool) -> np.ndarray:
    flat = np.bincount(true_idx * n_labels + pred_idx, weights=w, minlength=n_labels * n_labels)
    matrix = flat.reshape(n_labels, n_labels)
    # unweighted counts stay integers so they print and compare exactly
    return matrix if weighted else np.rint(matrix).astype(np.int64)


@checked_arguments(normalize=_NORMALIZE)
def confusion_matrix(y_true, y_pred, labels=None, sample_weight=None, normalize=None) -> np.ndarray:
    """C[i, j] = (weighted) number of samples with true label labels[i] predicted as labels[j].

    labels: row/column order; default the sorted union of the labels in y_true and y_pred. Labels
    listed but absent from the data give zero rows/columns (a fold that misses a class keeps its
    shape); data values missing from an explicit `labels` raise ValueError (sklearn drops them
    silently, which would change n).
    normalize (the notes' three matrices, D4:570): None = raw counts (int64 unweighted, float64
    weighted); "true" = each row divided by its total (row i = distribution of predictions for true
    class i, diagonal = per-class recall); "pred" = each column divided by its total (diagonal =
    per-class precision); "all" = divided by the grand total. An empty row/column is nan (undefined).
    """
    y_true, y_pred, w = _checked_pair(y_true, y_pred, sample_weight)
    if labels is None:
        labels = np.unique(np.concatenate([y_true, y_pred]))
    else:
        labels = _unique_labels(labels)
        check_label_kinds(y_true=y_true, labels=labels)
    true_idx = _index_of(y_true, labels, "y_true")
    pred_idx = _index_of(y_pred, labels, "y_pred")
    matrix = _counts(true_idx, pred_idx, w, labels.size, weighted=sample_weight is not None)
    if normalize == "true":
        return safe_divide(matrix, matrix.sum(axis=1, keepdims=True))
    if normalize == "pred":
        return safe_divide(matrix, matrix.sum(axis=0, keepdims=True))
    if normalize == "all":
        return safe_divide(matrix, matrix.sum())
    return matrix


def binary_counts(y_true, y_pred, sample_weight=None) -> dict:
    """{tp, fp, fn, tn} for labels {0, 1} with 1 = positive.

    Ints when unweighted, floats (sums of weights) when sample_weight is given. ValueError naming
    the offending values if either array has labels outside {0, 1}.
    """
    actual = check_binary_labels(y_true, "y_true")
    predicted = check_binary_labels(y_pred, "y_pred")
    n = check_rows(y_true=actual, y_pred=predicted)
    w = check_sample_weight(sample_weight, n)
    cells = {
        "tp": actual & predicted,
        "fp": ~actual & predicted,
        "fn": actual & ~predicted,
        "tn": ~actual & ~predicted,
    }
    if sample_weight is None:
        return {name: int(mask.sum()) for name, mask in cells.items()}
    return {name: float(w[mask].sum()) for name, mask in cells.items()}


def _f_beta(tp, fp, fn, beta: float):
    # Count form of (1 + b^2) P R / (b^2 P + R): equal wherever P and R are defined, and it stays
    # defined (= 0) when TP = 0 but errors exist; undefined only when there is nothing positive at all.
    b2 = beta * beta
    return safe_divide((1.0 + b2) * tp, (1.0 + b2) * tp + b2 * fn + fp)


@checked_arguments(beta=_BETA)
def classification_table(tp, fp, fn, tn, beta: float = 1.0) -> dict:
    """The corrected metric table of seed 004, D4:395-409, from the four counts.

    Keys: accuracy, misclassification_rate, precision (PPV), recall (TPR, sensitivity), fall_out
    (FPR), specificity (TNR), fdr, fnr (miss rate), false_omission_rate, npv, prevalence, f1,
    f_beta, n. Inputs may be scalars (floats returned) or arrays of equal shape (arrays returned,
    element-wise). Entries with a zero denominator are nan (undefined).
    """
    counts = {name: np.asarray(v, dtype=np.float64) for name, v in dict(tp=tp, fp=fp, fn=fn, tn=tn).items()}
    for name, value in counts.items():
        if not np.isfinite(value).all() or (value < 0).any():
            raise ValueError(f"{name} must be finite and non-negative, got {value.tolist()}")
    tp, fp, fn, tn = (counts[k] for k in ("tp", "fp", "fn", "tn"))
    n = tp + fp + fn + tn
    table = {
        "accuracy": safe_divide(tp + tn, n),
        "misclassification_rate": safe_divide(fp + fn, n),
        "precision": safe_divide(tp, tp + fp),
        "recall": safe_divide(tp, tp + fn),
        "fall_out": safe_divide(fp, fp + tn),
        "specificity": safe_divide(tn, tn + fp),  # E1
        "fdr": safe_divide(fp, fp + tp),
        "fnr": safe_divide(fn, fn + tp),
        "false_omission_rate": safe_divide(fn, fn + tn),  # E2
        "npv": safe_divide(tn, tn + fn),
        "prevalence": safe_divide(tp + fn, n),
        "f1": _f_beta(tp, fp, fn, 1.0),
        "f_beta": _f_beta(tp, fp, fn, beta),  # E3
    }
    table["n"] = float(n) if n.ndim == 0 else n
    return table


def binary_metrics(y_true, y_pred, sample_weight=None, beta: float = 1.0) -> dict:
    """binary_counts(...) merged with classification_table(...) of those counts."""
    counts = binary_counts(y_true, y_pred, sample_weight=sample_weight)
    return {**counts, **classification_table(**counts, beta=beta)}


def _per_class_sums(y_true, y_pred, labels, sample_weight):
    """labels, tp, predicted totals and true totals per label, one-vs-rest.

    Samples whose labels are not among an explicit `labels` still count as negatives for every
    listed class (so labels can restrict an average to some classes without changing the counts).
    """
    y_true, y_pred, w = _checked_pair(y_true, y_pred, sample_weight)
    present = np.unique(np.concatenate([y_true, y_pred]))
    if labels is None:
        labels = present
    else:
        labels = _unique_labels(labels)
        check_label_kinds(y_true=y_true, labels=labels)
    every_label = np.unique(np.concatenate([present, labels]))
    matrix = _counts(
        _index_of(y_true, every_label, "y_true"),
        _index_of(y_pred, every_label, "y_pred"),
        w,
        every_label.size,
        weighted=True,
    )
    selected = _index_of(labels, every_label, "labels")
    tp = np.diag(matrix)[selected]
    return labels, tp, matrix.sum(axis=0)[selected], matrix.sum(axis=1)[selected]


@checked_arguments(average=_AVERAGES, beta=_BETA)
def precision_recall_f1(y_true, y_pred, average="macro", labels=None, beta: float = 1.0, sample_weight=None) -> dict:
    """Per-class (one-vs-rest) precision, recall and F_beta, optionally averaged.

    average: None -> arrays in `labels` order; "macro" -> unweighted mean over classes; "weighted"
    -> mean weighted by support (number of true samples per class); "micro" -> ratios of the summed
    counts (for single-label multiclass over all classes this equals accuracy).
    Undefined per-class values (a class never predicted: precision; never present: recall) are nan
    and make the macro average nan too (sklearn with zero_division=nan would skip them instead);
    a class with zero support has zero weight in the weighted average.
    Returns {precision, recall, f_beta, support (float per-label weighted true counts), labels}.
    """
    labels, tp, predicted, actual = _per_class_sums(y_true, y_pred, labels, sample_weight)
    if average == "micro":
        tp, predicted, actual = tp.sum(), predicted.sum(), actual.sum()
    fp, fn = predicted - tp, actual - tp
    scores = {
        "precision": safe_divide(tp, predicted),
        "recall": safe_divide(tp, actual),
        "f_beta": _f_beta(tp, fp, fn, beta),
    }
    if average == "macro":
        scores = {k: float(np.mean(v)) for k, v in scores.items()}
    elif average == "weighted":
        total = actual.sum()
        # a zero-weight class contributes nothing, even if its value is undefined
        scores = {k: safe_divide(np.sum(np.where(actual > 0, v * actual, 0.0)), total) for k, v in scores.items()}
    return {**scores, "support": actual, "labels": labels}


def accuracy_score(y_true, y_pred, sample_weight=None) -> float:
    """(Weighted) fraction of samples whose predicted label equals the true label, (TP + TN) / n."""
    y_true, y_pred, w = _checked_pair(y_true, y_pred, sample_weight)
    return float(np.sum(w * (y_true == y_pred)) / np.sum(w))


def balanced_accuracy_score(y_true, y_pred, sample_weight=None) -> float:
    """Mean per-class recall over the classes present in y_true; binary: (TPR + TNR) / 2.

    Classes that occur only in y_pred have no recall and are not part of the mean (as sklearn).
    """
    _, tp, _, actual = _per_class_sums(y_true, y_pred, None, sample_weight)
    present = actual > 0
    return float(np.mean(tp[present] / actual[present]))


def f1_macro(y_true, y_pred, sample_weight=None) -> float:
    """Unweighted mean over the classes present in y_true or y_pred of the one-vs-rest F1 (count form: 0 for a
    class with no true positive, undefined only for a class with no rows at all)."""
    return float(precision_recall_f1(y_true, y_pred, average="macro", sample_weight=sample_weight)["f_beta"])


def multiclass_report(y_true, y_pred, labels) -> dict:
    """Per-class precision / recall / F1 / support (one-vs-rest, in `labels` order) and their macro, micro and
    weighted averages, with the K x K confusion matrix (rows = true, columns = predicted)."""
    labels = np.asarray(labels)
    per_class = precision_recall_f1(y_true, y_pred, average=None, labels=labels)
    averages = {
        avg: {
            k: float(v)
            for k, v in precision_recall_f1(y_true, y_pred, average=avg, labels=labels).items()
            if k in ("precision", "recall", "f_beta")
        }
        for avg in ("macro", "micro", "weighted")
    }
    return {
        "confusion": confusion_matrix(y_true, y_pred, labels=labels),
        "per_class": {k: per_class[k] for k in ("precision", "recall", "f_beta", "support")},
        "averages": {
            avg: {"precision": v["precision"], "recall": v["recall"], "f1": v["f_beta"]} for avg, v in averages.items()
        },
        "accuracy": accuracy_score(y_true, y_pred),
        "balanced_accuracy": balanced_accuracy_score(y_true, y_pred),
    }
