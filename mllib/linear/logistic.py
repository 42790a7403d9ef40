"""Logistic regression with an L2 or L1 penalty, fitted by Newton's method (IRLS), L-BFGS or proximal Newton.

Objective (seed 002, lines 826-886, slide 3:9-3:12): L(beta) = -sum_i [y_i log p_i + (1-y_i) log(1-p_i)] + lam ||w||^2,
p_i = sigma(x_i^T w + b). Gradient X^T (p - y) + 2 lam w; Hessian X^T W X + 2 lam I with W = diag(p_i (1 - p_i));
Newton step beta <- beta - H^{-1} grad (equivalent to iteratively reweighted least squares).
The intercept b is not penalised (seed 002 catalogue C3: "the bias usually isn't"). Multiclass uses the softmax
model p(y|x) = exp f(y,x) / sum_y' exp f(y',x) with one weight vector per class (lines 888-929), fitted by L-BFGS.
Relation to scikit-learn's C: lam = 1 / (2 C).
L1 (seed 002 lines 546-572 for the lasso penalty; catalogue 001-004 7.5 "optional L1"): lam ||w||_1 in place of
lam ||w||^2 (scikit-learn: lam = 1 / C), not differentiable at 0, so the Newton step becomes a proximal Newton step:
minimise the IRLS quadratic model g^T d + 1/2 d^T H d + lam ||w + d||_1 by cyclic coordinate descent (each
coordinate a soft-threshold; the intercepts unpenalised), then backtrack on the true objective (newGLMNET).
Binary and multinomial (full (p K) x (p K) softmax Hessian) alike.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg, optimize
from scipy.special import expit, log_softmax, softmax

from ..base import BaseEstimator, ClassifierMixin, check_array, check_is_fitted, check_n_features, check_sample_weight, check_X_y
from ._kernels import l1_quadratic_step

SOLVERS = ("auto", "newton", "lbfgs")
PENALTIES = ("l2", "l1")
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


def _softmax_hessian(X1, P, w):
    """Hessian of the softmax NLL in B.ravel() order (feature-major): blocks X^T diag(w p_c ([c=d] - p_d)) X."""
    p, K = X1.shape[1], P.shape[1]
    H = np.empty((p, K, p, K))
    for c in range(K):
        for d in range(c, K):
            v = w * P[:, c] * ((c == d) - P[:, d])
            H[:, c, :, d] = (X1 * v[:, None]).T @ X1
            H[:, d, :, c] = H[:, c, :, d].T
    return H.reshape(p * K, p * K)


class LogisticRegression(ClassifierMixin, BaseEstimator):
    """Penalised maximum-likelihood logistic regression.

    lam: penalty strength lambda in the objective above (0 = plain maximum likelihood; needs non-separable data).
    penalty: "l2" (lam ||w||^2) or "l1" (lam ||w||_1, sparse coefficients; proximal Newton, binary or multinomial).
    solver: "newton" (binary only for l2; exact Hessian, a few iterations), "lbfgs" (l2 only), or "auto"
        (newton if binary or l1).
    tol: stop when the largest Newton step (or projected gradient for L-BFGS) is below tol.
    """

    def __init__(self, lam: float = 1.0, penalty: str = "l2", solver: str = "auto", max_iter: int = 100,
                 tol: float = 1e-8):
        self.lam = lam
        self.penalty = penalty
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {self.solver!r}")
        if not self.lam >= 0:
            raise ValueError(f"lam must be >= 0, got {self.lam!r}")
        if self.penalty not in PENALTIES:
            raise ValueError(f"penalty must be one of {PENALTIES}, got {self.penalty!r}")
        if self.penalty == "l1" and self.solver == "lbfgs":
            raise ValueError("solver='lbfgs' needs a smooth objective; use solver='newton' or 'auto' with penalty='l1'")
        w = check_sample_weight(sample_weight, X.shape[0])
        encoded = self._encode_targets(y)
        self.n_features_in_ = X.shape[1]
        X1 = np.hstack([np.ones((X.shape[0], 1)), X])
        binary = self.classes_.size == 2
        if self.penalty == "l1":
            Y = encoded.astype(float)[:, None] if binary else np.eye(self.classes_.size)[encoded]
            B = self._fit_proximal_newton(X1, Y, w, binary)
            self.intercept_ = B[0]
            self.coef_ = B[1:].T.copy()
            return self
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

    def _l1_objective(self, B, X1, Y, w, binary):
        """Penalised NLL, its gradient (B's shape) and the Hessian (flattened B order)."""
        if binary:
            loss, grad, p = _binary_loss(B[:, 0], X1, Y[:, 0], w, 0.0)
            return loss + self.lam * np.abs(B[1:]).sum(), grad[:, None], lambda: (X1 * (w * p * (1 - p))[:, None]).T @ X1
        loss, grad = _softmax_loss(B.ravel(), X1, Y, w, 0.0)
        return (loss + self.lam * np.abs(B[1:]).sum(), grad.reshape(B.shape),
                lambda: _softmax_hessian(X1, softmax(X1 @ B, axis=1), w))

    def _fit_proximal_newton(self, X1, Y, w, binary):
        B = np.zeros((X1.shape[1], Y.shape[1]))
        penalised = np.zeros(B.shape, dtype=bool)
        penalised[1:] = True
        penalised = penalised.ravel()
        loss, grad, hessian = self._l1_objective(B, X1, Y, w, binary)
        for n_iter in range(1, self.max_iter + 1):
            beta = B.ravel()
            d = l1_quadratic_step(grad.ravel(), hessian(), beta, penalised, float(self.lam), self.tol / 10, 10_000)
            # sufficient decrease on the true objective, with the L1 term's change in the predicted decrease
            predicted = grad.ravel() @ d + self.lam * (np.abs((beta + d)[penalised]).sum() - np.abs(beta[penalised]).sum())
            t, slack = 1.0, 16 * np.finfo(np.float64).eps * abs(loss)
            while True:
                candidate = (beta + t * d).reshape(B.shape)
                new = self._l1_objective(candidate, X1, Y, w, binary)
                if new[0] <= loss + 1e-4 * t * min(predicted, 0.0) + slack or t < 1e-10:
                    break
                t *= 0.5
            B, (loss, grad, hessian) = candidate, new
            if np.max(np.abs(t * d)) < self.tol:
                break
        self.n_iter_ = n_iter
        return B

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
