"""The fit Platt scaling and beta calibration share: a logistic map of a few features of the score, fitted by Newton's
method with Armijo backtracking to the (smoothed) labels.

Objective: the weighted mean log loss L(theta) = sum_i w_i [log(1 + e^z_i) - t_i z_i], z_i = sum_j theta_j x_ij +
theta_0, over targets t_i in [0, 1] (the labels, or Platt's smoothed targets); gradient sum_i w_i (p_i - t_i) x_i,
Hessian sum_i w_i p_i (1 - p_i) x_i x_i^T with p = sigmoid(z) (a logistic regression; Platt 1999, and Kull, Silva Filho
& Flach 2017 for beta calibration's two features). Convex, so Newton's steps with backtracking reach the minimum
(Boyd & Vandenberghe 2004, 9.5). The features come standardised by the caller; a column of ones is the intercept,
theta's last entry. Sums run over chunks of rows (_checks.row_chunks), in the same order for one feature as Platt
scaling's own two-parameter sums did, so its fits are unchanged to the bit.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit

from ..base import ConvergenceWarning
from ._checks import row_chunks

# Armijo sufficient-decrease constant of the backtracking line search
_ARMIJO = 1e-4
_MAX_HALVINGS = 60


def logit_z(theta: np.ndarray, features: tuple[np.ndarray, ...], rows) -> np.ndarray:
    """The log-odds z = sum_j theta_j x_j + theta_last of the rows `rows` of the feature columns."""
    z = theta[0] * features[0][rows]
    for j in range(1, len(features)):
        z += theta[j] * features[j][rows]
    return z + theta[-1]


def mean_log_loss(theta: np.ndarray, features: tuple[np.ndarray, ...], t: np.ndarray, w: np.ndarray) -> float:
    """sum_i w_i [log(1 + e^z_i) - t_i z_i], written with logaddexp so that a large |z| cannot overflow."""
    loss = 0.0
    for rows in row_chunks(t.shape[0]):
        z = logit_z(theta, features, rows)
        loss += float(w[rows] @ (np.logaddexp(0.0, z) - t[rows] * z))
    return loss


def newton_terms(
    theta: np.ndarray, features: tuple[np.ndarray, ...], t: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The loss's gradient and Hessian in theta (the intercept last)."""
    k = len(features)
    grad, hessian = np.zeros(k + 1), np.zeros((k + 1, k + 1))
    for rows in row_chunks(t.shape[0]):
        z = logit_z(theta, features, rows)
        residual = w[rows] * (expit(z) - t[rows])
        curvature = w[rows] * expit(z) * expit(-z)  # p (1 - p) without cancellation when p is near 1
        x = [f[rows] for f in features]
        chunk_grad = [residual @ x[j] for j in range(k)] + [residual.sum()]
        chunk_hessian = np.empty((k + 1, k + 1))
        for i in range(k):
            for j in range(i, k):
                chunk_hessian[i, j] = chunk_hessian[j, i] = curvature @ (x[i] * x[j])
            chunk_hessian[i, k] = chunk_hessian[k, i] = curvature @ x[i]
        chunk_hessian[k, k] = curvature.sum()
        grad += chunk_grad
        hessian += chunk_hessian
    return grad, hessian


def fit_logistic(
    theta: np.ndarray,
    features: tuple[np.ndarray, ...],
    t: np.ndarray,
    w: np.ndarray,
    tol: float,
    max_iter: int,
    who: str,
) -> tuple[np.ndarray, float, int]:
    """Newton's method from `theta` on mean_log_loss (w sums to 1): (theta, its loss, the steps taken). It stops once
    the Newton decrement lambda^2 / 2 (the predicted remaining excess loss) is at most tol, after taking the step that
    achieved it; at max_iter it warns (ConvergenceWarning, naming `who`). A singular Hessian raises numpy's
    LinAlgError, which the caller words."""
    loss = mean_log_loss(theta, features, t, w)
    converged, decrement, n_iter = False, np.inf, 0
    for n_iter in range(1, max_iter + 1):
        grad, hessian = newton_terms(theta, features, t, w)
        direction = -np.linalg.solve(hessian, grad)
        decrement = float(-grad @ direction)  # lambda^2 = g^T H^-1 g >= 0
        step, accepted = 1.0, False
        # near the optimum the Armijo test is decided by rounding; allow a few ulps of the loss
        slack = 16 * np.finfo(np.float64).eps * abs(loss)
        for _ in range(_MAX_HALVINGS):
            candidate = theta + step * direction
            new_loss = mean_log_loss(candidate, features, t, w)
            if new_loss <= loss - _ARMIJO * step * decrement + slack:
                accepted = True
                break
            step *= 0.5
        if not accepted:  # no decrease representable in float64 along the Newton direction
            converged = decrement / 2 <= tol
            break
        theta, loss = candidate, new_loss
        if decrement / 2 <= tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"{who} stopped after {n_iter} Newton steps with decrement {decrement / 2:.3g} > tol={tol}; increase "
            "max_iter or check the scores for (near-)separation",
            ConvergenceWarning,
            stacklevel=3,
        )
    return theta, loss, n_iter
