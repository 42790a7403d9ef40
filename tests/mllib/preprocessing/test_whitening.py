"""CholeskyWhitening (seed 002, lines 1096-1100): the training z have mean 0 and identity population covariance,
z = M^{-1}(x - mu) with A = M M^T exactly, Ex 10.11.2's covariance identity, inverse round trips, and a clear error
(or an explicit ridge) for a singular covariance. PCA whitening is tested with PCA."""

import numpy as np
import pytest

from mllib.preprocessing import CholeskyWhitening


def _correlated(seed, n=200, d=4):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(d, d)) * [1e-2, 1.0, 10.0, 1e3][:d]
    return rng.normal(size=(n, d)) @ B + rng.normal(size=d) * 50


@pytest.mark.parametrize("seed", range(3))
def test_whitened_training_data_has_zero_mean_and_identity_covariance(seed):
    X = _correlated(seed)
    Z = CholeskyWhitening().fit_transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(Z.T @ Z / Z.shape[0], np.eye(4), atol=1e-10)


def test_factor_and_covariance_match_the_notes():
    X = _correlated(3)
    w = CholeskyWhitening().fit(X)
    n = X.shape[0]
    mu = X.mean(axis=0)
    # Ex 10.11.2 c: (1/n) X~^T X~ = (1/n) X^T X - mu mu^T
    np.testing.assert_allclose(w.covariance_, X.T @ X / n - np.outer(mu, mu), rtol=1e-7)
    np.testing.assert_allclose(w.cholesky_ @ w.cholesky_.T, w.covariance_, rtol=1e-12)
    assert np.allclose(w.cholesky_, np.tril(w.cholesky_)) and (np.diag(w.cholesky_) > 0).all()
    x_new = np.random.default_rng(4).normal(size=(5, 4)) * 100
    np.testing.assert_allclose(
        w.transform(x_new), np.linalg.solve(w.cholesky_, (x_new - mu).T).T, rtol=1e-10, atol=1e-12
    )


def test_one_dimensional_whitening_is_standardisation():
    x = np.array([[1.0], [2.0], [3.0], [4.0]])
    np.testing.assert_allclose(
        CholeskyWhitening().fit_transform(x).ravel(), np.array([-3, -1, 1, 3]) / np.sqrt(5), rtol=1e-14
    )


def test_inverse_transform_round_trip():
    X = _correlated(5)
    w = CholeskyWhitening().fit(X)
    X_new = _correlated(6, n=20)
    np.testing.assert_allclose(w.inverse_transform(w.transform(X_new)), X_new, rtol=1e-10, atol=1e-8)
    Z = np.random.default_rng(7).normal(size=(10, 4))
    np.testing.assert_allclose(w.transform(w.inverse_transform(Z)), Z, rtol=1e-9, atol=1e-9)


def test_singular_covariance_needs_reg():
    rng = np.random.default_rng(8)
    onehot = np.eye(3)[rng.integers(0, 3, 50)]  # columns sum to 1: singular covariance
    X = np.column_stack([rng.normal(size=50), onehot])
    with pytest.raises(ValueError, match="covariance of X is singular.*set reg > 0"):
        CholeskyWhitening().fit(X)
    with pytest.raises(ValueError, match="singular"):
        CholeskyWhitening().fit(np.column_stack([rng.normal(size=50), np.full(50, 3.0)]))
    w = CholeskyWhitening(reg=1e-6).fit(X)
    Z = w.transform(X)
    assert np.isfinite(Z).all()
    A = (X - X.mean(0)).T @ (X - X.mean(0)) / 50
    np.testing.assert_allclose(w.covariance_, A + 1e-6 * np.trace(A) / 4 * np.eye(4), rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="reg must be a number >= 0"):
        CholeskyWhitening(reg=-1.0).fit(X)
