"""Temperature scaling: divide the logits by one scalar T > 0 before the softmax.

Rule: p(k | z) = softmax(z / T)_k with T minimising the negative log-likelihood on held-out calibration data;
T > 1 softens an over-confident model, T < 1 sharpens an under-confident one, and the argmax (hence the
accuracy and every ranking) never changes. Notes: seed 004, D4:1944-1949 (complex models are over-confident,
calibrate after training); catalogue section 3.1-3.2 [STD] (Guo et al. 2017).

The NLL is convex in the inverse temperature beta = 1/T (a log-sum-exp of functions linear in beta minus a
linear term), with derivative mean_i(E_p[z_i] - z_i,y_i) and second derivative mean_i Var_p(z_i) >= 0, so a
safeguarded Newton iteration on beta inside a sign-change bracket finds the global minimum.
Binary 1-D scores s are the logits (0, s): p(y = 1) = sigmoid(s / T).

Sections cited: Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1944)"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_softmax

from ..base import (
    BaseEstimator,
    check_array,
    check_class_indices,
    check_is_fitted,
    check_rows,
    check_sample_weight,
    check_width,
)
from ..base.constraints import POSITIVE, check_hyperparameters, positive_int
from ._checks import check_binary, row_chunks

_MAX_DOUBLINGS = 200


def _as_logits(scores) -> np.ndarray:
    """(n, K) logits from either (n, K) logits or 1-D binary scores (logits (0, s))."""
    z = check_array(scores, ndim=(1, 2), name="scores")
    if z.ndim == 1:
        return np.column_stack([np.zeros_like(z), z])
    if z.shape[1] < 2:
        raise ValueError(f"scores must be 1-D binary scores or (n, K >= 2) logits, got shape {z.shape}")
    return z


def _class_codes(y, logits: np.ndarray, binary: bool) -> np.ndarray:
    """y as int64 column indices of the true class (0/1 labels for binary scores)."""
    if binary:
        return check_binary(y, logits.shape[0]).astype(np.int64)
    y = check_class_indices(y, logits.shape[1], "y", "the logits")
    check_rows(logits=logits, y=y)
    return y


def _nll_derivatives(beta: float, zt: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """First and second derivative in beta of the weighted mean NLL of softmax(beta * z), for logits z
    shifted so that the true class's logit is 0 in every row (the NLL is then mean lse(beta z)), summed over
    chunks of rows. zt is z transposed, (K, n): the reductions over the few classes then run as elementwise
    operations on whole rows of zt (along a row of z they were most of the time: 9x)."""
    slope = curvature = 0.0
    for rows in row_chunks(zt.shape[1]):
        z = zt[:, rows]
        p = beta * z  # softmax over the classes, as scipy.special.softmax computes it
        p -= p.max(axis=0)
        np.exp(p, out=p)
        p /= p.sum(axis=0)
        mean_z = np.sum(p * z, axis=0)
        var_z = np.sum(p * (z - mean_z) ** 2, axis=0)
        slope += float(w[rows] @ mean_z)
        curvature += float(w[rows] @ var_z)
    return slope, curvature


class TemperatureScaling(BaseEstimator):
    """p = softmax(z / T), one temperature for all classes, fitted by minimising the NLL over T > 0.

    fit(scores, y): scores are (n, K) logits with y the column index of the true class, or 1-D binary
    scores (log-odds) with y in {0, 1}. transform returns p(y = 1) for 1-D input and the (n, K)
    probabilities for logits; predict_proba always returns (n, K) (K = 2 for 1-D input).

    Parameters
    ----------
    max_iter : int, default 100
        Newton iterations on beta = 1/T.
    tol : float, default 1e-12
        Stop when the bracket or the Newton step is below tol * beta.

    Attributes
    ----------
    temperature_ : float
        T.
    n_classes_ : int
        K, the number of classes.
    n_iter_ : int
        The iterations on beta = 1/T.
    """

    _constraints = {"max_iter": positive_int(), "tol": POSITIVE}

    def __init__(self, max_iter: int = 100, tol: float = 1e-12):
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, scores, y, sample_weight=None) -> TemperatureScaling:
        check_hyperparameters(self)
        binary = np.ndim(scores) == 1
        z = _as_logits(scores)
        codes = _class_codes(y, z, binary)
        w = check_sample_weight(sample_weight, z.shape[0])
        w = w / w.sum()
        # shift each row by its true-class logit: softmax is shift-invariant, and z_true becomes 0
        zt = np.subtract(z.T, z[np.arange(z.shape[0]), codes], out=np.empty(z.shape[::-1]))
        n_classes = z.shape[1]
        del z

        if not np.any(zt[:, w > 0] > 0):
            # no row has a class scored above its true class: the NLL falls towards 0 as T -> 0 and has no minimum
            raise ValueError(
                "the scores separate the classes perfectly (the true class has the largest score in every row): "
                "the NLL keeps decreasing as T -> 0, so no temperature minimises it; use another calibration method "
                "or none"
            )
        slope0, _ = _nll_derivatives(0.0, zt, w)
        if slope0 >= 0:
            raise ValueError(
                "the scores are not better than uniform guessing on the calibration data (the NLL decreases "
                "towards T = infinity); temperature scaling needs scores that rank the true class high"
            )
        lo, hi = 0.0, 1.0  # bracket of the root of the derivative: negative at lo, positive at hi
        for _ in range(_MAX_DOUBLINGS):
            slope, _ = _nll_derivatives(hi, zt, w)
            if slope >= 0:
                break
            lo, hi = hi, 2.0 * hi
        else:
            raise ValueError("the NLL keeps decreasing as T -> 0: the scores separate the classes perfectly")
        beta = 0.5 * (lo + hi) if lo == 0 else lo
        for n_iter in range(1, self.max_iter + 1):
            slope, curvature = _nll_derivatives(beta, zt, w)
            if slope < 0:
                lo = beta
            else:
                hi = beta
            step = slope / curvature if curvature > 0 else np.inf
            if abs(step) <= self.tol * beta:  # Newton step below tolerance: converged (quadratically)
                beta -= step
                break
            candidate = beta - step
            if not lo < candidate < hi:  # Newton left the bracket: bisect instead
                candidate = 0.5 * (lo + hi)
            beta = candidate
            if hi - lo <= self.tol * beta:
                break
        self.temperature_ = float(1.0 / beta)
        self.n_classes_ = n_classes
        self.n_iter_ = n_iter
        return self

    def _scaled_logits(self, scores) -> np.ndarray:
        check_is_fitted(self)
        z = _as_logits(scores)
        check_width(z, self.n_classes_, "scores", "the calibrator", "classes")
        return z / self.temperature_

    def transform(self, scores) -> np.ndarray:
        """p(y = 1) for 1-D scores, shape (n,); the (n, K) probabilities for logits."""
        if np.ndim(scores) == 1:
            return expit(self._scaled_logits(scores)[:, 1])
        return self.predict_proba(scores)

    def predict_proba(self, scores) -> np.ndarray:
        """softmax(z / T), shape (n, K); rows sum to 1."""
        return np.exp(log_softmax(self._scaled_logits(scores), axis=1))
