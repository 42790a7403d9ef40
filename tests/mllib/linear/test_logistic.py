"""LogisticRegression (seed 002 catalogue C3/C4): objective -sum log-lik + lam ||w||^2 with the intercept unpenalised.

Oracles: optimality X^T (p - y) = -2 lam w and sum(p - y) = 0 (so mean(p) = mean(y) for every lam, the intercept
being free); gradient and Hessian match finite differences (binary and softmax); scipy.optimize.minimize on an
independently written objective; scikit-learn with C = 1/(2 lam); multinomial Newton == L-BFGS; two classes with
the reference class fixed are exactly binary logistic regression (C4); integer sample weights = repeated rows;
probabilities and log-odds."""

from functools import partial

import numpy as np
import pytest
from scipy import optimize
from scipy.special import expit, softmax
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from mllib.linear import LogisticRegression
from mllib.linear.logistic import _binary_loss, _smooth_objective, _softmax_hessian, _softmax_loss


def _binary_problem(seed, n=150, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d) + rng.normal(size=d)
    beta = rng.normal(size=d)
    y = (rng.random(n) < expit(0.7 * (X - X.mean(0)) @ beta + 0.4)).astype(int)
    return X, y


def _multiclass_problem(seed, n=150, d=4, k=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    B = rng.normal(size=(d, k))
    y = np.array([rng.choice(k, p=p) for p in softmax(X @ B + rng.normal(size=k), axis=1)])
    return X, y


# Newton stops on its step size and converges quadratically (gradients ~1e-14 measured); L-BFGS stops once the
# loss (~50 here) stops decreasing in float64, i.e. at an excess loss ~1e-14, which leaves gradients of order 1e-6.
GRAD_ATOL = {"newton": 1e-10, "lbfgs": 1e-5}
# agreement of the fitted coefficients with scikit-learn's newton-cholesky (tol 1e-12): Newton's to ~4e-11
# relative (measured), L-BFGS's to ~1e-6; and of the probabilities
SKLEARN_TOL = {"newton": {"rtol": 1e-9, "atol": 1e-12}, "lbfgs": {"rtol": 1e-4, "atol": 1e-8}}
PROBA_ATOL = {"newton": 1e-11, "lbfgs": 1e-7}


def _params(model):
    return np.r_[model.intercept_, model.coef_.ravel()]


def _nll(beta, X, y, w, lam):
    """The objective written independently: -sum w [y log p + (1-y) log(1-p)] + lam ||coef||^2."""
    p = expit(beta[0] + X @ beta[1:])
    return -np.sum(w * (y * np.log(p) + (1 - y) * np.log1p(-p))) + lam * beta[1:] @ beta[1:]


# ---------------------------------------------------------------- optimality identities


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
@pytest.mark.parametrize("lam", [0.1, 1.0, 25.0])
def test_stationarity_penalised_coefficients_and_free_intercept(solver, lam):
    X, y = _binary_problem(0)
    model = LogisticRegression(lam=lam, solver=solver).fit(X, y)
    p = model.predict_proba(X)[:, 1]
    atol = GRAD_ATOL[solver]
    # X^T (p - y) = -2 lam w for the penalised coefficients
    np.testing.assert_allclose(X.T @ (p - y), -2 * lam * model.coef_.ravel(), rtol=0, atol=atol)
    # the intercept is unpenalised: sum(p - y) = 0, hence mean(p) = mean(y) whatever lam is
    assert abs(np.sum(p - y)) < atol
    assert abs(p.mean() - y.mean()) < 1e-8
    # and it really is penalised: the coefficients are not the lam = 0 solution
    free = LogisticRegression(lam=0.0, solver=solver).fit(X, y)
    assert np.linalg.norm(model.coef_) < np.linalg.norm(free.coef_)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_lam_zero_mean_probability_equals_mean_label_and_score_equations_hold(solver):
    X, y = _binary_problem(1)
    model = LogisticRegression(lam=0.0, solver=solver).fit(X, y)
    p = model.predict_proba(X)[:, 1]
    assert abs(p.mean() - y.mean()) < 1e-9
    np.testing.assert_allclose(X.T @ (p - y), 0.0, atol=GRAD_ATOL[solver])


def test_weighted_stationarity():
    X, y = _binary_problem(2)
    w = np.random.default_rng(0).uniform(0.2, 3.0, size=y.size)
    lam = 0.7
    model = LogisticRegression(lam=lam).fit(X, y, sample_weight=w)
    p = model.predict_proba(X)[:, 1]
    np.testing.assert_allclose(X.T @ (w * (p - y)), -2 * lam * model.coef_.ravel(), atol=GRAD_ATOL["newton"])
    assert abs(w @ (p - y)) < GRAD_ATOL["newton"]


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
@pytest.mark.parametrize("lam", [0.0, 0.5])
def test_multinomial_stationarity(solver, lam):
    X, y = _multiclass_problem(3)
    model = LogisticRegression(lam=lam, solver=solver, tol=1e-10, max_iter=1000).fit(X, y)
    P = model.predict_proba(X)
    Y = np.eye(3)[y]
    atol = GRAD_ATOL[solver]
    np.testing.assert_allclose(X.T @ (P - Y), -2 * lam * model.coef_.T, atol=atol)
    np.testing.assert_allclose((P - Y).sum(axis=0), 0.0, atol=atol)  # free intercepts: class frequencies match
    np.testing.assert_allclose(P.mean(axis=0), Y.mean(axis=0), atol=atol / 100)
    if lam > 0:  # penalised class vectors sum to zero (softmax shift invariance + ridge); the gradient's class
        # sums vanish, so both solvers keep it to rounding
        np.testing.assert_allclose(model.coef_.sum(axis=0), 0.0, atol=1e-12)


# ---------------------------------------------------------------- finite differences


def test_binary_gradient_and_hessian_match_finite_differences():
    X, y = _binary_problem(4, n=40, d=3)
    X1 = np.hstack([np.ones((40, 1)), X])
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=40)
    lam = 0.8
    beta = np.array([0.3, -0.5, 0.2, 0.1])
    loss, grad, p = _binary_loss(beta, X, y.astype(float), w, lam)
    assert loss == pytest.approx(_nll(beta, X, y, w, lam), rel=1e-13)
    h = 1e-6
    fd_grad = np.array(
        [(_nll(beta + h * e, X, y, w, lam) - _nll(beta - h * e, X, y, w, lam)) / (2 * h) for e in np.eye(4)]
    )
    np.testing.assert_allclose(grad, fd_grad, rtol=1e-6, atol=1e-6)
    # Hessian X^T W X + 2 lam I (intercept unpenalised) vs finite differences of the gradient
    ridge = np.diag([0.0] + [2 * lam] * 3)
    H = X1.T @ ((w * p * (1 - p))[:, None] * X1) + ridge
    fd_H = np.column_stack(
        [
            (
                _binary_loss(beta + h * e, X, y.astype(float), w, lam)[1]
                - _binary_loss(beta - h * e, X, y.astype(float), w, lam)[1]
            )
            / (2 * h)
            for e in np.eye(4)
        ]
    )
    np.testing.assert_allclose(H, fd_H, rtol=1e-6, atol=1e-6)


def _softmax_point(seed, n):
    """A 3-class problem with intercept column, one-hot targets, weights and a random B (3 x 3, flattened)."""
    X, y = _multiclass_problem(seed, n=n, d=2)
    rng = np.random.default_rng(seed + 100)
    return np.hstack([np.ones((n, 1)), X]), np.eye(3)[y], rng.uniform(0.5, 2.0, size=n), rng.normal(size=9)


def test_softmax_gradient_matches_finite_differences():
    X1, Y, w, flat = _softmax_point(5, 30)
    X = X1[:, 1:]  # the functions take the rows without their column of ones
    lam = 0.6

    def objective(f):
        B = f.reshape(3, 3)
        Z = X1 @ B
        logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
        return -np.sum(w[:, None] * Y * logp) + lam * np.sum(B[1:] ** 2)

    loss, grad = _softmax_loss(flat, X, Y, w, lam)
    assert loss == pytest.approx(objective(flat), rel=1e-13)
    h = 1e-6
    fd = np.array([(objective(flat + h * e) - objective(flat - h * e)) / (2 * h) for e in np.eye(9)])
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)


def test_softmax_hessian_matches_finite_differences_and_is_singular_along_shifts():
    X1, Y, w, flat = _softmax_point(18, 40)
    X = X1[:, 1:]
    lam = 0.6
    B = flat.reshape(3, 3)
    # blocks X^T W_cd X + 2 [c = d] lam I (catalogue C4), the intercept row unpenalised
    H = _softmax_hessian(X, softmax(X1 @ B, axis=1), w) + np.diag(np.r_[np.zeros(3), np.full(6, 2 * lam)])
    h = 1e-6
    fd = np.column_stack(
        [
            (_softmax_loss(flat + h * e, X, Y, w, lam)[1] - _softmax_loss(flat - h * e, X, Y, w, lam)[1]) / (2 * h)
            for e in np.eye(9)
        ]
    )
    np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-6)
    # shifting every class by the same vector v leaves p unchanged: the NLL part of H annihilates v 1^T
    nll_H = _softmax_hessian(X, softmax(X1 @ B, axis=1), w)
    shift = np.outer(np.array([0.3, -1.2, 0.7]), np.ones(3)).ravel()
    np.testing.assert_allclose(nll_H @ shift, 0.0, atol=1e-12 * np.abs(nll_H).max())


@pytest.mark.parametrize("lam", [0.0, 0.3, 5.0])
def test_multinomial_newton_and_lbfgs_reach_the_same_optimum(lam):
    X, y = _multiclass_problem(19, n=200, d=4, k=4)
    newton = LogisticRegression(lam=lam, solver="newton").fit(X, y)
    lbfgs = LogisticRegression(lam=lam, solver="lbfgs", tol=1e-11, max_iter=1000).fit(X, y)
    assert newton.n_iter_ <= 10
    # L-BFGS stops once the loss stops decreasing in float64, ~1e-7 from the optimum on these O(1) coefficients
    np.testing.assert_allclose(newton.coef_, lbfgs.coef_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(newton.intercept_, lbfgs.intercept_, rtol=0, atol=1e-6)
    # the Newton steps never move along the softmax shift: the free intercepts stay centred
    assert abs(newton.intercept_.sum()) < 1e-12 * np.abs(newton.intercept_).max() * 4


def test_two_classes_softmax_with_a_reference_class_is_binary_logistic():
    """Catalogue C4: with M = 2 and f(0, x) = 0 (reference class) the softmax model is exactly binary logistic
    regression. Without a reference class the fitted classes are symmetric, (b_1, w_1) = -(b_0, w_0), so the
    penalty lam (||w_0||^2 + ||w_1||^2) = lam / 2 ||w_1 - w_0||^2: softmax with 2 lam == binary with lam."""
    X, y = _binary_problem(20)
    X1 = np.hstack([np.ones((y.size, 1)), X])
    w = np.random.default_rng(8).uniform(0.5, 2.0, size=y.size)
    lam = 0.4
    beta = np.random.default_rng(9).normal(size=X1.shape[1])
    binary_loss, binary_grad, _ = _binary_loss(beta, X, y.astype(float), w, lam)
    reference = np.column_stack([np.zeros_like(beta), beta])
    loss, grad = _softmax_loss(reference.ravel(), X, np.eye(2)[y], w, lam)
    assert loss == pytest.approx(binary_loss, rel=1e-13)
    np.testing.assert_allclose(grad.reshape(-1, 2)[:, 1], binary_grad, rtol=1e-12, atol=1e-12)
    # the fitted softmax model (multinomial Newton forced on two classes) against the binary fit
    binary = LogisticRegression(lam=lam, solver="newton").fit(X, y, sample_weight=w)
    softmax_objective = partial(_smooth_objective, X=X, Y=np.eye(2)[y], w=w, binary=False, lam=2 * lam)
    B = LogisticRegression(lam=2 * lam, solver="newton")._fit_newton(softmax_objective, np.zeros((X1.shape[1], 2)))
    np.testing.assert_allclose(B[:, 0], -B[:, 1], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(B[1:, 1] - B[1:, 0], binary.coef_[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(B[0, 1] - B[0, 0], binary.intercept_[0], rtol=1e-9, atol=1e-12)


def test_newton_converges_in_a_few_iterations():
    X, y = _binary_problem(6)
    model = LogisticRegression(lam=1.0, solver="newton").fit(X, y)
    assert model.n_iter_ <= 10


# ---------------------------------------------------------------- independent optimisers


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
@pytest.mark.parametrize("seed", [7, 8])
def test_agrees_with_scipy_minimize_on_the_same_objective(solver, seed):
    X, y = _binary_problem(seed)
    lam = 0.5
    w = np.ones(y.size)
    ref = optimize.minimize(
        _nll, np.zeros(X.shape[1] + 1), args=(X, y, w, lam), method="BFGS", options={"gtol": 1e-9, "maxiter": 10_000}
    )
    model = LogisticRegression(lam=lam, solver=solver).fit(X, y)
    np.testing.assert_allclose(_params(model), ref.x, rtol=1e-4, atol=1e-6)
    assert _nll(_params(model), X, y, w, lam) <= ref.fun + 1e-9


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
@pytest.mark.parametrize("lam", [0.01, 1.0, 10.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_agrees_with_sklearn(solver, lam, seed):
    X, y = _binary_problem(seed, n=200, d=5)
    ref = SkLogisticRegression(C=1 / (2 * lam), solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(X, y)
    model = LogisticRegression(lam=lam, solver=solver).fit(X, y)
    np.testing.assert_allclose(model.coef_, ref.coef_, **SKLEARN_TOL[solver])
    np.testing.assert_allclose(model.intercept_, ref.intercept_, **SKLEARN_TOL[solver])
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=PROBA_ATOL[solver])
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
@pytest.mark.parametrize("lam", [0.1, 1.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_multinomial_agrees_with_sklearn(solver, lam, seed):
    X, y = _multiclass_problem(seed, n=200, d=4, k=3)
    labels = np.array(["ant", "bee", "cat"])[y]
    ref = SkLogisticRegression(C=1 / (2 * lam), solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(X, labels)
    model = LogisticRegression(lam=lam, solver=solver).fit(X, labels)
    np.testing.assert_array_equal(model.classes_, ref.classes_)
    np.testing.assert_allclose(model.coef_, ref.coef_, **SKLEARN_TOL[solver])
    # softmax intercepts are identified only up to a common shift: compare them centred
    np.testing.assert_allclose(
        model.intercept_ - model.intercept_.mean(), ref.intercept_ - ref.intercept_.mean(), **SKLEARN_TOL[solver]
    )
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=PROBA_ATOL[solver])
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


def test_newton_and_lbfgs_reach_the_same_optimum():
    X, y = _binary_problem(9)
    a = LogisticRegression(lam=0.3, solver="newton").fit(X, y)
    b = LogisticRegression(lam=0.3, solver="lbfgs").fit(X, y)
    np.testing.assert_allclose(_params(a), _params(b), rtol=1e-6, atol=1e-9)


# ---------------------------------------------------------------- sample weights


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_integer_sample_weights_equal_repeating_rows(solver):
    X, y = _binary_problem(10, n=60)
    w = np.random.default_rng(4).integers(0, 4, size=60)
    weighted = LogisticRegression(lam=0.4, solver=solver).fit(X, y, sample_weight=w)
    repeated = LogisticRegression(lam=0.4, solver=solver).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(_params(weighted), _params(repeated), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_integer_sample_weights_equal_repeating_rows_multinomial(solver):
    X, y = _multiclass_problem(11, n=60)
    w = np.random.default_rng(5).integers(0, 4, size=60)
    weighted = LogisticRegression(lam=0.4, solver=solver).fit(X, y, sample_weight=w)
    repeated = LogisticRegression(lam=0.4, solver=solver).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    # the same objective up to rounding, so both solvers take the same path (measured: equal to ~1e-15)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-10, atol=1e-12)


def test_unit_weights_equal_no_weights():
    X, y = _binary_problem(12)
    a = LogisticRegression().fit(X, y)
    b = LogisticRegression().fit(X, y, sample_weight=np.ones(y.size))
    np.testing.assert_array_equal(_params(a), _params(b))


# ---------------------------------------------------------------- outputs


def test_binary_outputs_probabilities_log_odds_and_labels():
    X, y = _binary_problem(13)
    labels = np.where(y == 1, "yes", "no")
    model = LogisticRegression(lam=0.5).fit(X, labels)
    assert model.classes_.tolist() == ["no", "yes"]
    assert model.coef_.shape == (1, X.shape[1]) and model.intercept_.shape == (1,)
    P = model.predict_proba(X)
    assert P.shape == (X.shape[0], 2)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert ((P >= 0) & (P <= 1)).all()
    z = model.decision_function(X)
    assert z.shape == (X.shape[0],)
    np.testing.assert_allclose(z, X @ model.coef_.ravel() + model.intercept_[0], rtol=1e-14)
    np.testing.assert_allclose(z, np.log(P[:, 1] / P[:, 0]), rtol=1e-9, atol=1e-12)  # the log-odds
    np.testing.assert_array_equal(model.predict(X), np.where(z > 0, "yes", "no"))


def test_multiclass_outputs():
    X, y = _multiclass_problem(14)
    model = LogisticRegression(lam=0.5).fit(X, y + 10)
    P = model.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-14)
    S = model.decision_function(X)
    assert S.shape == (X.shape[0], 3)
    np.testing.assert_allclose(P, softmax(S, axis=1), rtol=1e-14)
    np.testing.assert_array_equal(model.predict(X), 10 + np.argmax(S, axis=1))


def test_extreme_inputs_give_finite_probabilities_without_warnings():
    X, y = _binary_problem(15)
    model = LogisticRegression(lam=1.0).fit(X, y)
    P = model.predict_proba(X * 1e6)
    assert np.isfinite(P).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_errors():
    X, y = _binary_problem(16, n=20)
    with pytest.raises(ValueError, match="solver must be one of"):
        LogisticRegression(solver="sag").fit(X, y)
    with pytest.raises(ValueError, match="lam must be a number >= 0"):
        LogisticRegression(lam=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="lam must be a number >= 0"):
        LogisticRegression(lam=np.nan).fit(X, y)
    with pytest.raises(ValueError, match="single class"):
        LogisticRegression().fit(X, np.ones(20))


# ---- a fit that stops at its cap says so -------------------------------------------------------------------


def _digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0), y


@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
def test_stopping_at_max_iter_warns_with_the_state_reached(solver):
    from mllib.base import ConvergenceWarning

    X, y = _digits()
    with pytest.warns(ConvergenceWarning, match=r"stopped at max_iter=3 before tol=1e-08"):
        LogisticRegression(lam=0.1, solver=solver, max_iter=3).fit(X, y)


def test_the_default_multinomial_fit_converges_on_ten_classes():
    """The corpus's digits (10 classes, 64 columns): L-BFGS needs ~240 iterations at tol 1e-8 for lam = 0.1; the
    default cap (1000) lets it finish, and the optimum it reaches satisfies the stationarity conditions."""
    import warnings

    from mllib.base import ConvergenceWarning

    X, y = _digits()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = LogisticRegression(lam=0.1).fit(X, y)
    assert 100 < model.n_iter_ < 1000
    P = model.predict_proba(X)
    gradient = (P - np.eye(10)[y]).T @ X + 2 * 0.1 * model.coef_  # d/dW of the penalised NLL, per class
    assert np.abs(gradient).max() < 1e-5


@pytest.mark.parametrize("n_classes", [2, 3])
def test_newton_starts_at_the_intercept_only_fit(n_classes):
    """With a feature that carries nothing (all zeros) the optimum is the intercept-only fit: log-odds of the weighted
    class shares (softmax: log shares, centred), so Newton's first step is already below tol."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, n_classes, size=300)
    w = rng.uniform(0.5, 2.0, size=300)
    model = LogisticRegression(lam=1.0, solver="newton").fit(np.zeros((300, 1)), y, sample_weight=w)
    share = np.bincount(y, weights=w) / w.sum()
    expected = [np.log(share[1] / share[0])] if n_classes == 2 else np.log(share) - np.log(share).mean()
    assert model.n_iter_ == 1
    np.testing.assert_allclose(model.intercept_, expected, rtol=0, atol=1e-12)
