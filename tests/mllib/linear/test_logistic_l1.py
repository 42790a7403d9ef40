"""LogisticRegression(penalty="l1"): objective NLL + lam ||w||_1, intercept free (scikit-learn C = 1 / lam).

Oracles: the subgradient (KKT) conditions |X^T (p - y)|_j <= lam with equality and opposite sign where w_j != 0;
all-zero coefficients exactly from lam_max = max |X^T (y - ybar)|; scikit-learn saga (l1_ratio = 1) coefficients
within 1e-4 relative, binary and multinomial; integer weights = repeated rows; the L2 path is untouched."""

import numpy as np
import pytest
from scipy.special import expit, softmax
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from mllib.linear import LogisticRegression


def _binary(seed, n=300, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    beta = np.array([1.5, -1.0, 0.0, 0.5, 0.0, 0.0])[:d]
    y = (rng.random(n) < expit(X @ beta + 0.3)).astype(int)
    return X, y


def _multiclass(seed, n=300, d=5, k=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    B = rng.normal(size=(d, k)) * (rng.random((d, k)) < 0.6)
    y = np.array([rng.choice(k, p=p) for p in softmax(X @ B, axis=1)])
    return X, y


@pytest.mark.parametrize("lam", [2.0, 10.0, 40.0])
def test_binary_kkt_conditions(lam):
    X, y = _binary(0)
    model = LogisticRegression(penalty="l1", lam=lam).fit(X, y)
    p = model.predict_proba(X)[:, 1]
    g = X.T @ (p - y)
    w = model.coef_[0]
    assert abs(np.sum(p - y)) < 1e-7  # free intercept
    active = w != 0
    np.testing.assert_allclose(g[active], -lam * np.sign(w[active]), atol=1e-6)
    assert (np.abs(g[~active]) <= lam + 1e-6).all()
    assert (~active).any()  # sparse at these strengths


def test_all_zero_beyond_lam_max():
    X, y = _binary(1)
    lam_max = np.max(np.abs(X.T @ (y - y.mean())))
    above = LogisticRegression(penalty="l1", lam=lam_max * 1.001).fit(X, y)
    np.testing.assert_array_equal(above.coef_, 0.0)
    assert expit(above.intercept_[0]) == pytest.approx(y.mean(), abs=1e-9)
    below = LogisticRegression(penalty="l1", lam=lam_max * 0.9).fit(X, y)
    assert np.count_nonzero(below.coef_) >= 1


@pytest.mark.parametrize("lam", [3.0, 15.0])
def test_binary_agrees_with_sklearn_saga(lam):
    X, y = _binary(2)
    ref = SkLogisticRegression(C=1 / lam, l1_ratio=1.0, solver="saga", tol=1e-13, max_iter=200_000).fit(X, y)
    model = LogisticRegression(penalty="l1", lam=lam, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-4, atol=1e-7)
    np.testing.assert_array_equal(model.coef_ == 0, ref.coef_ == 0)


def test_multinomial_agrees_with_sklearn_saga_and_kkt():
    X, y = _multiclass(3)
    lam = 8.0
    ref = SkLogisticRegression(C=1 / lam, l1_ratio=1.0, solver="saga", tol=1e-13, max_iter=200_000).fit(X, y)
    model = LogisticRegression(penalty="l1", lam=lam, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-4, atol=1e-6)
    P, Y = model.predict_proba(X), np.eye(3)[y]
    G = X.T @ (P - Y)  # (d, K)
    W = model.coef_.T
    np.testing.assert_allclose((P - Y).sum(axis=0), 0.0, atol=1e-7)
    np.testing.assert_allclose(G[W != 0], -lam * np.sign(W[W != 0]), atol=1e-6)
    assert (np.abs(G[W == 0]) <= lam + 1e-6).all()


def test_integer_sample_weights_equal_repeating_rows():
    X, y = _binary(4, n=80)
    w = np.random.default_rng(0).integers(0, 4, size=80)
    a = LogisticRegression(penalty="l1", lam=2.0).fit(X, y, sample_weight=w)
    b = LogisticRegression(penalty="l1", lam=2.0).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-6, atol=1e-9)


def test_errors():
    X, y = _binary(5, n=40)
    with pytest.raises(ValueError, match="penalty must be one of"):
        LogisticRegression(penalty="elasticnet").fit(X, y)
    with pytest.raises(ValueError, match="smooth objective"):
        LogisticRegression(penalty="l1", solver="lbfgs").fit(X, y)
