"""Gaussian Bayes classifier: class-conditional normal densities, Bayes' rule, minimum-risk decisions.

Seed 000, lines 35-160 (catalogue 000 A1-A4): decide argmax_j [log p(x | omega_j) + log P(omega_j)] with
p(x | omega_j) = N(mu_j, Sigma_j). A shared covariance (lines 126-152) gives the linear "LDA rule"
g_j(x) = x^T Sigma^-1 mu_j - 1/2 mu_j^T Sigma^-1 mu_j + log P(omega_j); class covariances (lines 153-160, QDA) give
g_j(x) = -1/2 log det Sigma_j - 1/2 (x - mu_j)^T Sigma_j^-1 (x - mu_j) + log P(omega_j).
Estimates are maximum likelihood (lines 737-750): class means, covariances with 1/N_j (1/N pooled); seed 004
D4:679-699 (catalogue 001-004 7.4) divides by n_m, not n_m - 1. Sigma^-1 is ill-conditioned unless d << N
(lines 1085-1091), hence shrinkage toward the scaled identity, Sigma_r = (1 - r) Sigma + r (tr Sigma / d) I
("add something to the diagonal", line 2108). With a cost matrix, predict takes the minimum expected cost
(lines 179-232, catalogue 000 A6).

Sections cited: Ghent ML notes (seed 004): 4.3 Mixture Distributions: Mixture of Gaussians (679)"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy.special import log_softmax

from ..base import BaseEstimator, ClassifierMixin, check_class_totals, check_fitted_X, check_sample_weight, check_X_y
from ..base.constraints import ARRAY_LIKE, OPTIONAL, UNIT, Options, check_hyperparameters
from ..decisions import check_cost_matrix, min_risk_decision

COVARIANCES = ("shared", "per_class")


def check_priors(priors, class_weight: np.ndarray) -> np.ndarray:
    """Class priors: given ones (validated, in classes_ order) or the (weighted) class frequencies."""
    if priors is None:
        return class_weight / class_weight.sum()
    p = np.asarray(priors, dtype=np.float64)
    if p.shape != class_weight.shape or not np.isfinite(p).all() or (p <= 0).any() or abs(p.sum() - 1) > 1e-8:
        raise ValueError(
            f"priors must be {class_weight.size} positive numbers summing to 1 (one per class, in classes_ "
            f"order), got {priors!r}"
        )
    return p


def shrink(cov: np.ndarray, reg_param: float) -> np.ndarray:
    """(1 - r) Sigma + r (tr Sigma / d) I: same trace, eigenvalues pulled toward their mean."""
    if reg_param == 0:
        return cov
    d = cov.shape[0]
    return (1 - reg_param) * cov + reg_param * (np.trace(cov) / d) * np.eye(d)


def cholesky(cov: np.ndarray, what: str) -> np.ndarray:
    """Lower Cholesky factor; a pivot below 1e-12 of the largest variance means numerically singular."""
    try:
        L = linalg.cholesky(cov, lower=True)
        if np.min(np.diag(L)) ** 2 <= 1e-12 * np.max(np.diag(cov)):
            raise linalg.LinAlgError
        return L
    except linalg.LinAlgError:
        raise ValueError(
            f"the {what} is singular (collinear features or fewer rows than features); "
            "set reg_param > 0 to shrink it toward the identity"
        ) from None


class GaussianBayesClassifier(ClassifierMixin, BaseEstimator):
    """Generative classifier with normal class densities.

    Parameters
    ----------
    covariance : {"shared", "per_class"}, default "shared"
        "shared": the pooled within-class covariance (linear boundaries, the LDA rule); "per_class": one covariance per
        class (QDA).
    priors : array-like of shape (K,) or None, default None
        Class priors in classes_ order; None: the (weighted) class frequencies.
    reg_param : float, default 1e-06
        Shrinkage r in [0, 1] of each covariance toward (tr Sigma / d) I; the tiny default only keeps exactly collinear
        inputs (one-hot blocks) solvable; QDA on few rows per class needs far more (e.g. 0.1).
    cost_matrix : array-like of shape (K, K) or None, default None
        Entry [a, j] = cost of deciding classes_[a] when the truth is classes_[j]; predict then returns the
        minimum-expected-cost decision; predict_proba always gives the posteriors.
    """

    _constraints = {
        "covariance": Options(COVARIANCES),
        "reg_param": UNIT,
        "priors": [OPTIONAL, ARRAY_LIKE],
        "cost_matrix": [OPTIONAL, ARRAY_LIKE],
    }

    def __init__(self, covariance: str = "shared", priors=None, reg_param: float = 1e-6, cost_matrix=None):
        self.covariance = covariance
        self.priors = priors
        self.reg_param = reg_param
        self.cost_matrix = cost_matrix

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        check_hyperparameters(self)
        w = check_sample_weight(sample_weight, X.shape[0])
        codes = self._encode_targets(y)
        K = self.classes_.size
        if self.cost_matrix is not None:
            check_cost_matrix(self.cost_matrix, K, K)
        self.n_features_in_ = X.shape[1]
        class_weight = check_class_totals(np.bincount(codes, weights=w, minlength=K))
        self.priors_ = check_priors(self.priors, class_weight)
        R = np.zeros((X.shape[0], K))  # weighted class indicators: R^T X are the per-class sums
        R[np.arange(X.shape[0]), codes] = w
        self.means_ = R.T @ X / class_weight[:, None]
        Xc = X - self.means_[codes]
        Xw = Xc * np.sqrt(w)[:, None]  # scatter = Xw^T Xw, one symmetric BLAS product
        if self.covariance == "shared":
            cov = shrink(Xw.T @ Xw / class_weight.sum(), self.reg_param)
            factor = (cholesky(cov, "pooled covariance"), True)
            self.covariance_ = cov
            self.coef_ = linalg.cho_solve(factor, self.means_.T).T  # Sigma^-1 mu_j, one row per class
            self.intercept_ = -0.5 * np.sum(self.means_ * self.coef_, axis=1) + np.log(self.priors_)
        else:
            order = np.argsort(codes, kind="stable")
            bounds = np.searchsorted(codes[order], np.arange(K + 1))
            Xw = Xw[order]
            covs = [
                shrink(Xw[lo:hi].T @ Xw[lo:hi] / class_weight[k], self.reg_param)
                for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))
            ]
            self.covariances_ = np.array(covs)
            self.cholesky_ = np.array(
                [cholesky(c, f"covariance of class {self.classes_[k]!r}") for k, c in enumerate(covs)]
            )
        return self

    def _joint_log_likelihood(self, X):
        """log p(x | omega_j) + log P(omega_j) up to a constant shared by the classes, shape (n, K)."""
        X = check_fitted_X(self, X)
        if self.covariance == "shared":  # x^T Sigma^-1 x and the normaliser are common to all classes
            return X @ self.coef_.T + self.intercept_
        out = np.empty((X.shape[0], self.classes_.size))
        for k, L in enumerate(self.cholesky_):
            z = linalg.solve_triangular(L, (X - self.means_[k]).T, lower=True, check_finite=False)
            out[:, k] = -0.5 * np.einsum("ij,ij->j", z, z) - np.sum(np.log(np.diag(L))) + np.log(self.priors_[k])
        return out

    def decision_function(self, X):
        """Binary: the log posterior odds log P(classes_[1] | x) / P(classes_[0] | x); multiclass: (n, K) class
        scores."""
        jll = self._joint_log_likelihood(X)
        return jll[:, 1] - jll[:, 0] if self.classes_.size == 2 else jll

    def predict_log_proba(self, X):
        return log_softmax(self._joint_log_likelihood(X), axis=1)

    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        jll = self._joint_log_likelihood(X)
        if self.cost_matrix is None:
            return self.classes_[np.argmax(jll, axis=1)]
        K = self.classes_.size
        decided = min_risk_decision(np.exp(log_softmax(jll, axis=1)), check_cost_matrix(self.cost_matrix, K, K))
        return self.classes_[decided["action"]]
