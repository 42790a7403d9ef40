"""Split-conformal prediction sets for classification.

Rule: on n held-out rows compute the nonconformity s_i = 1 - p_{y_i}(x_i) (one minus the probability given to
the true class); q = the ceil((n + 1)(1 - alpha))-th smallest s_i; the set of a new x is
C(x) = {k : 1 - p_k(x) <= q}. If the held-out rows and the new row are exchangeable,
P(y in C(x)) >= 1 - alpha, and <= 1 - alpha + 1 / (n + 1) when the scores have no ties (Vovk et al. 2005;
Sadinle, Lei and Wasserman 2019: this score gives the smallest average set among rules with that coverage when
p is the true posterior). When ceil((n + 1)(1 - alpha)) > n the quantile is +infinity and every set is full.
A set may be empty (no class is likely enough); the rate is reported, never hidden.
"""

from __future__ import annotations

import math

import numpy as np

from ..base import (
    OPEN_UNIT,
    BaseEstimator,
    check_array,
    check_class_indices,
    check_hyperparameters,
    check_is_fitted,
    check_posteriors,
    check_rows,
    check_width,
    checked_arguments,
)

# (n + 1)(1 - alpha) is often an integer in exact arithmetic (n = 99, alpha = 0.1); rounding must not push the
# rank one higher (to the next order statistic, or to +infinity)
_RANK_SLACK = 1e-9


@checked_arguments(coverage=OPEN_UNIT)
def conformal_quantile(scores, coverage: float) -> float:
    """The ceil((n + 1) coverage)-th smallest of the n scores, or +inf when that rank exceeds n."""
    s = np.sort(check_array(scores, ndim=1, name="scores"))
    rank = math.ceil((s.size + 1) * coverage - _RANK_SLACK)
    return math.inf if rank > s.size else float(s[rank - 1])


class SplitConformalClassifier(BaseEstimator):
    """Prediction sets with coverage >= `coverage` from calibrated probabilities of held-out rows.
    fit(proba, y): (n, K) probabilities of held-out rows (never seen by the model that produced them) and the true
    class index 0..K-1 of each row.

    Parameters
    ----------
    coverage : float, default 0.9
        1 - alpha, the target probability that the set holds the true class.

    Attributes
    ----------
    threshold_ : float
        q.
    n_calibration_ : int
        The number of held-out rows fitted on.
    n_classes_ : int
        K, the number of classes.
    """

    _constraints = {"coverage": OPEN_UNIT}

    def __init__(self, coverage: float = 0.9):
        self.coverage = coverage

    def fit(self, proba, y) -> SplitConformalClassifier:
        check_hyperparameters(self)
        P = check_posteriors(proba)
        y = check_class_indices(y, P.shape[1])
        check_rows(proba=P, y=y)
        nonconformity = 1.0 - P[np.arange(P.shape[0]), y]
        self.threshold_ = conformal_quantile(nonconformity, self.coverage)
        self.n_calibration_ = int(P.shape[0])
        self.n_classes_ = int(P.shape[1])
        return self

    def predict_set(self, proba) -> np.ndarray:
        """Boolean membership (n, K): class k is in row i's set when 1 - p_ik <= threshold_."""
        check_is_fitted(self)
        P = check_posteriors(proba)
        check_width(P, self.n_classes_, "proba", "the conformal sets", "classes")
        return 1.0 - P <= self.threshold_


def set_summary(sets: np.ndarray, y) -> dict:
    """Coverage (fraction of rows whose set holds the true class), mean set size, and the empty / singleton / full
    set rates of boolean (n, K) sets."""
    sets, y = np.asarray(sets, dtype=bool), np.asarray(y)
    size = sets.sum(axis=1)
    return {
        "coverage": float(sets[np.arange(y.size), y].mean()),
        "mean_set_size": float(size.mean()),
        "empty_rate": float(np.mean(size == 0)),
        "singleton_rate": float(np.mean(size == 1)),
        "full_rate": float(np.mean(size == sets.shape[1])),
        "n": int(y.size),
    }
