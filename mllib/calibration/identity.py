"""No calibration map: the probability is the logistic sigmoid of the model's score, which for models
whose score is a log-odds (logistic regression) is the model's own predict_proba."""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..base import BaseEstimator, check_is_fitted


class NoCalibration(BaseEstimator):
    def fit(self, scores, y=None, sample_weight=None) -> "NoCalibration":
        self.n_samples_fit_ = int(np.asarray(scores).shape[0])
        return self

    def transform(self, scores) -> np.ndarray:
        check_is_fitted(self)
        return expit(np.asarray(scores, dtype=np.float64))

    def predict_proba(self, scores) -> np.ndarray:
        p = self.transform(scores)
        return np.column_stack([1 - p, p])
