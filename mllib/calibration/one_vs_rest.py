"""One-vs-rest calibration for K > 2 classes: a binary calibrator per class, then renormalisation.

Rule: for each class k fit a binary map g_k on (s_k(x), [y = k]) of held-out scores; the calibrated probability
is p_k(x) = g_k(s_k(x)) / sum_j g_j(s_j(x)) (Zadrozny and Elkan 2002, the multiclass extension of Platt scaling
and isotonic regression; catalogue section 3.2 [STD]). Each g_k is monotone, so ranking class k against the rest
is kept before the renormalisation (which can reorder rows: p_k depends on the other classes' maps too, so even
strictly increasing g_k may change the one-vs-rest AUC); the renormalised rows sum to 1. A row where every g_k is 0
(possible with isotonic or histogram maps far outside the calibration scores) gets the calibration data's class
frequencies.
Notes: seed 004, D4:1935-1982 (calibrate after training, on held-out predictions).

Sections cited: Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1935)"""

from __future__ import annotations

import numpy as np

from ..base import (
    BaseEstimator,
    check_array,
    check_class_indices,
    check_is_fitted,
    check_rows,
    check_sample_weight,
    check_width,
    clone,
)


class OneVsRestCalibration(BaseEstimator):
    """A clone of the binary `calibrator` per class, fitted on column k of (n, K) scores against [y = k].
    fit(scores, y): y holds the column index 0..K-1 of each row's true class.

    Parameters
    ----------
    calibrator : calibrator
        An unfitted binary calibrator (platt, beta, isotonic, histogram_binning, ...).

    Attributes
    ----------
    calibrators_ : list of calibrator
        One fitted calibrator per class.
    class_prior_ : ndarray
        The class frequencies of the fit.
    n_classes_ : int
        K, the number of classes.
    """

    def __init__(self, calibrator):
        self.calibrator = calibrator

    def fit(self, scores, y, sample_weight=None) -> OneVsRestCalibration:
        S = self._scores(scores)
        K = S.shape[1]
        y = check_class_indices(y, K, "y", "the scores")
        check_rows(scores=S, y=y)
        w = check_sample_weight(sample_weight, S.shape[0])
        missing = sorted(set(range(K)) - set(np.unique(y).tolist()))
        if missing:
            raise ValueError(f"classes {missing} have no calibration rows; every class needs held-out rows")
        self.calibrators_ = [
            clone(self.calibrator).fit(S[:, k], (y == k).astype(np.int64), sample_weight=w) for k in range(K)
        ]
        self.class_prior_ = np.bincount(y, weights=w, minlength=K) / w.sum()
        self.n_classes_ = K
        return self

    def _scores(self, scores) -> np.ndarray:
        S = check_array(scores, name="scores")
        if S.shape[1] < 3:
            raise ValueError(
                f"one-vs-rest calibration takes (n, K >= 3) class scores, got shape {S.shape}; "
                "calibrate binary scores with the binary calibrator itself"
            )
        return S

    def predict_proba(self, scores) -> np.ndarray:
        """Renormalised one-vs-rest probabilities, shape (n, K); rows sum to 1."""
        check_is_fitted(self)
        S = self._scores(scores)
        check_width(S, self.n_classes_, "scores", "the calibrator", "classes")
        P = np.column_stack([c.transform(S[:, k]) for k, c in enumerate(self.calibrators_)])
        total = P.sum(axis=1, keepdims=True)
        empty = total[:, 0] == 0
        P[empty], total[empty] = self.class_prior_, 1.0
        return P / total

    def transform(self, scores) -> np.ndarray:
        return self.predict_proba(scores)
