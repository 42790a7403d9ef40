"""LinearSVM (catalogue 000 C4/E2, 001-004 7.3, 002 P14): the two-point toy problem (w = (1, 0), b = 0, a = 1/2
each), KKT conditions of the dual, primal objective = dual objective at the optimum, scikit-learn LinearSVC
coefficients within 1e-4 relative (both losses, binary and one-vs-rest), integer weights = repeated rows."""

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from mllib.linear import LinearSVM


def _problem(seed, n=200, d=4, k=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    X = rng.normal(scale=1.2, size=(k, d))[y] + rng.normal(size=(n, d))
    return X, y


def _augmented(model, X):
    return np.hstack([X, np.full((X.shape[0], 1), model.intercept_scaling)])


def test_two_point_toy_problem():
    X = np.array([[-1.0, 0.0], [1.0, 0.0]])
    y = np.array([-1, 1])
    model = LinearSVM(loss="hinge", C=100.0, tol=1e-12).fit(X, y)  # symmetric: the bias is 0 anyway
    np.testing.assert_allclose(model.coef_[0], [1.0, 0.0], atol=1e-5)
    assert abs(model.intercept_[0]) < 1e-5
    np.testing.assert_allclose(model.dual_coef_[0], [0.5, 0.5], atol=1e-5)  # both support vectors, margin 1


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_kkt_and_zero_duality_gap(loss):
    X, y = _problem(1)
    C = 0.5
    model = LinearSVM(loss=loss, C=C, tol=1e-10, max_iter=10_000).fit(X, y)
    t = np.where(y == 1, 1.0, -1.0)
    Z = _augmented(model, X)
    w = np.r_[model.coef_[0], model.intercept_[0] / model.intercept_scaling]
    a = model.dual_coef_[0]
    np.testing.assert_allclose(w, (a * t) @ Z, atol=1e-10)  # w = sum a_i t_i x_i
    m = t * (Z @ w)
    hinge = np.maximum(0, 1 - m)
    if loss == "hinge":
        primal = 0.5 * w @ w + C * hinge.sum()
        dual = a.sum() - 0.5 * w @ w
        assert (a >= 0).all() and (a <= C + 1e-12).all()
        inside = (a > 1e-8) & (a < C - 1e-8)
        np.testing.assert_allclose(m[inside], 1.0, atol=1e-6)  # 0 < a_i < C  =>  t_i f(x_i) = 1
        assert (m[a < 1e-10] >= 1 - 1e-6).all()
    else:
        primal = 0.5 * w @ w + C * (hinge**2).sum()
        dual = a.sum() - 0.5 * w @ w - (a**2).sum() / (4 * C)
        np.testing.assert_allclose(a, 2 * C * hinge, atol=1e-6)  # a_i = 2 C xi_i
    assert primal == pytest.approx(dual, rel=1e-7)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("k", [2, 3])
def test_agrees_with_sklearn_linear_svc(loss, k):
    X, y = _problem(2 + k, k=k)
    kw = dict(C=0.3, loss=loss, tol=1e-9, max_iter=1_000_000, intercept_scaling=2.0)
    ref = LinearSVC(dual=True, **kw).fit(X, y)
    model = LinearSVM(**kw).fit(X, y)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-4, atol=1e-7)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_integer_sample_weights_equal_repeating_rows(loss):
    X, y = _problem(7, n=80)
    w = np.random.default_rng(0).integers(0, 4, size=80)
    a = LinearSVM(loss=loss, tol=1e-12, max_iter=50_000).fit(X, y, sample_weight=w)
    b = LinearSVM(loss=loss, tol=1e-12, max_iter=50_000).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-6, atol=1e-9)


def test_outputs():
    X, y = _problem(8, k=3)
    model = LinearSVM().fit(X, np.array(["a", "b", "c"])[y])
    S = model.decision_function(X)
    assert S.shape == (200, 3)
    np.testing.assert_array_equal(model.predict(X), model.classes_[S.argmax(axis=1)])
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_errors():
    X, y = _problem(9, n=20)
    with pytest.raises(ValueError, match="loss must be one of"):
        LinearSVM(loss="log").fit(X, y)
    with pytest.raises(ValueError, match="C must be a positive number"):
        LinearSVM(C=0).fit(X, y)
