"""One-vs-rest linear scores shared by the perceptron and the linear SVM (catalogue 001-004 7.6): one weight
vector per class trained on "this class (+1) vs the rest (-1)", predict argmax_k s_k; two classes need one vector."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, softmax

from ..base import check_fitted_X


def fit_one_vs_rest(codes: np.ndarray, n_classes: int, fit_binary):
    """fit_binary(t) -> (w, b) for targets t in {-1, +1}; returns coef (1 or K, d) and intercept (1 or K,)."""
    positives = [1] if n_classes == 2 else range(n_classes)
    fitted = [fit_binary(np.where(codes == k, 1.0, -1.0)) for k in positives]
    return np.array([w for w, _ in fitted]), np.array([b for _, b in fitted])


class OneVsRestLinearMixin:
    """decision_function / predict_proba / predict from coef_ and intercept_."""

    def decision_function(self, X):
        """Binary: the signed score w^T x + b of classes_[1] (n,); multiclass: the one-vs-rest scores (n, K)."""
        X = check_fitted_X(self, X)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict_proba(self, X):
        """Uncalibrated: the logistic of the score (binary) or the softmax of the one-vs-rest scores. The ranking is
        the model's; the pipeline's calibration step maps the scores to probabilities."""
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            p = expit(scores)
            return np.column_stack([1 - p, p])
        return softmax(scores, axis=1)

    def predict(self, X):
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
