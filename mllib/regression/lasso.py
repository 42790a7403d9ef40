"""Lasso: least squares with an L1 penalty, fitted by cyclic coordinate descent with soft-thresholding.

Objective (seed 002, lines 546-572; seed 004, lines 324-328), in scikit-learn's scaling:
    (1 / 2n) sum_i w_i (y_i - b0 - x_i^T beta)^2 + alpha ||beta||_1,   n = sum_i w_i,
intercept unpenalised (slopes fitted on centred data). The notes give no algorithm beyond "a quadratic program";
coordinate descent is the standard one: for each j in turn, with the other coefficients fixed,
    beta_j <- S(rho_j, n alpha) / (x_j^T x_j),   rho_j = x_j^T (y - X beta + x_j beta_j),   S(z, t) = sign(z) max(|z|
    - t, 0).
rho_j is computed from the Gram matrix X^T X and X^T y (Friedman et al.'s "covariance updates"): a sweep costs
O(d^2) instead of O(n d), which pays off for the n >> d tables of this project.
Stopping: when the largest coefficient change of a sweep is below tol times the largest coefficient, the
duality gap is computed, and the fit stops once gap <= tol * ||y - ybar||^2 (scikit-learn's criterion).

Sections cited:
- Machine Learning lecture notes (seed 002): Lasso: L_1 -regularization (546)
- Ghent ML notes (seed 004): 2.3 Overfitting and Explicit Regularization (324)"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..base import ConvergenceWarning, check_sample_weight, check_X_y
from ..base.constraints import NON_NEGATIVE, check_hyperparameters, positive_int
from ._centring import centre
from .least_squares import _LinearPredictor


def duality_gap(beta, gram, Xty, yy, penalty):
    """Gap of (1/2)||y - X beta||^2 + penalty ||beta||_1 at beta, from X^T X, X^T y and y^T y alone.

    The dual point is the residual scaled into the feasible set {u : ||X^T u||_inf <= penalty}."""
    correlation = Xty - gram @ beta  # X^T r
    r_dot_r = max(yy - beta @ Xty - beta @ correlation, 0.0)
    r_dot_y = yy - beta @ Xty
    dual_norm = np.max(np.abs(correlation), initial=0.0)
    scale = penalty / dual_norm if dual_norm > penalty else 1.0
    gap = 0.5 * r_dot_r * (1 + scale**2) + penalty * np.abs(beta).sum() - scale * r_dot_y
    return float(gap)


def coordinate_descent(gram, Xty, yy, penalty, max_iter, tol):
    """Minimise (1/2)||y - X beta||^2 + penalty ||beta||_1 given X^T X, X^T y, y^T y; returns beta, sweeps, gap."""
    d = Xty.size
    beta = np.zeros(d)
    correlation = Xty.copy()  # X^T (y - X beta), kept current as coefficients move
    diag = np.diag(gram).tolist()
    gap_tol = tol * yy
    gap = np.inf
    for sweep in range(1, max_iter + 1):
        largest_change = largest_coef = 0.0
        for j in range(d):  # scalar work in Python floats; only the O(d) update touches arrays
            if diag[j] == 0.0:  # a constant column carries no information
                continue
            old = float(beta[j])
            rho = float(correlation[j]) + diag[j] * old
            new = math.copysign(max(abs(rho) - penalty, 0.0), rho) / diag[j]
            if new != old:
                correlation -= (new - old) * gram[j]  # row j = column j (symmetric), contiguous
                beta[j] = new
                largest_change = max(largest_change, abs(new - old))
            largest_coef = max(largest_coef, abs(new))
        if largest_coef == 0.0 or largest_change <= tol * largest_coef or sweep == max_iter:
            correlation = Xty - gram @ beta  # drop the rounding the incremental updates accumulated
            gap = duality_gap(beta, gram, Xty, yy, penalty)
            if gap <= gap_tol:
                break
    return beta, sweep, gap


class Lasso(_LinearPredictor):
    """L1-penalised least squares (sparse coefficients) by cyclic coordinate descent, intercept not penalised.

    Parameters
    ----------
    alpha : float, default 0.1
        Penalty strength in the (1/2n)-scaled objective above (scikit-learn's Lasso(alpha)); every coefficient is 0 once
        alpha >= max_j |x_j^T (y - ybar)| / n.
    max_iter : int, default 1000
        Maximum number of coordinate sweeps.
    tol : float, default 0.0001
        Once a sweep changes no coefficient by more than tol times the largest one, the duality gap is computed; the fit
        stops when it is <= tol ||y - ybar||^2 (scikit-learn's criterion).

    Attributes
    ----------
    coef_ : ndarray
        The slopes.
    intercept_ : float
        The intercept.
    n_iter_ : int
        The coordinate sweeps run.
    dual_gap_ : float
        The final duality gap, in the objective's units.
    """

    _constraints = {"alpha": NON_NEGATIVE, "max_iter": positive_int(), "tol": NON_NEGATIVE}

    def __init__(self, alpha: float = 0.1, max_iter: int = 1000, tol: float = 1e-4):
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        check_hyperparameters(self)
        w = check_sample_weight(sample_weight, X.shape[0])
        n = w.sum()
        x_mean, y_mean, Xc, yc = centre(X, y, None if sample_weight is None else w)
        beta, sweeps, gap = coordinate_descent(
            Xc.T @ Xc, Xc.T @ yc, float(yc @ yc), self.alpha * n, int(self.max_iter), float(self.tol)
        )
        self.n_features_in_ = X.shape[1]
        self.coef_ = beta
        self.intercept_ = y_mean - float(x_mean @ beta)
        self.n_iter_ = int(sweeps)
        self.dual_gap_ = float(gap / n)
        if gap > self.tol * float(yc @ yc):
            warnings.warn(
                f"Lasso(alpha={self.alpha}) stopped at max_iter={self.max_iter} sweeps with duality gap "
                f"{self.dual_gap_:.3g} above tol; increase max_iter or alpha",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self
