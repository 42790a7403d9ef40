"""Naive Bayes: class-conditionally independent features, P(x | omega_j) = prod_i P(x_i | omega_j), and Bayes' rule.

Seed 000, lines 161-178 and 210-215 (catalogue 000 A5): binary features with P(x_i = 1 | omega_j) = q_ij give the
linear rule argmax_j x^T (a_j - b_j) + 1^T b_j + log P(omega_j), a_ij = log q_ij, b_ij = log(1 - q_ij).
Seed 002, lines 3374-3404 (catalogue 002 L2): the ML estimates are counts, P(x_i = c | omega_j) = n_jic / n_j; here
with Laplace / Lidstone smoothing alpha, (n_jic + alpha) / (n_j + alpha m_i) for m_i categories (m_i = 2 for binary
features), so that an unseen value never gives log 0. The Gaussian variant fits one ML mean and variance per class and
feature (seed 002, topic list line 4348), with var_smoothing * (largest feature variance) added for stability.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax

from ..base import BaseEstimator, ClassifierMixin, check_class_totals, check_fitted_X, check_sample_weight, check_X_y
from ..base.constraints import ARRAY_LIKE, FINITE, NON_NEGATIVE, OPTIONAL, Options, check_hyperparameters
from .gaussian import check_priors

DISTRIBUTIONS = ("gaussian", "bernoulli", "categorical")


class NaiveBayes(ClassifierMixin, BaseEstimator):
    """Naive Bayes classifier.

    Parameters
    ----------
    distribution : {"gaussian", "bernoulli", "categorical"}, default "gaussian"
        "gaussian": continuous features; "bernoulli": binary features (x > binarize counts as 1); "categorical": each
        column holds discrete values; a value not seen at fit time is ignored, i.e. that feature is marginalised out for
        that row.
    alpha : float, default 1.0
        Additive smoothing of the counts (bernoulli, categorical); 1 = Laplace.
    var_smoothing : float, default 1e-09
        Added to every variance as a fraction of the largest feature variance (gaussian).
    binarize : float, default 0.0
        Threshold of the bernoulli distribution.
    priors : array-like of shape (K,) or None, default None
        Class priors in classes_ order; None: the (weighted) class frequencies.
    """

    _constraints = {
        "distribution": Options(DISTRIBUTIONS),
        "alpha": NON_NEGATIVE,
        "var_smoothing": NON_NEGATIVE,
        "binarize": FINITE,
        "priors": [OPTIONAL, ARRAY_LIKE],
    }

    def __init__(
        self,
        distribution: str = "gaussian",
        alpha: float = 1.0,
        var_smoothing: float = 1e-9,
        binarize: float = 0.0,
        priors=None,
    ):
        self.distribution = distribution
        self.alpha = alpha
        self.var_smoothing = var_smoothing
        self.binarize = binarize
        self.priors = priors

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        check_hyperparameters(self)
        w = check_sample_weight(sample_weight, X.shape[0])
        codes = self._encode_targets(y)
        K = self.classes_.size
        self.n_features_in_ = X.shape[1]
        R = np.zeros((X.shape[0], K))  # weighted class indicators: R^T X are the per-class sums
        R[np.arange(X.shape[0]), codes] = w
        class_weight = check_class_totals(R.sum(axis=0))
        self.class_log_prior_ = np.log(check_priors(self.priors, class_weight))
        if self.distribution == "gaussian":
            self.theta_ = R.T @ X / class_weight[:, None]
            self.var_ = R.T @ (X - self.theta_[codes]) ** 2 / class_weight[:, None]
            self.var_ += self.var_smoothing * np.var(X, axis=0).max()
            if (self.var_ <= 0).any():
                raise ValueError("a feature is constant within a class; set var_smoothing > 0")
        elif self.distribution == "bernoulli":
            counts = R.T @ (X > self.binarize)
            self.feature_log_prob_ = self._smoothed_log(counts, class_weight, 2)
            self.feature_log_prob_neg_ = self._smoothed_log(class_weight[:, None] - counts, class_weight, 2)
        else:
            self.categories_, self.feature_log_prob_ = [], []
            for column in X.T:
                cats = np.unique(column)
                idx = np.searchsorted(cats, column)
                counts = np.bincount(codes * cats.size + idx, weights=w, minlength=K * cats.size).reshape(K, cats.size)
                self.categories_.append(cats)
                self.feature_log_prob_.append(self._smoothed_log(counts, class_weight, cats.size))
        return self

    def _smoothed_log(self, counts, class_weight, n_values):
        """log (n_jic + alpha) / (n_j + alpha m_i) for counts (K, m_i)."""
        if (counts + self.alpha <= 0).any():
            raise ValueError("a value never occurs in some class, so its probability is 0; set alpha > 0")
        return np.log(counts + self.alpha) - np.log(class_weight + self.alpha * n_values)[:, None]

    def _joint_log_likelihood(self, X):
        X = check_fitted_X(self, X)
        if self.distribution == "gaussian":
            jll = np.column_stack(
                [
                    -0.5 * np.sum(np.log(2 * np.pi * var) + (X - theta) ** 2 / var, axis=1)
                    for theta, var in zip(self.theta_, self.var_)
                ]
            )
        elif self.distribution == "bernoulli":  # the linear rule x^T (a_j - b_j) + 1^T b_j
            B = (X > self.binarize).astype(np.float64)
            jll = B @ (self.feature_log_prob_ - self.feature_log_prob_neg_).T + self.feature_log_prob_neg_.sum(axis=1)
        else:
            jll = np.zeros((X.shape[0], self.classes_.size))
            for column, cats, log_prob in zip(X.T, self.categories_, self.feature_log_prob_):
                idx = np.minimum(np.searchsorted(cats, column), cats.size - 1)
                # rows gathered from the table (m_i + 1, K) whose last row, 0, stands for an unseen value
                table = np.vstack([log_prob.T, np.zeros(self.classes_.size)])
                jll += table[np.where(cats[idx] == column, idx, cats.size)]
        return jll + self.class_log_prior_

    def predict_log_proba(self, X):
        return log_softmax(self._joint_log_likelihood(X), axis=1)

    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))
