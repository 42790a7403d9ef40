"""No calibration map: the probability is the logistic sigmoid of a binary score, or the softmax of (n, K) class
scores. For models whose score is a log-odds (logistic regression) or a log-probability (the multiclass scores of
`decision_scores`) this is the model's own predict_proba."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, softmax

from ..base import BaseEstimator, check_array, check_is_fitted


class NoCalibration(BaseEstimator):
    """The identity map: p = sigmoid(s) for 1-D binary scores, softmax(s) for (n, K) scores. No hyperparameters.

    Attributes
    ----------
    n_samples_fit_ : int
        The number of score rows fitted on.
    """

    def fit(self, scores, y=None, sample_weight=None) -> NoCalibration:
        self.n_samples_fit_ = int(np.asarray(scores).shape[0])
        return self

    def transform(self, scores) -> np.ndarray:
        """p(y = 1) for 1-D scores, shape (n,); the (n, K) probabilities for (n, K) scores."""
        check_is_fitted(self)
        s = check_array(scores, ndim=None, name="scores")
        if s.ndim == 2:
            return softmax(s, axis=1)
        return expit(s)

    def predict_proba(self, scores) -> np.ndarray:
        """(n, K) probabilities; rows sum to 1 (binary: [1 - p, p])."""
        p = self.transform(scores)
        return p if p.ndim == 2 else np.column_stack([1 - p, p])
