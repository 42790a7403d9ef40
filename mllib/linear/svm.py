"""Linear soft-margin SVM: the primal objective min_w 1/2 ||w||^2 + C sum_i s_i loss(t_i w^T x_i), t in {-1, +1}, with
loss = hinge max(0, 1 - m) or squared hinge max(0, 1 - m)^2 (seed 000, lines 919-937, 1370-1384, 2495-2519;
catalogue 000 C4/E2 and 001-004 7.3: "numpy sub-gradient or coordinate descent for the linear hinge model"; seed 002
line 1769 with the corrected [1 - y_i (phi^T beta + beta_0)]_+, erratum 3).
Solvers (not the primal subgradient / Pegasos steps of catalogue 000 C4 and 002 P14, whose error falls only as
O(1/t)): the hinge primal is minimised through its dual, by coordinate descent (Hsieh et al. 2008,
the LIBLINEAR solver): max over 0 <= a_i <= C s_i of sum a_i - 1/2 ||sum a_i t_i x_i||^2, updating one a_i at a time
in closed form while keeping w = sum a_i t_i x_i; strong duality (catalogue 000 E3) makes its w the primal optimum,
and it is the coordinate descent that catalogue 001-004 7.3 allows. Squared hinge (the 2-norm soft margin, erratum
E32): the primal itself is differentiable and piecewise quadratic, so Newton's method with the generalised Hessian
I + 2 C X_A^T S X_A over the active rows A = {t_i w^T x_i < 1} (Keerthi & DeCoste 2005; catalogue 002 P14 "smooth
... on squared hinge") converges in a handful of steps; its dual variables a_i = 2 C s_i max(0, 1 - t_i w^T x_i)
are reported alike.
The bias is not the notes' free beta_0: as in LIBLINEAR it is the weight of a constant feature of value
intercept_scaling, so it is penalised by b^2 / (2 intercept_scaling^2) (both solvers; the dual then has no equality
constraint sum a_i t_i = 0); a large intercept_scaling leaves it nearly free.
Multiclass: one-vs-rest.

Sections cited:
- ML 1 lecture notes (seed 000): Fisher Discriminant (919)
- Machine Learning lecture notes (seed 002): SVM as a Penalization Method (1769)"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg

from ..base import (
    BaseEstimator,
    ClassifierMixin,
    ConvergenceWarning,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from ..base.constraints import NON_NEGATIVE, POSITIVE, RANDOM_STATE, Options, check_hyperparameters, positive_int
from ._kernels import svm_dual_cd
from ._ovr import OneVsRestLinearMixin, fit_one_vs_rest

LOSSES = ("hinge", "squared_hinge")


class LinearSVM(OneVsRestLinearMixin, ClassifierMixin, BaseEstimator):
    """Linear support vector classifier. predict_proba is an uncalibrated squashing of the margin (see
    OneVsRestLinearMixin).

    Parameters
    ----------
    C : float, default 1.0
        Inverse regularisation (weight of the data term).
    loss : {"hinge", "squared_hinge"}, default "squared_hinge"
        The hinge loss (dual coordinate descent) or its square (Newton on the primal).
    tol : float, default 0.0001
        hinge: stop when the projected dual gradient varies by less than tol over an epoch; squared hinge: stop when the
        largest Newton step is below tol.
    max_iter : int, default 1000
        Epochs (hinge) or Newton steps (squared hinge).
    intercept_scaling : float, default 1.0
        Value of the constant feature carrying the bias.
    random_state : int, Generator or None, default 0
        Seeds the order in which the dual coordinates are visited.
    """

    _constraints = {
        "loss": Options(LOSSES),
        "C": POSITIVE,
        "intercept_scaling": POSITIVE,
        "max_iter": positive_int(),  # epochs
        "tol": NON_NEGATIVE,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        C: float = 1.0,
        loss: str = "squared_hinge",
        tol: float = 1e-4,
        max_iter: int = 1000,
        intercept_scaling: float = 1.0,
        random_state: int | None = 0,
    ):
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.intercept_scaling = intercept_scaling
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        check_hyperparameters(self)
        s = check_sample_weight(sample_weight, X.shape[0])
        codes = self._encode_targets(y)
        self.n_features_in_ = X.shape[1]
        X1 = np.hstack([X, np.full((X.shape[0], 1), float(self.intercept_scaling))])
        Cs = self.C * s
        seed = int(check_random_state(self.random_state).integers(2**31 - 1))
        epochs, duals = [], []

        def fit_binary(t):
            if self.loss == "hinge":
                w, a, n = svm_dual_cd(X1, t, Cs, float(self.tol), int(self.max_iter), seed)
            else:
                w, a, n = self._fit_primal_newton(X1, t, Cs)
            epochs.append(int(n))
            duals.append(a)
            return w[:-1], w[-1] * self.intercept_scaling

        self.coef_, self.intercept_ = fit_one_vs_rest(codes, self.classes_.size, fit_binary)
        self.dual_coef_ = np.array(duals)  # a_i per one-vs-rest problem; a_i > 0 marks the support vectors
        self.n_iter_ = max(epochs)
        if self.n_iter_ >= self.max_iter:
            warnings.warn(
                f"LinearSVM(C={self.C}) stopped at max_iter={self.max_iter} before tol={self.tol} was met; increase "
                "max_iter or lower C",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _fit_primal_newton(self, X1, t, Cs):
        """min_w 1/2 ||w||^2 + sum_i C s_i max(0, 1 - t_i w^T x_i)^2 by generalised Newton with step halving."""

        def objective(w):
            slack = np.maximum(0.0, 1.0 - t * (X1 @ w))
            return 0.5 * w @ w + Cs @ slack**2, slack

        w = np.zeros(X1.shape[1])
        f, slack = objective(w)
        for n_iter in range(1, self.max_iter + 1):
            active = slack > 0
            grad = w - 2.0 * X1[active].T @ (Cs[active] * slack[active] * t[active])
            XA = X1[active]
            H = (XA * (2.0 * Cs[active])[:, None]).T @ XA
            H[np.diag_indices_from(H)] += 1.0
            step = linalg.cho_solve(linalg.cho_factor(H), grad)
            size = 1.0
            while True:  # Armijo: the generalised Newton direction is a descent direction
                candidate = w - size * step
                f_new, slack_new = objective(candidate)
                if f_new <= f - 1e-4 * size * (grad @ step) + 16 * np.finfo(np.float64).eps * abs(f) or size < 1e-10:
                    break
                size *= 0.5
            w, f, slack = candidate, f_new, slack_new
            if np.max(np.abs(size * step)) < self.tol:
                break
        return w, 2.0 * Cs * slack, n_iter
