"""Bayesian linear regression (seed 002 catalogue G1, seed 000 L4) and PLS regression (seed 002 catalogue P4).

Bayesian oracles: posterior mean == ridge with lam = alpha / beta (also weighted); posterior covariance and
predictive variance == the textbook formulas written independently on the augmented design [1, x] with a zero
prior precision on the intercept; predictive std >= noise std and grows away from the data; Monte Carlo from the
posterior reproduces the predictive mean / variance.
PLS oracles: scikit-learn PLSRegression(scale=False) predictions within 1e-8 (1-D and several targets at tight
tolerance); scores mutually orthogonal; p = rank gives the OLS fit; p = 1 direction proportional to X^T y
(z_1 proportional to X X^T y); transform of the training rows == the scores; early stop after one component when
y lies along one eigen-direction of Xc^T Xc; integer sample weights == repeated rows (also several targets)."""

import numpy as np
import pytest
from sklearn.cross_decomposition import PLSRegression as SkPLS

from mllib.regression import BayesianLinearRegression, LinearRegression, PLSRegression, Ridge


def _problem(seed=0, n=80, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=d) + rng.normal(size=d)
    y = X @ rng.normal(size=d) + 1.5 + 0.3 * rng.normal(size=n)
    return X, y


# ---------------------------------------------------------------- Bayesian linear regression


@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (0.5, 20.0), (30.0, 0.1)])
def test_posterior_mean_is_ridge_with_lam_alpha_over_beta(alpha, beta):
    X, y = _problem(0)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    for sw in (None, w):
        blr = BayesianLinearRegression(alpha=alpha, beta=beta).fit(X, y, sw)
        ridge = Ridge(lam=alpha / beta).fit(X, y, sw)
        np.testing.assert_allclose(blr.coef_, ridge.coef_, rtol=1e-10)
        assert blr.intercept_ == pytest.approx(ridge.intercept_, rel=1e-10)


def test_posterior_covariance_and_predictive_variance_match_the_augmented_formulas():
    X, y = _problem(2)
    alpha, beta = 2.0, 4.0
    blr = BayesianLinearRegression(alpha=alpha, beta=beta).fit(X, y)
    X1 = np.column_stack([np.ones(len(X)), X])
    A = beta * X1.T @ X1 + np.diag([0.0] + [alpha] * X.shape[1])  # flat prior on the intercept
    cov = np.linalg.inv(A)
    mean = beta * cov @ X1.T @ y
    np.testing.assert_allclose(np.r_[blr.intercept_, blr.coef_], mean, rtol=1e-9)
    np.testing.assert_allclose(blr.coef_cov_, cov[1:, 1:], rtol=1e-9)
    X_new = np.random.default_rng(3).normal(size=(7, X.shape[1])) * 3
    X1_new = np.column_stack([np.ones(7), X_new])
    pred, std = blr.predict(X_new, return_std=True)
    np.testing.assert_allclose(pred, X1_new @ mean, rtol=1e-9)
    np.testing.assert_allclose(std**2, np.einsum("ij,jk,ik->i", X1_new, cov, X1_new) + 1 / beta, rtol=1e-9)
    np.testing.assert_array_equal(blr.predict(X_new), pred)


def test_predictive_std_is_at_least_the_noise_and_grows_away_from_the_data():
    X, y = _problem(4)
    beta = 9.0
    blr = BayesianLinearRegression(alpha=1.0, beta=beta).fit(X, y)
    direction = np.random.default_rng(0).normal(size=X.shape[1])
    path = X.mean(0) + np.outer(np.linspace(0, 20, 15), direction)
    _, std = blr.predict(path, return_std=True)
    assert (std >= 1 / np.sqrt(beta)).all() and (np.diff(std) > 0).all()


def test_monte_carlo_from_the_posterior_reproduces_the_predictive():
    X, y = _problem(5, n=30, d=2)
    blr = BayesianLinearRegression(alpha=1.0, beta=2.0).fit(X, y)
    rng = np.random.default_rng(0)
    m = 200_000
    slopes = rng.multivariate_normal(blr.coef_, blr.coef_cov_, size=m)
    # f(x) = c + (x - xbar)^T w with c ~ N(ybar, intercept_var_) independent of the slopes w
    c = y.mean() + rng.normal(scale=np.sqrt(blr.intercept_var_), size=m)
    x_new = np.array([2.0, -1.0])
    f = c + (x_new - X.mean(0)) @ slopes.T
    y_star = f + rng.normal(scale=np.sqrt(1 / 2.0), size=m)
    pred, std = blr.predict(x_new[None], return_std=True)
    assert y_star.mean() == pytest.approx(pred[0], abs=5 * std[0] / np.sqrt(m))
    assert y_star.std() == pytest.approx(std[0], rel=0.01)


@pytest.mark.parametrize("kwargs", [{"alpha": 0.0}, {"beta": -1.0}])
def test_bayesian_precisions_must_be_positive(kwargs):
    X, y = _problem()
    with pytest.raises(ValueError, match="must be a positive number"):
        BayesianLinearRegression(**kwargs).fit(X, y)


# ---------------------------------------------------------------- PLS


@pytest.mark.parametrize("n_components", [1, 2, 4, 6])
def test_pls_predictions_match_sklearn(n_components):
    X, y = _problem(6, n=60, d=6)
    ours = PLSRegression(n_components).fit(X, y)
    ref = SkPLS(n_components, scale=False).fit(X, y)
    X_new = np.random.default_rng(0).normal(size=(20, 6)) * 2
    for Z in (X, X_new):
        pred = ours.predict(Z)
        assert pred.shape == (len(Z),) and pred.dtype == np.float64
        np.testing.assert_allclose(pred, ref.predict(Z).ravel(), rtol=1e-8, atol=1e-8 * np.abs(y).max())
        # scores agree up to the sign of each component
        np.testing.assert_allclose(np.abs(ours.transform(Z)), np.abs(ref.transform(Z)), rtol=1e-7, atol=1e-9)


def test_pls_multiple_targets_match_sklearn_at_tight_tolerance():
    X, y = _problem(7, n=60, d=6)
    Y = np.column_stack([y, X[:, 0] ** 2, -y + X[:, 3]])
    ours = PLSRegression(3, tol=1e-24, max_iter=5000).fit(X, Y)
    ref = SkPLS(3, scale=False, tol=1e-24, max_iter=5000).fit(X, Y)
    assert ours.predict(X).shape == Y.shape
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-8, atol=1e-8 * np.abs(Y).max())


def test_pls_scores_are_orthogonal_and_full_rank_pls_is_ols():
    X, y = _problem(8, n=50, d=5)
    full = PLSRegression(5).fit(X, y)
    T = full.transform(X)
    gram = T.T @ T
    np.testing.assert_allclose(gram - np.diag(np.diag(gram)), 0.0, atol=1e-9 * np.abs(gram).max())
    np.testing.assert_allclose(full.predict(X), LinearRegression().fit(X, y).predict(X), rtol=1e-10)
    # one component: weights proportional to Xc^T yc, so z_1 = Xc w is proportional to Xc Xc^T y (seed 002, line 1261)
    one = PLSRegression(1).fit(X, y)
    Xc = X - X.mean(0)
    direction = Xc.T @ (y - y.mean())
    np.testing.assert_allclose(one.x_weights_[:, 0], direction / np.linalg.norm(direction), rtol=1e-12)


def test_pls_stops_after_one_component_when_y_is_one_informative_direction():
    X, _ = _problem(9, n=40, d=5)
    Xc = X - X.mean(axis=0)
    v = np.linalg.svd(Xc, full_matrices=False)[2][0]  # an eigenvector of Xc^T Xc
    y = 2.0 * Xc @ v - 1.0
    # w_1 is proportional to Xc^T yc = 2 s_1^2 v, so z_1 = Xc w_1 explains y exactly and X^T y deflates to zero
    model = PLSRegression(5).fit(X, y)
    assert model.n_components_ == 1
    np.testing.assert_allclose(np.abs(model.x_weights_[:, 0]), np.abs(v), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.predict(X), y, atol=1e-10)
    assert model.transform(X).shape == (40, 1)
    assert model.get_feature_names_out() == ["pls0"]


@pytest.mark.parametrize("targets", [1, 3])
def test_pls_integer_sample_weights_equal_repeated_rows(targets):
    X, y = _problem(10, n=50, d=6)
    Y = y if targets == 1 else np.column_stack([y, X[:, 0] ** 2, X[:, 2] - y])
    counts = np.random.default_rng(11).integers(0, 4, size=50)
    Z = np.random.default_rng(12).normal(size=(7, 6))
    weighted = PLSRegression(3, tol=1e-20, max_iter=5000).fit(X, Y, sample_weight=counts)
    repeated = PLSRegression(3, tol=1e-20, max_iter=5000).fit(
        np.repeat(X, counts, axis=0), np.repeat(Y, counts, axis=0)
    )
    np.testing.assert_allclose(weighted.predict(Z), repeated.predict(Z), rtol=1e-9, atol=1e-9 * np.abs(Y).max())
    np.testing.assert_allclose(weighted.x_mean_, repeated.x_mean_, rtol=1e-12)
    np.testing.assert_allclose(weighted.transform(Z), repeated.transform(Z), rtol=1e-9, atol=1e-9)
    # and the weights matter: unit weights give another fit
    assert not np.allclose(PLSRegression(3).fit(X, Y).predict(Z), weighted.predict(Z))


def test_pls_unit_weights_equal_no_weights():
    X, y = _problem(13)
    a = PLSRegression(2).fit(X, y)
    b = PLSRegression(2).fit(X, y, sample_weight=np.ones(y.size))
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-12)
    assert b.intercept_ == pytest.approx(a.intercept_, rel=1e-12)


def test_pls_bad_n_components():
    X, y = _problem()
    with pytest.raises(ValueError, match="n_components must be an integer"):
        PLSRegression(0).fit(X, y)
    with pytest.raises(ValueError, match="n_components must be an integer"):
        PLSRegression(6).fit(X, y)
