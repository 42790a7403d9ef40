"""OLS, ridge and lasso (seed 002 catalogue R1, R4, R6; seed 000 L1-L2; seed 004 7.11).

Oracles: normal equations X^T r = 0 and exact recovery of noise-free data; scikit-learn's LinearRegression,
Ridge(alpha=lam) and Lasso(alpha) coefficients (within 1e-6 relative, with and without sample weights);
ridge(lam=0) == OLS; orthonormal design: ridge = OLS / (1 + lam), lasso = soft-thresholding at n alpha;
df(lam) = trace of the hat matrix, df(0) = rank, decreasing in lam; the catalogue's 1-D example
(X = [1, 2, 3], y = X: OLS 1, ridge with penalty 3 -> 14/17); lasso KKT conditions and alpha_max;
integer weights = repeated rows."""

import numpy as np
import pytest
from sklearn import linear_model as skl

from mllib.regression import Lasso, LinearRegression, Ridge


def _problem(seed=0, n=120, d=6, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d) + rng.normal(size=d) * 3
    beta = rng.normal(size=d)
    y = X @ beta + 2.0 + noise * rng.normal(size=n)
    return X, y, rng.uniform(0.2, 3.0, size=n)


def _assert_rel(a, b, rtol):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.max(np.abs(b)))


# ---------------------------------------------------------------- OLS


def test_ols_normal_equations_and_exact_recovery():
    X, y, _ = _problem()
    model = LinearRegression().fit(X, y)
    r = y - model.predict(X)
    X1 = np.column_stack([np.ones(len(X)), X])
    np.testing.assert_allclose(X1.T @ r, 0.0, atol=1e-9 * np.abs(X1.T @ y).max())
    beta = np.arange(1.0, 7.0)
    exact = LinearRegression().fit(X, X @ beta - 4.0)
    np.testing.assert_allclose(exact.coef_, beta, rtol=1e-11)
    assert exact.intercept_ == pytest.approx(-4.0, abs=1e-9)
    assert exact.rank_ == 6


@pytest.mark.parametrize("weighted", [False, True])
def test_ols_matches_sklearn(weighted):
    X, y, w = _problem(1)
    sw = w if weighted else None
    ours, ref = LinearRegression().fit(X, y, sw), skl.LinearRegression().fit(X, y, sample_weight=sw)
    _assert_rel(ours.coef_, ref.coef_, 1e-6)
    assert ours.intercept_ == pytest.approx(ref.intercept_, rel=1e-6)


def test_ols_collinear_columns_give_the_minimum_norm_solution():
    X, y, _ = _problem(2)
    Xd = np.column_stack([X, X[:, 0] + X[:, 1]])
    model = LinearRegression().fit(Xd, y)
    Xc, yc = Xd - Xd.mean(0), y - y.mean()
    np.testing.assert_allclose(model.coef_, np.linalg.pinv(Xc) @ yc, rtol=1e-8)
    assert model.rank_ == 6


def test_integer_weights_equal_repeated_rows():
    X, y, _ = _problem(3)
    counts = np.random.default_rng(0).integers(1, 4, size=len(y))
    rep = np.repeat(np.arange(len(y)), counts)
    for model in (LinearRegression(), Ridge(lam=3.0), Lasso(alpha=0.05, tol=1e-12, max_iter=100_000)):
        a = type(model)(**model.get_params()).fit(X, y, sample_weight=counts.astype(float))
        b = type(model)(**model.get_params()).fit(X[rep], y[rep])
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-8, atol=1e-10)
        assert a.intercept_ == pytest.approx(b.intercept_, rel=1e-8)


# ---------------------------------------------------------------- ridge


@pytest.mark.parametrize("solver", ["cholesky", "svd", "auto"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("lam", [0.01, 1.0, 100.0])
def test_ridge_matches_sklearn(solver, weighted, lam):
    X, y, w = _problem(4)
    sw = w if weighted else None
    ours = Ridge(lam=lam, solver=solver).fit(X, y, sw)
    ref = skl.Ridge(alpha=lam, solver="svd").fit(X, y, sample_weight=sw)
    _assert_rel(ours.coef_, ref.coef_, 1e-6)
    assert ours.intercept_ == pytest.approx(ref.intercept_, rel=1e-6)


@pytest.mark.parametrize("solver", ["cholesky", "svd"])
def test_ridge_lam_zero_is_ols(solver):
    X, y, w = _problem(5)
    ols = LinearRegression().fit(X, y, w)
    ridge = Ridge(lam=0.0, solver=solver).fit(X, y, w)
    np.testing.assert_allclose(ridge.coef_, ols.coef_, rtol=1e-9)
    assert ridge.intercept_ == pytest.approx(ols.intercept_, rel=1e-9)
    assert ridge.effective_degrees_of_freedom_ == pytest.approx(6.0)


def test_ridge_auto_at_lam_zero_handles_collinear_columns():
    X, y, _ = _problem(6)
    Xd = np.column_stack([X, 2 * X[:, 0]])
    ridge = Ridge(lam=0.0).fit(Xd, y)
    np.testing.assert_allclose(ridge.coef_, LinearRegression().fit(Xd, y).coef_, rtol=1e-7, atol=1e-9)
    assert ridge.effective_degrees_of_freedom_ == pytest.approx(6.0)


def test_ridge_intercept_is_not_penalised_and_orthonormal_design_shrinks_by_one_plus_lam():
    # constant y is predicted exactly whatever lam is (only the slopes are shrunk)
    X, _, _ = _problem(7)
    assert np.allclose(Ridge(lam=1e6).fit(X, np.full(len(X), 5.0)).predict(X), 5.0)
    # orthonormal centred columns: beta_ridge = beta_ols / (1 + lam)
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.normal(size=(50, 4)) - 0.0)
    Q = np.linalg.qr(Q - Q.mean(0))[0]
    y = rng.normal(size=50)
    ols = LinearRegression().fit(Q, y).coef_
    for lam in (0.5, 3.0):
        np.testing.assert_allclose(Ridge(lam=lam).fit(Q, y).coef_, ols / (1 + lam), rtol=1e-10)


def test_ridge_catalogue_example_and_coefficient_norm_decreases():
    # seed 001-003-004 catalogue 7.11: X = [1, 2, 3], y = X, no intercept; eq. 12 with n = 3, lam = 1 is
    # (X^T X + n lam)^{-1} X^T y = 14 / 17. Through the origin = our ridge on [X; -X] (means exactly 0), penalty 2 n
    # lam.
    X = np.array([[1.0], [2.0], [3.0], [-1.0], [-2.0], [-3.0]])
    y = X[:, 0]
    assert Ridge(lam=0.0).fit(X, y).coef_[0] == pytest.approx(1.0)
    assert Ridge(lam=2 * 3.0).fit(X, y).coef_[0] == pytest.approx(14 / 17, rel=1e-12)
    Xp, yp, _ = _problem(8)
    norms = [np.linalg.norm(Ridge(lam=lam).fit(Xp, yp).coef_) for lam in (0.0, 0.1, 1.0, 10.0, 100.0)]
    assert all(np.diff(norms) < 0)


def test_effective_degrees_of_freedom_is_the_trace_of_the_hat_matrix():
    X, y, _ = _problem(9)
    Xc = X - X.mean(0)
    values = []
    for lam in (0.0, 0.3, 5.0, 80.0, 1e8):
        for solver in ("cholesky", "svd"):
            df = Ridge(lam=lam, solver=solver).fit(X, y).effective_degrees_of_freedom_
            hat = Xc @ np.linalg.solve(Xc.T @ Xc + lam * np.eye(6), Xc.T)
            assert df == pytest.approx(np.trace(hat), rel=1e-9)
        values.append(df)
    assert values[0] == pytest.approx(6.0) and all(np.diff(values) < 0) and values[-1] < 1e-4
    # df(0) is the rank, not the number of columns
    assert Ridge(lam=0.0).fit(np.column_stack([X, X[:, :2]]), y).effective_degrees_of_freedom_ == pytest.approx(6.0)


# ---------------------------------------------------------------- lasso


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("alpha", [0.01, 0.3, 2.0])
def test_lasso_matches_sklearn(weighted, alpha):
    X, y, w = _problem(10)
    sw = w if weighted else None
    ours = Lasso(alpha=alpha, tol=1e-14, max_iter=100_000).fit(X, y, sw)
    ref = skl.Lasso(alpha=alpha, tol=1e-14, max_iter=100_000).fit(X, y, sample_weight=sw)
    _assert_rel(ours.coef_, ref.coef_, 1e-6)
    assert ours.intercept_ == pytest.approx(ref.intercept_, rel=1e-6)
    assert np.array_equal(ours.coef_ == 0, ref.coef_ == 0)


def test_lasso_kkt_conditions_and_duality_gap():
    X, y, _ = _problem(11)
    n, alpha = len(y), 0.4
    model = Lasso(alpha=alpha, tol=1e-14, max_iter=100_000).fit(X, y)
    assert (model.coef_ == 0).any() and (model.coef_ != 0).any()
    grad = (X - X.mean(0)).T @ (y - model.predict(X)) / n  # x_j^T r / n
    active = model.coef_ != 0
    np.testing.assert_allclose(grad[active], alpha * np.sign(model.coef_[active]), rtol=1e-7)
    assert (np.abs(grad[~active]) <= alpha * (1 + 1e-9)).all()
    assert 0 <= model.dual_gap_ < 1e-10


def test_lasso_orthonormal_design_is_soft_thresholding():
    rng = np.random.default_rng(1)
    Q = np.linalg.qr(rng.normal(size=(40, 5)) - 0.0)[0]
    Q = np.linalg.qr(Q - Q.mean(0))[0]
    y = Q @ np.array([3.0, -2.0, 0.5, 0.1, -0.05]) + 0.01 * rng.normal(size=40)
    n, alpha = 40, 0.01
    b = Q.T @ (y - y.mean())
    model = Lasso(alpha=alpha, tol=1e-14, max_iter=10_000).fit(Q, y)
    np.testing.assert_allclose(model.coef_, np.sign(b) * np.maximum(np.abs(b) - n * alpha, 0), atol=1e-12)


def test_lasso_alpha_max_zeroes_everything_and_sparsity_grows_with_alpha():
    X, y, _ = _problem(12)
    alpha_max = np.max(np.abs((X - X.mean(0)).T @ (y - y.mean()))) / len(y)
    zero = Lasso(alpha=alpha_max * 1.0001).fit(X, y)
    assert (zero.coef_ == 0).all() and zero.intercept_ == pytest.approx(y.mean())
    assert (Lasso(alpha=alpha_max * 0.99).fit(X, y).coef_ != 0).sum() >= 1
    nonzeros = [
        (Lasso(alpha=a, tol=1e-10).fit(X, y).coef_ != 0).sum() for a in alpha_max * np.array([0.001, 0.1, 0.5, 0.9])
    ]
    assert nonzeros == sorted(nonzeros, reverse=True) and nonzeros[0] == 6


def test_lasso_alpha_zero_is_ols():
    X, y, _ = _problem(13)
    np.testing.assert_allclose(
        Lasso(alpha=0.0, tol=1e-14, max_iter=100_000).fit(X, y).coef_, LinearRegression().fit(X, y).coef_, rtol=1e-7
    )


@pytest.mark.parametrize(
    "cls, kwargs, match",
    [
        (Ridge, {"lam": -1.0}, "lam must be a number >= 0"),
        (Ridge, {"solver": "qr"}, "solver must be one of"),
        (Lasso, {"alpha": -0.1}, "alpha must be a number >= 0"),
        (Lasso, {"max_iter": 0}, "max_iter must be an integer >= 1"),
    ],
)
def test_bad_hyperparameters(cls, kwargs, match):
    X, y, _ = _problem()
    with pytest.raises(ValueError, match=match):
        cls(**kwargs).fit(X, y)


def test_ridge_cholesky_solver_refuses_a_singular_system():
    X, y, _ = _problem()
    with pytest.raises(ValueError, match="singular"):
        Ridge(lam=0.0, solver="cholesky").fit(np.column_stack([X, X[:, 0]]), y)
