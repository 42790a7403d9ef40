"""Beta calibration: a logistic regression on the logarithms of the model's probability and of its complement.

Rule (Kull, Silva Filho & Flach 2017, "Beta calibration: a well-founded and easily implemented improvement on logistic
calibration for binary classifiers", AISTATS, PMLR 54:623-631): with q = sigmoid(s) the model's probability of the
score s (a log-odds, mllib.calibration.decision_scores),

    p(y = 1 | s) = sigmoid(a ln q - b ln(1 - q) + c),   that is   p / (1 - p) = e^c q^a / (1 - q)^b,

the likelihood ratio of two beta distributions of q, one per class. (a, b, c) minimise the log loss on held-out rows:
a logistic regression on the two features ln q and -ln(1 - q) (Platt scaling's Newton fit with one more feature,
mllib.calibration._logistic), against Platt's smoothed targets by default as PlattScaling does (smooth_targets=False:
the labels, as in the paper). Since ln q - ln(1 - q) = s, a = b is Platt's map sigmoid(a s + c) of the log-odds and
a = b = 1, c = 0 the identity: the family holds both, and bends the two ends apart where a sigmoid cannot (a model
over-confident on one side of its scores only, or scores whose probability is not logistic in them).

Monotone: dz/ds = a (1 - q) + b q, positive for every s when a, b >= 0 and a + b > 0, so the map is strictly increasing:
it neither reorders nor ties two rows, and the ranking of any set of rows it scores is the model's. The fit keeps
a, b >= 0 (the paper's condition): the least log loss over a, b >= 0 is the unconstrained fit of one of the faces (both
features, ln q alone, -ln(1 - q) alone, the intercept alone), the best of those whose slopes are >= 0, as the loss is
convex. The reference code (betacal) refits without the feature whose coefficient came out negative, the same answer
whenever that face is the better one. Only the intercept-alone face, chosen when the scores rank the classes no better
than a constant, is not strictly increasing (constant scores leave nothing else to fit).
Float64: the probabilities are in (0, 1) and distinct for distinct scores wherever float64 resolves them, as for every
sigmoid map (sigmoid(z) rounds to 1 beyond z ~ 36.7; a map that levels off at one end, b = 0 at the top as on the
spam7 file, gives equal values beyond s ~ 35, where no map's own sigmoid(s) is far from rounding to 1 either).
For K classes OneVsRestCalibration hands each class's log-probability as the score, so q = p_k / (1 + p_k) there:
still a strictly increasing map of the score (the renormalisation over the classes is what can reorder rows).

Not in the notes (seed 004, D4:1966-1982 name Platt scaling and isotonic regression as the maps after training).

Sections cited: Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1966)"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_expit

from ..base import BaseEstimator, check_class_totals, check_is_fitted, check_sample_weight
from ..base.constraints import BOOLEAN, POSITIVE, check_hyperparameters, positive_int
from ._checks import check_binary, check_not_separated, check_scores
from ._logistic import fit_logistic
from .platt import platt_targets

# which of the features (ln q, -ln(1 - q)) a fit uses: both (the unconstrained fit), then each alone (a slope at 0)
_FACES = ((0, 1), (1,), (0,))


def beta_features(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ln q, -ln(1 - q)) of q = sigmoid(s), from the log-odds s without forming q (no rounding to 0 or 1)."""
    return log_expit(scores), -log_expit(-scores)


class BetaCalibration(BaseEstimator):
    """Beta calibration p = sigmoid(a ln q - b ln(1 - q) + c) of 1-D log-odds scores (q = sigmoid(s)), a, b >= 0.

    Parameters
    ----------
    smooth_targets : bool, default True
        Fit against Platt's targets t+ = (N+ + 1)/(N+ + 2), t- = 1/(N- + 2) (finite parameters even for scores that
        separate the classes) instead of the raw 0/1 labels (Kull et al.'s fit).
    max_iter : int, default 100
        Maximum number of Newton steps of each fit.
    tol : float, default 1e-12
        Stop once the Newton decrement of the mean log loss, lambda^2 / 2, is below tol.

    Attributes
    ----------
    a_ : float
        The weight of ln q.
    b_ : float
        The weight of -ln(1 - q).
    c_ : float
        The intercept.
    n_iter_ : int
        The Newton steps over the fits tried.
    """

    _constraints = {"smooth_targets": BOOLEAN, "max_iter": positive_int(), "tol": POSITIVE}

    def __init__(self, smooth_targets: bool = True, max_iter: int = 100, tol: float = 1e-12):
        self.smooth_targets = smooth_targets
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, scores, y, sample_weight=None) -> BetaCalibration:
        """Fit (a, b, c) on calibration log-odds scores and binary labels y in {0, 1} (1 = positive)."""
        check_hyperparameters(self)
        s = check_scores(scores)
        y = check_binary(y, s.shape[0])
        w = check_sample_weight(sample_weight, s.shape[0])
        n_neg, n_pos = check_class_totals(np.array([w @ (1.0 - y), w @ y]))
        t = platt_targets(y, n_pos, n_neg, self.smooth_targets)
        used = w > 0
        varies = s[used].min() < s[used].max()
        if not self.smooth_targets and varies:
            check_not_separated(s[used], y[used])
        w_mean = w / w.sum()  # mean loss: tol means the same thing for 100 or 10^6 calibration rows
        # Standardise each feature (centre, max |deviation|): the Hessian is far better conditioned, and the
        # constraint a, b >= 0 reads the same on the standardised slopes
        features, centre, scale = [], np.zeros(2), np.ones(2)
        for j, f in enumerate(beta_features(s)):
            centre[j] = np.mean(f[used])
            spread = float(np.max(np.abs(f[used] - centre[j])))
            scale[j] = spread if spread > 0 else 1.0
            features.append((f - centre[j]) / scale[j] if spread > 0 else None)  # None: constant on these rows
        # the intercept alone (constant scores leave nothing else): the mean target's log-odds
        t_bar = float(w_mean @ t)
        intercept = float(np.log(t_bar) - np.log1p(-t_bar))
        best = (float(np.logaddexp(0.0, intercept) - t_bar * intercept), np.zeros(2), intercept)
        n_iter = 0
        for face in _FACES if varies else ():
            if any(features[j] is None for j in face):
                continue
            start = np.array([0.0] * len(face) + [np.log((n_pos + 1.0) / (n_neg + 1.0))])  # Platt's starting point
            try:
                theta, loss, steps = fit_logistic(
                    start, tuple(features[j] for j in face), t, w_mean, self.tol, self.max_iter, "BetaCalibration"
                )
            except np.linalg.LinAlgError:  # the face's features are collinear on these rows: another face fits them
                continue
            n_iter += steps
            slopes = np.zeros(2)
            slopes[list(face)] = theta[:-1]
            if not (slopes >= 0).all():
                continue
            if face == _FACES[0]:  # the unconstrained optimum is feasible: it is the constrained one
                best = (loss, slopes, float(theta[-1]))
                break
            if loss < best[0]:
                best = (loss, slopes, float(theta[-1]))
        _, slopes, theta_0 = best
        # back from the standardised features (f - centre) / scale to ln q and -ln(1 - q)
        self.a_, self.b_ = (float(slopes[j] / scale[j]) for j in range(2))
        self.c_ = float(theta_0 - slopes @ (centre / scale))
        self.n_iter_ = n_iter
        return self

    def decision_function(self, scores) -> np.ndarray:
        """The calibrated log-odds a ln q - b ln(1 - q) + c."""
        check_is_fitted(self)
        log_q, minus_log_not_q = beta_features(check_scores(scores))
        with np.errstate(over="ignore"):  # |s| near float64's limit: z = -/+inf, whose sigmoid is exactly 0 or 1
            return self.a_ * log_q + self.b_ * minus_log_not_q + self.c_

    def transform(self, scores) -> np.ndarray:
        """Calibrated positive-class probabilities, shape (n,)."""
        return expit(self.decision_function(scores))

    def predict_proba(self, scores) -> np.ndarray:
        """Columns [1 - p, p], shape (n, 2); 1 - p is computed as sigmoid(-z) to keep its precision near p = 1."""
        z = self.decision_function(scores)
        return np.column_stack([expit(-z), expit(z)])
