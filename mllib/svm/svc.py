"""Soft-margin support vector classifier (C-SVC) on a kernel, the dual solved by SMO (smo.py).

Primal (seed 000, lines 1370-1384, 1717-1751; catalogue E2): min 1/2 ||w||^2 + C sum_i xi_i
s.t. y_i (w^T phi(x_i) + b) >= 1 - xi_i, xi_i >= 0; decision f(x) = sum_i alpha_i y_i k(x_i, x) + b over the
support vectors (alpha_i > 0). Hard margin (seed 000, lines 1352-1410, 1610-1716; catalogue E1) is C = inf.
Per-sample C_i = C * class_weight[y_i] * sample_weight_i (as libsvm).
Multiclass: one-vs-rest, one binary SVM per class (classes_[k] against the rest); predict = argmax_k f_k(x).

predict_proba is a monotone map of the decision values, p_k proportional to sigmoid(a f_k(x)) with one slope a > 0
fitted by maximum likelihood (Platt's smoothed targets) on the training decision values, so that
argmax predict_proba = predict. Training decision values are optimistic: use the pipeline's calibration stage
(cross-fitted Platt scaling) for calibrated probabilities; this map only orders the classes and rows.

Sections cited: ML 1 lecture notes (seed 000): Lecture 5 : SVM (Support Vector Machines) Supervised classification
    (1352); → Linear Soft Margin SVM (1370)"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit

from ..base import BaseEstimator, ClassifierMixin, ConvergenceWarning, check_fitted_X, check_sample_weight, check_X_y
from ..base.constraints import OPTIONAL, POSITIVE, InstanceOf, Options, check_hyperparameters, positive_int
from ..kernels import KERNEL_CONSTRAINTS, KernelParamsMixin
from .smo import solve_dual


class SVC(KernelParamsMixin, ClassifierMixin, BaseEstimator):
    """C-support vector classifier trained by SMO.

    Parameters
    ----------
    C : float, default 1.0
        Box constraint 0 <= alpha_i <= C (np.inf: hard margin, needs separable data).
    kernel : {"rbf", "exponential", "linear", "poly", "sigmoid", "inverse_multiquadric"}, default "rbf"
        The Mercer kernel (mllib.kernels).
    gamma : "scale", "auto" or float, default "scale"
        "scale": the length scale l = sqrt(n_features Var(X)) (gamma = 1 / l^2 for the rbf, 1 / l for the exponential);
        "auto": the same with Var(X) = 1; or a positive number.
    degree : int, default 3
        Degree of the poly kernel.
    coef0 : float or None, default None
        The constant of the poly / sigmoid kernels and c > 0 of the inverse multiquadric (None: 0 for poly / sigmoid, as
        libsvm, and c = 1).
    tol : float, default 0.001
        Stop when the maximal KKT violation max_{I_up} F - min_{I_low} F is below tol (libsvm's eps).
    cache_size : float, default 200.0
        MB of kernel rows kept (least recently used dropped).
    class_weight : None, "balanced" or dict, default None
        Multiplies C per class: None, "balanced" (n / (K n_k)) or {label: weight}.
    max_iter : int, default 10000000
        SMO steps per binary problem.

    Attributes
    ----------
    support_ : ndarray
        The training indices of the support vectors, all classes.
    support_vectors_ : ndarray
        The support vectors.
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        alpha_i y_i.
    intercept_ : ndarray of shape (n_problems,)
        The intercepts.
    n_iter_ : ndarray
        The SMO steps of each binary problem.
    proba_slope_ : float
        The slope a of p = sigmoid(a s) on the pooled one-vs-rest training scores.
    """

    _constraints = {  # the kernel's own first; C = np.inf: a hard margin; cache_size in MB
        **KERNEL_CONSTRAINTS,
        "C": POSITIVE,
        "tol": POSITIVE,
        "cache_size": POSITIVE,
        "max_iter": positive_int(),
        "class_weight": [OPTIONAL, Options(("balanced",)), InstanceOf((dict,), "a mapping of class weights")],
    }

    def __init__(
        self,
        C: float = 1.0,
        kernel: str = "rbf",
        gamma="scale",
        degree: int = 3,
        coef0: float | None = None,
        tol: float = 1e-3,
        cache_size: float = 200.0,
        class_weight=None,
        max_iter: int = 10_000_000,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.max_iter = max_iter

    def _class_weights(self, encoded):
        K = self.classes_.size
        if self.class_weight is None:
            return np.ones(K)
        if self.class_weight == "balanced":  # else a mapping: the constraints were checked at fit
            return encoded.size / (K * np.bincount(encoded, minlength=K))
        unknown = set(self.class_weight) - set(self.classes_.tolist())
        if unknown:
            raise ValueError(f"class_weight has labels {sorted(unknown)} that are not in y")
        return np.array([float(self.class_weight.get(c, 1.0)) for c in self.classes_.tolist()])

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        check_hyperparameters(self)
        w = check_sample_weight(sample_weight, X.shape[0])
        encoded = self._encode_targets(y)
        self.n_features_in_ = X.shape[1]
        self._resolve_kernel(X)
        scale = self._class_weights(encoded)[encoded] * w
        C = np.zeros(X.shape[0])
        C[scale > 0] = float(self.C) * scale[scale > 0]  # not inf * 0 for zero-weight rows under a hard margin
        keep = C > 0  # zero-weight rows cannot be support vectors
        positives = [1] if self.classes_.size == 2 else range(self.classes_.size)
        coef = np.zeros((len(positives), X.shape[0]))
        scores = np.zeros((X.shape[0], len(positives)))  # training decision values, for the probability slope
        intercepts, n_iter = [], []
        for k, positive in enumerate(positives):
            y_pm = np.where(encoded[keep] == positive, 1.0, -1.0)
            alpha, b, f_train, it, converged = solve_dual(
                X[keep], y_pm, C[keep], self.kernel, self.kernel_params_, self.tol, self.max_iter, self.cache_size
            )
            if not converged:
                warnings.warn(
                    f"SVC: SMO stopped at max_iter={self.max_iter} before the KKT violation fell below "
                    f"tol={self.tol}; increase max_iter",
                    ConvergenceWarning,
                    stacklevel=2,
                )
            coef[k, keep] = alpha * y_pm
            scores[keep, k] = f_train
            intercepts.append(b)
            n_iter.append(it)
        self.support_ = np.flatnonzero(np.any(coef != 0, axis=0))
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = coef[:, self.support_]
        self.intercept_ = np.array(intercepts)
        self.n_iter_ = np.array(n_iter)
        self.proba_slope_ = _fit_slope(scores[keep], encoded[keep], self.classes_.size)
        return self

    def _decision(self, X):
        """f_k(x) for every problem, shape (n, n_problems)."""
        if self.support_.size == 0:
            return np.broadcast_to(self.intercept_, (X.shape[0], self.intercept_.size)).copy()
        return self._gram_dot(X, self.support_vectors_, self.dual_coef_.T) + self.intercept_

    def decision_function(self, X):
        """Binary: f(x) (n,), positive for classes_[1]; multiclass: one-vs-rest scores (n, K)."""
        X = check_fitted_X(self, X)
        scores = self._decision(X)
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X):
        """sigmoid(a f_k(x)) normalised over the classes (binary: [1 - p, p], p = sigmoid(a f(x)))."""
        scores = self.decision_function(X) * self.proba_slope_
        if self.classes_.size == 2:
            return np.column_stack([expit(-scores), expit(scores)])
        P = expit(scores)
        return P / P.sum(axis=1, keepdims=True)


def _fit_slope(scores, encoded, n_classes, max_iter=100):
    """Maximum-likelihood slope a >= 0 of p = sigmoid(a s) on the pooled one-vs-rest scores (Newton, 1-D convex).

    Platt's targets t+ = (N+ + 1)/(N+ + 2), t- = 1/(N- + 2) keep a finite on separable training scores.
    """
    is_pos = (encoded[:, None] == (np.array([1]) if n_classes == 2 else np.arange(n_classes))[None, :]).ravel()
    s = scores.ravel()
    n_pos, n_neg = is_pos.sum(), (~is_pos).sum()
    t = np.where(is_pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    if not np.any(s):
        return 0.0
    a = 0.0
    for _ in range(max_iter):
        p = expit(a * s)
        grad = s @ (p - t)
        hess = (s * s) @ (p * (1 - p))
        if hess <= 0:
            break
        step = grad / hess
        # the loss is convex in a; halve until it decreases (Newton can overshoot from a = 0)
        loss = np.sum(np.logaddexp(0.0, a * s) - t * a * s)
        while True:
            new = max(a - step, 0.0)
            if np.sum(np.logaddexp(0.0, new * s) - t * new * s) <= loss or abs(step) < 1e-12:
                break
            step /= 2
        if abs(new - a) <= 1e-10 * max(1.0, a):
            a = new
            break
        a = new
    return float(a)
