"""Fisher linear discriminant and multiple discriminant analysis (MDA), as a classifier and as a projection.

Maximise the Rayleigh quotient J(w) = w^T S_B w / w^T S_W w (seed 000, lines 790-870; seed 001, lines 200-242;
catalogue 000 C2, 001-004 2.9.6 with errata E20-E22): S_W = sum over ALL classes of the scatters
S_i = sum_{x in class i} (x - m_i)(x - m_i)^T, S_B = sum_i n_i (m_i - m)(m_i - m)^T = S_total - S_W. The maximisers
are the leading solutions of the generalised eigenproblem S_B w = lambda S_W w (at most K - 1 of them, the rank of
S_B), normalised to w^T S_W w = 1; for two classes S_B is rank one along m_2 - m_1, so w is proportional to
S_W^-1 (m_2 - m_1) (seed 000 line 1037; line 866's "perpendicular" should read "proportional").
reg adds reg * (tr S_W / d) I to S_W, for singular within-class scatter (d > N or collinear features).
The classifier (the notes leave the threshold open; catalogue 000 C2 suggests Bayes under projected Gaussians)
models the projected classes as Gaussians with the pooled within-class covariance and the class priors; with
all K - 1 directions and reg = 0 this reproduces the shared-covariance Gaussian Bayes (LDA) posteriors.

Sections cited:
- ML 1 lecture notes (seed 000): Linear Discriminant Analysis (790); Summary (1037)
- CS 276 course review (seed 001): 3.2 Fisher Linear Discriminant (200)"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy.special import log_softmax

from ..base import (
    BaseEstimator,
    ClassifierMixin,
    Interval,
    TransformerMixin,
    check_class_totals,
    check_fitted_X,
    check_is_fitted,
    check_labels,
    check_sample_weight,
    check_two_classes,
    check_value,
    check_X_y,
)
from ..base.constraints import ARRAY_LIKE, NON_NEGATIVE, OPTIONAL, check_hyperparameters, positive_int
from ..bayes.gaussian import check_priors, cholesky


def fisher_directions(X, codes, w, n_classes: int, reg: float):
    """Overall mean, class means, within-class scatter S_W, the eigenvalues and the directions (columns, sorted by
    decreasing J) of S_B v = lambda (S_W + reg tr(S_W)/d I) v, each signed so the first class projects below the
    mean."""
    class_weight = check_class_totals(np.bincount(codes, weights=w, minlength=n_classes))
    R = np.zeros((X.shape[0], n_classes))
    R[np.arange(X.shape[0]), codes] = w
    means = R.T @ X / class_weight[:, None]
    xbar = class_weight @ means / class_weight.sum()
    Xc = X - means[codes]
    S_W = (Xc * w[:, None]).T @ Xc
    D = means - xbar
    S_B = (D * class_weight[:, None]).T @ D
    d = X.shape[1]
    q = min(n_classes - 1, d)
    S_reg = S_W + reg * np.trace(S_W) / d * np.eye(d)
    try:
        eigenvalues, V = linalg.eigh(S_B, S_reg, subset_by_index=[d - q, d - 1])
    except linalg.LinAlgError:
        raise ValueError(
            "the within-class scatter S_W is singular (collinear features or fewer rows than features); set reg > 0"
        ) from None
    eigenvalues, V = eigenvalues[::-1], V[:, ::-1]
    V *= np.where(D[0] @ V > 0, -1.0, 1.0)
    return xbar, means, class_weight, S_W, eigenvalues, V


class FisherDiscriminant(ClassifierMixin, BaseEstimator):
    """Fisher / multiple discriminant analysis classifier: project on the discriminant directions, then Bayes' rule
    with Gaussian classes sharing the projected within-class covariance.

    Parameters
    ----------
    n_components : int or None, default None
        Number of discriminant directions (None: K - 1).
    reg : float, default 1e-06
        Relative ridge S_W + reg * (tr S_W / d) I (0 = plain Fisher; the tiny default keeps one-hot or collinear inputs
        solvable).
    priors : array-like of shape (K,) or None, default None
        Class priors in classes_ order; None: the (weighted) class frequencies.
    """

    _constraints = {"n_components": [OPTIONAL, positive_int()], "reg": NON_NEGATIVE, "priors": [OPTIONAL, ARRAY_LIKE]}

    def __init__(self, n_components: int | None = None, reg: float = 1e-6, priors=None):
        self.n_components = n_components
        self.reg = reg
        self.priors = priors

    def fit(self, X, y, sample_weight=None):
        check_hyperparameters(self)
        X, y = check_X_y(X, y)
        w = check_sample_weight(sample_weight, X.shape[0])
        codes = self._encode_targets(y)
        K = self.classes_.size
        self.n_features_in_ = X.shape[1]
        xbar, means, class_weight, S_W, self.eigenvalues_, V = fisher_directions(X, codes, w, K, self.reg)
        q = _check_n_components(self.n_components, V.shape[1])
        self.xbar_, self.scalings_ = xbar, V[:, :q]
        self.priors_ = check_priors(self.priors, class_weight)
        self.means_ = (means - xbar) @ self.scalings_  # projected class means
        self.covariance_ = self.scalings_.T @ S_W @ self.scalings_ / class_weight.sum()
        self.cholesky_ = cholesky(self.covariance_, "projected within-class covariance")
        return self

    def transform(self, X):
        """The discriminant scores (X - mean) W."""
        X = check_fitted_X(self, X)
        return (X - self.xbar_) @ self.scalings_

    def _joint_log_likelihood(self, X):
        Z = self.transform(X)
        out = np.empty((Z.shape[0], self.classes_.size))
        for k, m in enumerate(self.means_):
            u = linalg.solve_triangular(self.cholesky_, (Z - m).T, lower=True)
            out[:, k] = -0.5 * np.einsum("ij,ij->j", u, u)
        return out + np.log(self.priors_)

    def decision_function(self, X):
        """Binary: log posterior odds of classes_[1]; multiclass: (n, K) class scores."""
        jll = self._joint_log_likelihood(X)
        return jll[:, 1] - jll[:, 0] if self.classes_.size == 2 else jll

    def predict_log_proba(self, X):
        return log_softmax(self._joint_log_likelihood(X), axis=1)

    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))


class LinearDiscriminantProjection(TransformerMixin, BaseEstimator):
    """Supervised projection onto the leading Fisher / MDA directions (at most K - 1 columns), for the features stage.

    Parameters
    ----------
    n_components : int or None, default None
        Number of directions kept (None: K - 1, capped at the number of features).
    reg : float, default 1e-06
        Relative ridge S_W + reg * (tr S_W / d) I; the small default keeps one-hot or collinear inputs solvable.
    """

    _constraints = {"n_components": [OPTIONAL, positive_int()], "reg": NON_NEGATIVE}

    def __init__(self, n_components: int | None = None, reg: float = 1e-6):
        self.n_components = n_components
        self.reg = reg

    def fit(self, X, y=None, sample_weight=None):
        if y is None:
            raise ValueError("LinearDiscriminantProjection is supervised: call fit(X, y) with class labels")
        check_hyperparameters(self)
        X, y = check_X_y(X, y)
        w = check_sample_weight(sample_weight, X.shape[0])
        classes, codes = np.unique(check_labels(y), return_inverse=True)
        check_two_classes(classes)
        self.n_features_in_ = X.shape[1]
        self.xbar_, _, _, _, self.eigenvalues_, V = fisher_directions(X, codes, w, classes.size, self.reg)
        self.scalings_ = V[:, : _check_n_components(self.n_components, V.shape[1])]
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        return (X - self.xbar_) @ self.scalings_

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self)
        return [f"lda{i}" for i in range(self.scalings_.shape[1])]


def _check_n_components(n_components, available: int) -> int:
    if n_components is None:
        return available
    within = Interval(True, 1, available, label=f"an integer in [1, {available}] (at most K - 1 and the features)")
    check_value("LinearDiscriminantProjection", "n_components", n_components, within)
    return int(n_components)
