"""Logistic regression with an L2 or L1 penalty, fitted by Newton's method (IRLS), L-BFGS or proximal Newton.

Objective (seed 002, lines 826-886, slide 3:9-3:12): L(beta) = -sum_i [y_i log p_i + (1-y_i) log(1-p_i)] + lam ||w||^2,
p_i = sigma(x_i^T w + b). Gradient X^T (p - y) + 2 lam w; Hessian X^T W X + 2 lam I with W = diag(p_i (1 - p_i));
Newton step beta <- beta - H^{-1} grad (equivalent to iteratively reweighted least squares).
The intercept b is not penalised (seed 002 catalogue C3: "the bias usually isn't"). Multiclass uses the softmax
model p(y|x) = exp f(y,x) / sum_y' exp f(y',x) with one weight vector per class (lines 888-929, catalogue C4):
gradient X^T (p_c - y_c) + 2 lam w_c, Hessian blocks X^T W_cd X + 2 [c=d] lam I with W_cd = diag(p_c ([c=d] - p_d)),
fitted by Newton on the full (p K) x (p K) Hessian or by L-BFGS.
Softmax shift: adding one vector v to every class's parameters, B -> B + v 1^T, leaves every p(y|x) unchanged, so
the NLL's Hessian is singular along these directions (catalogue C4). The ridge fixes the weights (at the optimum
they sum to zero over the classes) but not the free intercepts. Rather than fixing a reference class, the Newton
system is solved with alpha Pi added to H, Pi the projector onto the shifts: the gradient is orthogonal to them
(its class-sums vanish), so the solution d of (H + alpha Pi) d = -grad is the Newton step with class-sums zero,
i.e. the minimum-norm step, and the intercepts stay centred (sum_c b_c = 0), as L-BFGS started at 0 keeps them.
Relation to scikit-learn's C: lam = 1 / (2 C).
L1 (seed 002 lines 546-572 for the lasso penalty; catalogue 001-004 7.5 "optional L1"): lam ||w||_1 in place of
lam ||w||^2 (scikit-learn: lam = 1 / C), not differentiable at 0, so the Newton step becomes a proximal Newton step:
minimise the IRLS quadratic model g^T d + 1/2 d^T H d + lam ||w + d||_1 by cyclic coordinate descent (each
coordinate a soft-threshold; the intercepts unpenalised), then backtrack on the true objective (newGLMNET).
Binary and multinomial (full (p K) x (p K) softmax Hessian) alike.

Sections cited: Machine Learning lecture notes (seed 002): Lasso: L_1 -regularization (546); Logistic regression:
    binary case (826)"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg
from scipy.linalg.blas import dsyrk
from scipy.special import expit, softmax

from ..base import (
    BaseEstimator,
    ClassifierMixin,
    ConvergenceWarning,
    check_fitted_X,
    check_labels,
    check_sample_weight,
    check_two_classes,
    check_X_y,
    common_width,
    summed,
)
from ..base.constraints import NON_NEGATIVE, POSITIVE, Options, check_hyperparameters, positive_int

SOLVERS = ("auto", "newton", "lbfgs")
NEWTON_FEATURES = 1000  # solver auto: beyond this many features L-BFGS, whose iterations cost O(n p), not O(p^3)
PENALTIES = ("l2", "l1")
# L-BFGS-B also stops when the relative decrease of the loss is below ftol; scipy's default (2.2e-9) ends the
# run long before the gradient reaches tol, so keep ftol at rounding level and let gtol = tol decide.
_FTOL = 64 * np.finfo(np.float64).eps


def _binary_loss(beta, X, y, w, lam):
    """Penalised weighted negative log-likelihood, its gradient, and p; beta = [b, w], z = X w + b (the intercept
    apart: no [1, X] copy of the rows, which at millions of rows cost more than the fit's first iterations)."""
    z = X @ beta[1:]
    z += beta[0]
    nll = np.dot(w, np.logaddexp(0.0, z) - y * z)  # -[y log p + (1-y) log(1-p)] without overflow
    penalty = lam * np.dot(beta[1:], beta[1:])
    p = expit(z)
    residual = w * (p - y)
    grad = np.empty_like(beta)
    grad[0] = residual.sum()
    grad[1:] = X.T @ residual + 2 * lam * beta[1:]
    return nll + penalty, grad, p


def _softmax_loss(flat, X, Y, w, lam):
    """Penalised weighted softmax NLL and its gradient in B.ravel() order; Y one-hot (n, K); B's first row the
    intercepts, f(y, x) = b_y + x^T w_y."""
    B = flat.reshape(X.shape[1] + 1, Y.shape[1])
    Z = B[1:].T @ X.T  # (K, n): the reductions over the classes then run along axis 0, vectorised over the rows
    Z += B[0][:, None]
    Z -= Z.max(axis=0)
    P = np.exp(Z)
    total = P.sum(axis=0)
    nll = w @ np.log(total) - np.einsum("i,ki,ik->", w, Z, Y)  # -sum_i w_i log p_i,y_i by log-sum-exp
    P *= w / total
    P -= Y.T * w
    grad = np.empty_like(B)
    grad[0] = P.sum(axis=1)
    grad[1:] = (P @ X).T + 2 * lam * B[1:]  # X^T (w (p_c - y_c)) for every class c
    return nll + lam * np.sum(B[1:] ** 2), grad.ravel()


_GRAM_ROWS = 4096  # rows per block of the weighted Gram matrix: a block of sqrt(v) X stays in the CPU's cache


def _weighted_gram(X, v):
    """[1, X]^T diag(v) [1, X] for v >= 0 as the sum over row blocks of (sqrt(v) [1, X_b])^T (sqrt(v) [1, X_b]): BLAS's
    symmetric rank-k update computes one triangle, half the products of a general matrix product (the binary Hessian
    is most of a Newton fit's time), and a block of a few thousand rows stays in cache instead of a scaled copy of the
    whole matrix (on 640,000 x 57: 0.16 -> 0.11 s, and no second matrix in memory); the column of ones is made block
    by block only. Blocks are fixed, so the sum is always added in the same order."""
    n, p = X.shape[0], X.shape[1] + 1
    upper = np.zeros((p, p), order="F")
    # the block in X's own memory order, so that scaling it reads and writes in step; a row-major block is handed
    # to BLAS as its transpose (column-major), whose rank-k update without trans is the same X^T X
    by_rows = X.flags.c_contiguous and not X.flags.f_contiguous
    block = np.empty((min(_GRAM_ROWS, n), p), order="C" if by_rows else "F")
    root = np.sqrt(v)
    for start in range(0, n, _GRAM_ROWS):
        stop = min(start + _GRAM_ROWS, n)
        scaled = block[: stop - start]
        scaled[:, 0] = root[start:stop]
        np.multiply(X[start:stop], root[start:stop, None], out=scaled[:, 1:])
        if by_rows:
            upper = dsyrk(1.0, scaled.T, beta=1.0, c=upper, trans=0, overwrite_c=1)
        else:
            upper = dsyrk(1.0, scaled, beta=1.0, c=upper, trans=1, overwrite_c=1)
    return upper + np.triu(upper, 1).T


def _softmax_hessian(X, P, w):
    """Hessian of the softmax NLL in B.ravel() order (feature-major, the intercepts first): blocks
    [1, X]^T diag(w p_c ([c=d] - p_d)) [1, X]. Each row of blocks sums to zero (p_c (1 - sum_d p_d) = 0: the shift
    invariance), so only the K (K - 1) / 2 off-diagonal blocks need a product (a Gram of the weights w p_c p_d >= 0),
    and the diagonal ones are minus their row sums."""
    p, K = X.shape[1] + 1, P.shape[1]
    H = np.zeros((p, K, p, K))
    for c in range(K):
        for d in range(c + 1, K):
            block = -_weighted_gram(X, w * P[:, c] * P[:, d])
            H[:, c, :, d] = block
            H[:, d, :, c] = block
            H[:, c, :, c] -= block
            H[:, d, :, d] -= block
    return H.reshape(p * K, p * K)


def _smooth_objective(B, X, Y, w, binary, lam):
    """Weighted NLL + lam ||w||^2 (binary or softmax) at B ((p + 1, K), the intercepts first), its gradient (B's
    shape) and its Hessian on demand (flattened B order, feature-major: the first K diagonal entries are the
    intercepts', unpenalised)."""
    if binary:
        loss, grad, p = _binary_loss(B[:, 0], X, Y[:, 0], w, lam)
    else:
        loss, grad = _softmax_loss(B.ravel(), X, Y, w, lam)

    def hessian():
        if binary:
            H = _weighted_gram(X, w * p * (1 - p))
        else:
            H = _softmax_hessian(X, softmax(B[1:].T @ X.T + B[0][:, None], axis=0).T, w)
        H.flat[Y.shape[1] * (H.shape[0] + 1) :: H.shape[0] + 1] += 2 * lam
        return H

    return loss, grad.reshape(B.shape), hessian


def _without_softmax_shift(H, K):
    """H + alpha Pi, Pi = I (x) 1 1^T / K the projector onto the shifts B -> B + v 1^T (module docstring); alpha, the
    mean of H's diagonal, puts the shift directions' eigenvalue on the scale of the others (any alpha > 0 gives the
    same step)."""
    rows = np.arange(H.shape[0] // K)
    H.reshape(rows.size, K, rows.size, K)[rows, :, rows, :] += np.trace(H) / H.shape[0] / K
    return H


def _newton_direction(beta, grad, H):
    """The Newton step -H^{-1} grad and its predicted first-order change grad^T d."""
    try:
        d = -linalg.cho_solve(linalg.cho_factor(H), grad)
    except linalg.LinAlgError:  # singular Hessian (lam = 0 with collinear columns)
        d = -linalg.lstsq(H, grad)[0]
    return d, grad @ d


def _labels_and_width(block):
    X, y, _ = block
    X, y = check_X_y(X, y)
    return np.unique(check_labels(y)), X.shape[1]


def _score_targets(encoded: np.ndarray, n_classes: int) -> np.ndarray:
    """The targets of the scores, (n, K): the 0/1 labels (binary, one score) or the one-hot classes (softmax)."""
    return encoded.astype(np.float64)[:, None] if n_classes == 2 else np.eye(n_classes)[encoded]


def _block_terms(block, B, classes):
    """A block's unpenalised NLL, gradient and Hessian at B, from the block's rows themselves (no [1, X] copy: a
    worker's memory holds the block once). The blocks were checked once, before the first pass
    (_labels_and_width)."""
    X, y, w = np.asarray(block[0], dtype=np.float64), np.asarray(block[1]), block[2]
    Y = _score_targets(np.searchsorted(classes, y), classes.size)
    loss, grad, hessian = _smooth_objective(B, X, Y, check_sample_weight(w, X.shape[0]), classes.size == 2, 0.0)
    return loss, grad, hessian()


def _null_model(class_totals: np.ndarray, binary: bool) -> np.ndarray:
    """Newton's starting point: the intercept-only fit (log-odds of the weighted class shares; softmax: log shares,
    centred), every coefficient 0. From all zeros the first steps mostly move the intercept; here they do not (one
    Newton iteration fewer in most fits of the default data, the same optimum)."""
    log_share = np.log(class_totals / class_totals.sum())
    start = np.zeros((1, 1 if binary else class_totals.size))
    start[0] = log_share[1] - log_share[0] if binary else log_share - log_share.mean()
    return start


def _class_totals(block, classes) -> np.ndarray:
    y, w = np.asarray(block[1]), block[2]
    return np.bincount(np.searchsorted(classes, y), weights=check_sample_weight(w, y.shape[0]), minlength=classes.size)


def _summed_objective(B, blocks, classes, binary, lam):
    """_smooth_objective over rows held in blocks: the blocks' terms summed, then the penalty."""
    loss, grad, H = summed(blocks.map(_block_terms, B, classes))
    grad[1:] += 2 * lam * B[1:]
    H.flat[B.shape[1] * (H.shape[0] + 1) :: H.shape[0] + 1] += 2 * lam
    return loss + lam * np.sum(B[1:] ** 2), grad, lambda: H


class LogisticRegression(ClassifierMixin, BaseEstimator):
    """Penalised maximum-likelihood logistic regression.

    Parameters
    ----------
    lam : float, default 1.0
        Penalty strength lambda in the objective above (0 = plain maximum likelihood; needs non-separable data);
        scikit-learn's C = 1 / (2 lam) for l2.
    penalty : {"l2", "l1"}, default "l2"
        "l2": lam ||w||^2; "l1": lam ||w||_1, sparse coefficients (proximal Newton, binary or multinomial).
    solver : {"auto", "newton", "lbfgs"}, default "auto"
        "newton": exact Hessian, a few iterations (the (p K) x (p K) softmax Hessian for K > 2 classes); "lbfgs": l2
        only; "auto": newton if l1, or binary with at most NEWTON_FEATURES features, else lbfgs (a Newton iteration
        costs O(n p^2 + p^3), an L-BFGS one O(n p): on 64 rows x 2,000 columns a Newton fit took 1.7 s).
    max_iter : int, default 1000
        Maximum number of Newton (or L-BFGS) iterations; a fit that reaches it warns (mllib.base.ConvergenceWarning).
        Newton's method converges in ~10 iterations; L-BFGS at tol 1e-8 may need a few hundred (10 classes, 64
        features: up to ~250).
    tol : float, default 1e-08
        Stop when the largest Newton step (or projected gradient for L-BFGS) is below tol.
    """

    _constraints = {
        "solver": Options(SOLVERS),
        "lam": NON_NEGATIVE,
        "penalty": Options(PENALTIES),
        "max_iter": positive_int(),
        "tol": POSITIVE,
    }

    def __init__(
        self, lam: float = 1.0, penalty: str = "l2", solver: str = "auto", max_iter: int = 1000, tol: float = 1e-8
    ):
        self.lam = lam
        self.penalty = penalty
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        check_hyperparameters(self)
        if self.penalty == "l1" and self.solver == "lbfgs":
            raise ValueError("solver='lbfgs' needs a smooth objective; use solver='newton' or 'auto' with penalty='l1'")
        w = check_sample_weight(sample_weight, X.shape[0])
        encoded = self._encode_targets(y)
        self.n_features_in_ = X.shape[1]
        binary = self.classes_.size == 2
        Y = _score_targets(encoded, self.classes_.size)
        solver = self.solver
        if solver == "auto":
            solver = "newton" if binary and X.shape[1] <= NEWTON_FEATURES else "lbfgs"
        start = np.zeros((X.shape[1] + 1, Y.shape[1]))
        start[:1] = _null_model(np.bincount(encoded, weights=w, minlength=self.classes_.size), binary)
        if self.penalty == "l1":
            B = self._fit_proximal_newton(lambda B, lam: _smooth_objective(B, X, Y, w, binary, lam), start)
        elif solver == "newton":
            B = self._fit_newton(lambda B: _smooth_objective(B, X, Y, w, binary, self.lam), start)
        elif binary:
            B = self._fit_lbfgs_binary(X, Y[:, 0], w)[:, None]
        else:
            B = self._fit_lbfgs_softmax(X, Y, w)
        self.intercept_ = B[0]
        self.coef_ = B[1:].T.copy()
        return self

    def fit_blocks(self, blocks):
        """The same model from rows held in blocks (mllib.base.RowBlocks, or a cluster's: a block is (X, y,
        sample_weight or None)): Newton's method (binary or multinomial; proximal Newton for l1) on the loss,
        gradient and Hessian summed over the blocks, one pass over them per step, so memory holds a block at a time
        and the blocks can sit on other machines. The solution is fit's on the rows put together (to the solver's
        tolerance; fit's multinomial default is L-BFGS)."""
        check_hyperparameters(self)
        if self.solver == "lbfgs":
            raise ValueError("fit_blocks uses Newton's method; set solver='newton' or 'auto'")
        found = blocks.map(_labels_and_width)
        self.n_features_in_ = common_width([width for _, width in found])
        self.classes_ = check_two_classes(np.unique(np.concatenate([labels for labels, _ in found])))
        binary = self.classes_.size == 2
        start = np.zeros((self.n_features_in_ + 1, 1 if binary else self.classes_.size))
        start[:1] = _null_model(np.sum(blocks.map(_class_totals, self.classes_), axis=0), binary)
        if self.penalty == "l1":
            B = self._fit_proximal_newton(
                lambda B, lam: _summed_objective(B, blocks, self.classes_, binary, lam), start
            )
        else:
            B = self._fit_newton(lambda B: _summed_objective(B, blocks, self.classes_, binary, self.lam), start)
        self.intercept_ = B[0]
        self.coef_ = B[1:].T.copy()
        return self

    def _damped_newton(self, objective, direction, B):
        """(Proximal) Newton iterations B <- B + t d: d = direction(beta, grad, H) with its predicted decrease, t halved
        until the objective decreases by at least 1e-4 t of the prediction (Armijo); stop once max |t d| < tol.
        Near the optimum the loss change is below rounding: a few ulps of slack, else the exact Newton step is
        rejected and the fit stops at a halved step with a gradient ~1e7 times larger."""
        loss, grad, hessian = objective(B)
        for n_iter in range(1, self.max_iter + 1):
            d, predicted = direction(B.ravel(), grad.ravel(), hessian())
            t, slack = 1.0, 16 * np.finfo(np.float64).eps * abs(loss)
            while True:
                candidate = B + t * d.reshape(B.shape)
                new = objective(candidate)
                if new[0] <= loss + 1e-4 * t * min(predicted, 0.0) + slack or t < 1e-10:
                    break
                t *= 0.5
            B, (loss, grad, hessian) = candidate, new
            if np.max(np.abs(t * d)) < self.tol:
                break
        else:
            self._not_converged(f"its largest step was {np.max(np.abs(t * d)):.3g}")
        self.n_iter_ = n_iter
        return B

    def _not_converged(self, state: str) -> None:
        warnings.warn(
            f"LogisticRegression(lam={self.lam}) stopped at max_iter={self.max_iter} before tol={self.tol} was met "
            f"({state}); increase max_iter or lam",
            ConvergenceWarning,
            stacklevel=3,
        )

    def _fit_newton(self, objective, start):
        """objective(B) -> (loss, gradient, Hessian on demand) of the l2-penalised NLL; start: _null_model's B."""
        K = start.shape[1]

        def direction(beta, grad, H):
            return _newton_direction(beta, grad, H if K == 1 else _without_softmax_shift(H, K))

        return self._damped_newton(objective, direction, start)

    def _fit_proximal_newton(self, smooth_objective, start):
        """smooth_objective(B, lam) as _fit_newton's objective with penalty lam (called with 0: the l1 term apart)."""
        from ._kernels import l1_quadratic_step  # numba, for the l1 penalty only

        penalised = np.zeros(start.shape, dtype=bool)
        penalised[1:] = True
        penalised = penalised.ravel()

        def direction(beta, grad, H):
            d = l1_quadratic_step(grad, H, beta, penalised, float(self.lam), self.tol / 10, 10_000)
            # the L1 term's change belongs to the predicted decrease
            l1_change = np.abs((beta + d)[penalised]).sum() - np.abs(beta[penalised]).sum()
            return d, grad @ d + self.lam * l1_change

        def objective(B):
            loss, grad, hessian = smooth_objective(B, 0.0)
            return loss + self.lam * np.abs(B[1:]).sum(), grad, hessian

        return self._damped_newton(objective, direction, start)

    def _lbfgs(self, fun, x0, args=()):
        from scipy.optimize import minimize  # ~0.3 s of imports: only fits that run L-BFGS pay for them

        res = minimize(
            fun, x0, args=args, jac=True, method="L-BFGS-B",
            options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": _FTOL},
        )  # fmt: skip
        self.n_iter_ = res.nit
        if not res.success:
            self._not_converged(f"L-BFGS: {res.message}; max |gradient| {np.max(np.abs(res.jac)):.3g}")
        return res.x

    def _fit_lbfgs_binary(self, X, y, w):
        return self._lbfgs(lambda b: _binary_loss(b, X, y, w, self.lam)[:2], np.zeros(X.shape[1] + 1))

    def _fit_lbfgs_softmax(self, X, Y, w):
        x = self._lbfgs(_softmax_loss, np.zeros((X.shape[1] + 1) * Y.shape[1]), args=(X, Y, w, self.lam))
        return x.reshape(X.shape[1] + 1, Y.shape[1])

    def decision_function(self, X):
        """Binary: the log-odds x^T w + b (n,); multiclass: the class scores f(y, x) (n, K)."""
        X = check_fitted_X(self, X)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict_proba(self, X):
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            p = expit(scores)
            return np.column_stack([1 - p, p])
        return softmax(scores, axis=1)
