"""Node impurities i(t) of CART and the decrease a split achieves (seed 000, lines 2667-2705; catalogue I2, and
seed-001-003-004 catalogue 7.8, erratum E28 for the entropy sign).

Classification, with p_k the (weighted) class fractions at node t:
  gini i(t) = sum_k p_k (1 - p_k) = 1 - sum_k p_k^2;  entropy i(t) = -sum_k p_k log2 p_k (bits);
  misclassification i(t) = 1 - max_k p_k;
  Real AdaBoost's Z: i(t) = K (prod_k p_k)^(1/K), binary 2 sqrt(p q), so that sum_leaves w_t i(t) = 2 sum_b
  sqrt(p_b q_b) = Z, the normaliser that Real AdaBoost's learner minimises (seed-001-003-004 catalogue 6.3, seed 001
  D1:463-482; K classes: the Z of the SAMME.R update, see ensemble/adaboost.py).
Regression: squared error i(t) = weighted variance of y (= (1/|S|^2) sum_ij (y_i - y_j)^2 / 2, line 2700).
Decrease of a split into children L, R: i(t) - (w_L / w_t) i(L) - (w_R / w_t) i(R), children weighted by their
size (the notes subtract unweighted child variances; standard CART, used here, weights them).

Sections cited:
- ML 1 lecture notes (seed 000): → Splitting Metrics (2667)
- CS 276 course review (seed 001): 4.2 RealBoost (463)"""

from __future__ import annotations

import numpy as np

from mllib.base import lookup

CLASSIFICATION_CRITERIA = ("gini", "entropy", "misclassification", "realboost_z")
REGRESSION_CRITERIA = ("squared_error",)


def _fractions(counts) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 1 or counts.size == 0 or (counts < 0).any() or counts.sum() <= 0:
        raise ValueError("class counts must be a non-empty 1-D array of non-negative numbers with a positive sum")
    return counts / counts.sum()


def gini(counts) -> float:
    """Gini impurity of a node with these (weighted) class counts."""
    p = _fractions(counts)
    return float(1.0 - np.dot(p, p))


def entropy(counts) -> float:
    """Shannon entropy in bits of a node with these (weighted) class counts."""
    p = _fractions(counts)
    p = p[p > 0]
    return float(-np.sum(p * np.log2(p)))


def misclassification(counts) -> float:
    """Misclassification impurity 1 - max_k p_k."""
    return float(1.0 - _fractions(counts).max())


def squared_error(y, sample_weight=None) -> float:
    """Weighted variance of the targets at a node (mean squared deviation from the node mean)."""
    y = np.asarray(y, dtype=np.float64)
    w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    mean = np.dot(w, y) / w.sum()
    return float(np.dot(w, (y - mean) ** 2) / w.sum())


def realboost_z(counts) -> float:
    """K times the geometric mean of the class fractions (binary: 2 sqrt(p q))."""
    p = _fractions(counts)
    return float(p.size * np.prod(p ** (1.0 / p.size)))


IMPURITIES = {"gini": gini, "entropy": entropy, "misclassification": misclassification, "realboost_z": realboost_z}


def impurity_decrease(parent, left, right, criterion: str = "gini") -> float:
    """i(parent) - (w_L/w) i(L) - (w_R/w) i(R) for class-count vectors (or target arrays for squared_error)."""
    if criterion == "squared_error":
        n_l, n_r = len(left), len(right)
        return squared_error(parent) - (n_l * squared_error(left) + n_r * squared_error(right)) / (n_l + n_r)
    f = lookup(IMPURITIES, criterion, "criterion")  # squared_error is handled above
    w_l, w_r = float(np.sum(left)), float(np.sum(right))
    return f(parent) - (w_l * f(left) + w_r * f(right)) / (w_l + w_r)
