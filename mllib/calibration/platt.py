"""Platt scaling: a one-feature logistic regression from a classifier's score to a calibrated probability.

Rule: p(y=1 | s) = sigmoid(a*s + b), with (a, b) minimising the log-loss on held-out calibration data
against Platt's smoothed targets t+ = (N+ + 1)/(N+ + 2), t- = 1/(N- + 2).
Notes: seed 004, D4:1966, 1976-1978 (Platt scaling named, no formula); catalogue section 3.2.

Sign convention: a > 0 when larger scores mean "more likely positive", so the map is increasing and
ranking metrics (ROC-AUC) are unchanged. Platt (1999), LibSVM and scikit-learn write
p = 1/(1 + exp(A*s + B)); their (A, B) is (-a, -b).

The calibrator must be fitted on data the base model never saw (a CV fold or a separate split),
otherwise the scores are over-confident on exactly the rows being calibrated (D3:177).

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Probabilistic classifier (177)
- Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1966)"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..base import BaseEstimator, check_is_fitted, check_sample_weight
from ..base.constraints import BOOLEAN, POSITIVE, check_hyperparameters, positive_int
from ._checks import check_binary, check_not_separated, check_scores
from ._logistic import fit_logistic


def platt_targets(y: np.ndarray, n_pos: float, n_neg: float, smooth: bool) -> np.ndarray:
    """Platt's regularised targets: t+ = (N+ + 1)/(N+ + 2) for positives, t- = 1/(N- + 2) for negatives.

    They are the posterior means under a uniform prior on each side, so even a perfectly separating
    score gets finite (a, b); with smooth=False the targets are the labels themselves.
    """
    if not smooth:
        return y
    return np.where(y == 1, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


class PlattScaling(BaseEstimator):
    """Sigmoid calibration p = sigmoid(a*s + b) of 1-D scores, fitted by Newton's method.

    Parameters
    ----------
    smooth_targets : bool, default True
        Use Platt's targets t+ = (N+ + 1)/(N+ + 2), t- = 1/(N- + 2) instead of the raw 0/1 labels (N+, N- are the total
        sample weights of the positives and negatives, as in scikit-learn).
    max_iter : int, default 100
        Maximum number of Newton steps.
    tol : float, default 1e-12
        Stop once the Newton decrement of the mean log-loss, lambda^2 / 2 (the predicted remaining excess loss), is
        below tol; the step that achieved it is taken first, so the final error is ~quadratic in tol.

    Attributes
    ----------
    a_ : float
        The slope.
    b_ : float
        The intercept.
    n_iter_ : int
        The Newton steps taken.
    """

    _constraints = {"smooth_targets": BOOLEAN, "max_iter": positive_int(), "tol": POSITIVE}

    def __init__(self, smooth_targets: bool = True, max_iter: int = 100, tol: float = 1e-12):
        self.smooth_targets = smooth_targets
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, scores, y, sample_weight=None) -> PlattScaling:
        """Fit (a, b) on calibration scores and binary labels y in {0, 1} (1 = positive)."""
        check_hyperparameters(self)
        s = check_scores(scores)
        y = check_binary(y, s.shape[0])
        w = check_sample_weight(sample_weight, s.shape[0])
        n_pos, n_neg = float(w @ y), float(w @ (1.0 - y))
        if n_pos == 0 or n_neg == 0:
            raise ValueError(
                f"Platt scaling needs both classes with positive weight, got N+ = {n_pos}, N- = {n_neg}; "
                "use a stratified calibration split"
            )
        t = platt_targets(y, n_pos, n_neg, self.smooth_targets)
        used = w > 0
        if s[used].min() == s[used].max():
            # a constant score carries no ranking information: only the intercept is identifiable
            t_bar = float(w @ t) / w.sum()
            self.a_, self.b_ = 0.0, float(np.log(t_bar) - np.log1p(-t_bar))
            self.n_iter_ = 0
            return self
        if not self.smooth_targets:
            check_not_separated(s[used], y[used])
        # Standardise the scores: Newton is affine-invariant, but the 2x2 Hessian is far better conditioned,
        # so scores of any scale (margins of 1e6 or probabilities in [0, 1]) are handled alike.
        center = float(np.mean(s[used]))
        scale = float(np.max(np.abs(s[used] - center)))  # max |deviation| rather than std: no squares to overflow
        x = (s - center) / scale
        w_mean = w / w.sum()  # mean loss: tol means the same thing for 100 or 10^6 calibration rows

        # Platt's starting point: a = 0 and b = the (smoothed) prior log-odds
        theta = np.array([0.0, np.log((n_pos + 1.0) / (n_neg + 1.0))])
        try:
            theta, _, n_iter = fit_logistic(theta, (x,), t, w_mean, self.tol, self.max_iter, "PlattScaling")
        except np.linalg.LinAlgError:
            raise ValueError(
                "Platt scaling Hessian is singular (all probabilities saturated at 0 or 1); "
                "check the scores or use smooth_targets=True"
            ) from None
        # back from the standardised score x = (s - center) / scale to the raw score s
        self.a_ = float(theta[0] / scale)
        self.b_ = float(theta[1] - theta[0] * center / scale)
        self.n_iter_ = n_iter
        return self

    def decision_function(self, scores) -> np.ndarray:
        """The calibrated log-odds a*s + b."""
        check_is_fitted(self)
        return self.a_ * check_scores(scores) + self.b_

    def transform(self, scores) -> np.ndarray:
        """Calibrated positive-class probabilities p = sigmoid(a*s + b), shape (n,)."""
        return expit(self.decision_function(scores))

    def predict_proba(self, scores) -> np.ndarray:
        """Columns [1 - p, p], shape (n, 2); 1 - p is computed as sigmoid(-z) to keep its precision near p = 1."""
        z = self.decision_function(scores)
        return np.column_stack([expit(-z), expit(z)])
