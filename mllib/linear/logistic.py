"""Logistic regression with an L2 penalty, fitted by Newton's method (IRLS) or L-BFGS.

Objective (seed 002, lines 826-886, slide 3:9-3:12): L(beta) = -sum_i [y_i log p_i + (1-y_i) log(1-p_i)] + lam ||w||^2,
p_i = sigma(x_i^T w + b). Gradient X^T (p - y) + 2 lam w; Hessian X^T W X + 2 lam I with W = diag(p_i (1 - p_i));
Newton step beta <- beta - H^{-1} grad (equivalent to iteratively reweighted least squares).
The intercept b is not penalised (seed 002 catalogue C3: "the bias usually isn't"). Multiclass uses the softmax
model p(y|x) = exp f(y,x) / sum_y' exp f(y',x) with one weight vector per class (lines 888-929), fitted by L-BFGS.
Relation to scikit-learn's C: lam = 1 / (2 C).
"""
from __future__ import annotations

import numpy as np
from scipy import linalg, optimize
from scipy.special import expit, log_softmax, softmax

from ..base import BaseEstimator, ClassifierMixin, check_array, check_is_fitted, check_n_features, check_sample_weight, check_X_y

SOLVERS = ("auto", "newton", "lbfgs")
# L-BFGS-B also stops when the relative decrease of the loss is below ftol; scipy's default (2.2e-9) ends the
# run long before the gradient reaches tol, so keep ftol at rounding level and let gtol = tol decide.
_FTOL = 64 * np.finfo(np.float64).eps


def _binary_loss(beta, X1, y, w, lam):
    """Penalised weighted negative log-likelihood, its gradient, and p; beta = [b, w]."""
    z = X1 @ beta
    nll = np.dot(w, np.logaddexp(0.0, z) - y * z)  # -[y log p + (1-y) log(1-p)] without overflow
    penalty = lam * np.dot(beta[1:], beta[1:])
    p = expit(z)
    grad = X1.T @ (w * (p - y))
    grad[1:] += 2 * lam * beta[1:]
    return nll + penalty, grad, p


def _softmax_loss(flat, X1, Y, w, lam):
    B = flat.reshape(X1.shape[1], Y.shape[1])
    Z = X1 @ B
    log_p = log_softmax(Z, axis=1)
    nll = -np.sum(w[:, None] * Y * log_p)
    grad = X1.T @ (w[:, None] * (np.exp(log_p) - Y))
    grad[1:] += 2 * lam * B[1:]
    return nll + lam * np.sum(B[1:] ** 2), grad.ravel()


class LogisticRegression(ClassifierMixin, BaseEstimator):
    """Penalised maximum-likelihood logistic regression.

    lam: L2 strength lambda in the objective above (0 = plain maximum likelihood; needs non-separable data).
    solver: "newton" (binary only; exact Hessian, a few iterations), "lbfgs", or "auto" (newton if binary).
    tol: stop when the largest Newton step (or projected gradient for L-BFGS) is below tol.
    """

    def __init__(self, lam: float = 1.0, solver: str = "auto", max_iter: int = 100, tol: float = 1e-8):
        self.lam = lam
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {self.solver!r}")
        if not self.lam >= 0:
            raise ValueError(f"lam must be >= 0, got {self.lam!r}")
        w = check_sample_weight(sample_weight, X.shape[0])
        encoded = self._encode_targets(y)
        self.n_features_in_ = X.shape[1]
        X1 = np.hstack([np.ones((X.shape[0], 1)), X])
        binary = self.classes_.size == 2
        solver = ("newton" if binary else "lbfgs") if self.solver == "auto" else self.solver
        if solver == "newton" and not binary:
            raise ValueError("solver='newton' is implemented for binary targets; use 'lbfgs' for multiclass")
        if binary:
            beta = self._fit_newton(X1, encoded.astype(float), w) if solver == "newton" else self._fit_lbfgs_binary(X1, encoded.astype(float), w)
            self.intercept_ = np.array([beta[0]])
            self.coef_ = beta[1:][None, :]
        else:
            B = self._fit_lbfgs_softmax(X1, np.eye(self.classes_.size)[encoded], w)
            self.intercept_ = B[0]
            self.coef_ = B[1:].T.copy()
        return self

    def _fit_newton(self, X1, y, w):
        beta = np.zeros(X1.shape[1])
        loss, grad, p = _binary_loss(beta, X1, y, w, self.lam)
        ridge = np.full(X1.shape[1], 2 * self.lam)
        ridge[0] = 0.0
        for n_iter in range(1, self.max_iter + 1):
            H = (X1 * (w * p * (1 - p))[:, None]).T @ X1 + np.diag(ridge)  # X^T W X; this operand order is BLAS-fast
            try:
                step = linalg.cho_solve(linalg.cho_factor(H), grad)
            except linalg.LinAlgError:  # singular Hessian (lam = 0 with collinear columns)
                step = linalg.lstsq(H, grad)[0]
            # step halving keeps every iterate a descent step far from the optimum
            # (near the optimum the loss change is below rounding: allow a few ulps, else the exact Newton step
            # is rejected and the fit stops at a halved step with a gradient ~1e7 times larger)
            t, slack = 1.0, 16 * np.finfo(np.float64).eps * abs(loss)
            while True:
                candidate = beta - t * step
                new_loss, new_grad, new_p = _binary_loss(candidate, X1, y, w, self.lam)
                if new_loss <= loss + 1e-4 * t * -np.dot(grad, step) + slack or t < 1e-10:
                    break
                t *= 0.5
            beta, loss, grad, p = candidate, new_loss, new_grad, new_p
            if np.max(np.abs(t * step)) < self.tol:
                break
        self.n_iter_ = n_iter
        return beta

    def _fit_lbfgs_binary(self, X1, y, w):
        res = optimize.minimize(
            lambda b: _binary_loss(b, X1, y, w, self.lam)[:2], np.zeros(X1.shape[1]), jac=True, method="L-BFGS-B",
            options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": _FTOL},
        )
        self.n_iter_ = res.nit
        return res.x

    def _fit_lbfgs_softmax(self, X1, Y, w):
        res = optimize.minimize(
            _softmax_loss, np.zeros(X1.shape[1] * Y.shape[1]), args=(X1, Y, w, self.lam), jac=True,
            method="L-BFGS-B", options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": _FTOL},
        )
        self.n_iter_ = res.nit
        return res.x.reshape(X1.shape[1], Y.shape[1])

    def decision_function(self, X):
        """Binary: the log-odds x^T w + b (n,); multiclass: the class scores f(y, x) (n, K)."""
        check_is_fitted(self)
        X = check_array(X)
        check_n_features(self, X)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict_proba(self, X):
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            p = expit(scores)
            return np.column_stack([1 - p, p])
        return softmax(scores, axis=1)
