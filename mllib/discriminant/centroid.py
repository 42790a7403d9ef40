"""Nearest centroid (nearest class mean) classifier.

Seed 000, lines 776-789 and 983-1006, 1914-1915 (catalogue 000 C1): for two classes the "means difference"
classifier g(x) = x^T (m_1 - m_2) + C with the threshold at the midpoint of the means, i.e. assign x to the nearer
class mean; K classes: argmin_k ||x - m_k||. Posteriors come from reading the rule as the Bayes classifier for
isotropic Gaussians N(m_k, sigma^2 I) (seed 001, D1:94-97; catalogue 001-004 7.1):
g_k(x) = (1/sigma^2) m_k^T x - (1/(2 sigma^2)) m_k^T m_k + log P(k), sigma^2 the pooled within-class variance per
feature; with uniform priors argmax_k g_k is exactly the nearest centroid.

Sections cited: CS 276 course review (seed 001): 2.1 Discriminant Functions/Decision Boundaries (94)"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax

from ..base import BaseEstimator, ClassifierMixin, check_class_totals, check_fitted_X, check_sample_weight, check_X_y
from ..base.constraints import ARRAY_LIKE, Options, check_hyperparameters
from ..bayes.gaussian import check_priors


class NearestCentroid(ClassifierMixin, BaseEstimator):
    """Assign each row to the class with the nearest (Euclidean) mean.

    Parameters
    ----------
    priors : "uniform", "empirical" or array-like of shape (K,), default "uniform"
        "uniform": the plain nearest-centroid rule; "empirical": the class frequencies; or class priors in classes_
        order. They enter the isotropic-Gaussian posteriors and hence the decision.
    """

    _constraints = {"priors": [Options(("uniform", "empirical")), ARRAY_LIKE]}

    def __init__(self, priors="uniform"):
        self.priors = priors

    def fit(self, X, y, sample_weight=None):
        check_hyperparameters(self)
        X, y = check_X_y(X, y)
        w = check_sample_weight(sample_weight, X.shape[0])
        codes = self._encode_targets(y)
        K = self.classes_.size
        self.n_features_in_ = X.shape[1]
        R = np.zeros((X.shape[0], K))
        R[np.arange(X.shape[0]), codes] = w
        class_weight = check_class_totals(R.sum(axis=0))
        if isinstance(self.priors, str):
            self.priors_ = np.full(K, 1 / K) if self.priors == "uniform" else class_weight / class_weight.sum()
        else:
            self.priors_ = check_priors(self.priors, class_weight)
        self.centroids_ = R.T @ X / class_weight[:, None]
        self.variance_ = float(w @ np.sum((X - self.centroids_[codes]) ** 2, axis=1) / (w.sum() * X.shape[1]))
        if not self.variance_ > 0:
            raise ValueError("every class is a single repeated point (zero within-class variance)")
        self.coef_ = self.centroids_ / self.variance_
        self.intercept_ = -0.5 * np.sum(self.centroids_**2, axis=1) / self.variance_ + np.log(self.priors_)
        return self

    def _scores(self, X):
        X = check_fitted_X(self, X)
        return X @ self.coef_.T + self.intercept_

    def decision_function(self, X):
        """Binary: log posterior odds of classes_[1] (the means-difference discriminant); multiclass: (n, K) scores."""
        s = self._scores(X)
        return s[:, 1] - s[:, 0] if self.classes_.size == 2 else s

    def predict_proba(self, X):
        return np.exp(log_softmax(self._scores(X), axis=1))
