"""The no-skill baselines: the class prior for classification, the mean for regression.

PriorClassifier gives every row the training class frequencies: its ROC AUC is 0.5, its log loss the entropy of
the prior, its Brier score sum_k p_k (1 - p_k), its decisions the majority class. MeanRegressor predicts the
training mean: its R^2 on the training rows is 0 and its RMSE the standard deviation of y. Both ignore X.
"""

from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, ClassifierMixin, RegressorMixin, check_array, check_is_fitted, check_sample_weight


class PriorClassifier(ClassifierMixin, BaseEstimator):
    """The class prior: every row gets the training class frequencies (X is ignored).

    Attributes
    ----------
    classes_ : ndarray
        The class labels.
    class_prior_ : ndarray
        The weighted class frequencies.
    """

    def fit(self, X, y, sample_weight=None) -> PriorClassifier:
        X = check_array(X, allow_nan=True)
        codes = self._encode_targets(y)
        w = check_sample_weight(sample_weight, X.shape[0])
        self.class_prior_ = np.bincount(codes, weights=w, minlength=self.classes_.size) / w.sum()
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X) -> np.ndarray:
        check_is_fitted(self)
        return np.tile(self.class_prior_, (check_array(X, allow_nan=True).shape[0], 1))

    def predict(self, X) -> np.ndarray:
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class MeanRegressor(RegressorMixin, BaseEstimator):
    """The mean: every row gets the training mean of y (X is ignored).

    Attributes
    ----------
    mean_ : float
        The weighted mean of y.
    """

    def fit(self, X, y, sample_weight=None) -> MeanRegressor:
        X = check_array(X, allow_nan=True)
        y = check_array(y, ndim=None, name="y")
        self.mean_ = float(np.average(y, weights=check_sample_weight(sample_weight, X.shape[0])))
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self)
        return np.full(check_array(X, allow_nan=True).shape[0], self.mean_)
