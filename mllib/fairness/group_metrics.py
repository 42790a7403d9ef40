"""Per-group confusion counts and error rates: the raw material of every group-fairness criterion.

Rule: for each group i, the real world fixes n_i negatives and p_i positives; the classifier fixes
f_i false positives and t_i true positives; every rate is a ratio of these counts, e.g. TPR_i = t_i / p_i
(ERRATUM E4: D4:2092 divides by n_i), FPR_i = f_i / n_i, PPV_i = t_i / (t_i + f_i).
Notes: seed 004, D4:2062-2083 (criteria and the per-group confusion matrix); catalogue sections 5.1, E4, E5.

Counts are returned by name (tp, fp, fn, tn), never as a matrix, so no result depends on the matrix
orientation (the notes put predictions in rows, D4:2070-2077; catalogue caveat 0.4).

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2062,
    2070, 2092)"""

from __future__ import annotations

import numpy as np

from ..base import check_binary_labels, safe_divide, to_python
from ._checks import group_index

# the order of the keys in each group's dict
COUNTS = ("n", "n_pos", "n_neg", "tp", "fp", "fn", "tn")
RATES = ("base_rate", "selection_rate", "tpr", "fpr", "fnr", "tnr", "precision", "npv", "accuracy")


def group_confusion(y_true, y_pred, groups) -> dict:
    """Confusion counts and rates of binary predictions per group.

    y_true, y_pred: labels in {0, 1} (1 = positive); groups: one hashable value per sample (ints, strings, ...).
    Returns {group value: {n, n_pos, n_neg, tp, fp, fn, tn, base_rate, selection_rate, tpr, fpr, fnr, tnr,
    precision, npv, accuracy}} in sorted group order; group values and counts are plain Python ints/strs.
    A rate whose denominator is 0 in a group (e.g. TPR of a group without positives) is float('nan').
    """
    y = check_binary_labels(y_true, "y_true")
    y_hat = check_binary_labels(y_pred, "y_pred", n_samples=y.shape[0])
    values, inverse = group_index(groups, y.shape[0])
    k = values.size

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(inverse[mask], minlength=k)

    tp, fp = count(y & y_hat), count(~y & y_hat)
    fn, tn = count(y & ~y_hat), count(~y & ~y_hat)
    n_pos, n_neg = tp + fn, fp + tn
    n = n_pos + n_neg
    columns = {
        "n": n,
        "n_pos": n_pos,
        "n_neg": n_neg,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "base_rate": safe_divide(n_pos, n),
        "selection_rate": safe_divide(tp + fp, n),
        "tpr": safe_divide(tp, n_pos),  # recall: t_i / p_i (E4)
        "fpr": safe_divide(fp, n_neg),  # f_i / n_i
        "fnr": safe_divide(fn, n_pos),
        "tnr": safe_divide(tn, n_neg),
        "precision": safe_divide(tp, tp + fp),  # PPV
        "npv": safe_divide(tn, tn + fn),
        "accuracy": safe_divide(tp + tn, n),
    }
    return {
        to_python(value): {
            **{key: int(columns[key][i]) for key in COUNTS},
            **{key: float(columns[key][i]) for key in RATES},
        }
        for i, value in enumerate(values)
    }
