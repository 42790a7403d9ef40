"""Kernel ridge (seed 000 L3, seed 002 R7), kernel PCA (seed 002 P3) and the Nystroem approximation.

Oracles: kernel ridge with a linear kernel equals primal ridge (X^T X + lambda I)^{-1} X^T y (no intercept on
either side) and scikit-learn's KernelRidge; lambda -> 0 interpolates; sample weights = repeated rows.
Kernel PCA equals scikit-learn's KernelPCA up to sign, with a linear kernel equals linear PCA scores, training
scores have variance lambda_j / n. Nystroem with every row as a landmark reproduces K exactly; the error
shrinks with more landmarks; features match scikit-learn's Nystroem given the same landmarks. Every kernel
estimator fits with every Mercer kernel and its default hyperparameters (the inverse multiquadric's c = 1 throughout).
"""

import numpy as np
import pytest
from sklearn.decomposition import PCA as SkPCA
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

from mllib.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
from mllib.kernels import KernelPCA, KernelRidge, Nystroem, gram
from mllib.svm import SVC


def _regression(seed=0, n=80, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] - 0.3 * X[:, 2] ** 2 + 0.1 * rng.normal(size=n)
    return X, y


def test_kernel_ridge_linear_kernel_equals_primal_ridge():
    X, y = _regression()
    lam = 2.5
    w = np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)
    m = KernelRidge(alpha=lam, kernel="linear").fit(X, y)
    Xt, _ = _regression(1, n=20)
    np.testing.assert_allclose(m.predict(Xt), Xt @ w, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.dual_coef_ @ X, w, rtol=1e-10, atol=1e-12)  # w = X^T alpha


@pytest.mark.parametrize(
    "kernel, extra", [("rbf", {"gamma": 0.4}), ("poly", {"degree": 2, "coef0": 1.0, "gamma": 0.5})]
)
def test_kernel_ridge_matches_scikit_learn_and_weights_repeat_rows(kernel, extra):
    X, y = _regression(2)
    m = KernelRidge(alpha=0.3, kernel=kernel, **extra).fit(X, y)
    ref = SkKernelRidge(alpha=0.3, kernel=kernel, **extra).fit(X, y)
    np.testing.assert_allclose(m.predict(X), ref.predict(X), rtol=1e-9, atol=1e-10)
    w = np.ones(len(y))
    w[:10] = 3
    weighted = KernelRidge(alpha=0.3, kernel=kernel, **extra).fit(X, y, sample_weight=w)
    repeated = KernelRidge(alpha=0.3, kernel=kernel, **extra).fit(
        np.vstack([X, X[:10], X[:10]]), np.concatenate([y, y[:10], y[:10]])
    )
    np.testing.assert_allclose(weighted.predict(X), repeated.predict(X), rtol=1e-8, atol=1e-9)


def test_kernel_ridge_interpolates_as_lambda_vanishes_and_validates():
    X, y = _regression(3, n=30)
    m = KernelRidge(alpha=1e-10, kernel="rbf", gamma=1.0).fit(X, y)
    np.testing.assert_allclose(m.predict(X), y, atol=1e-6)
    with pytest.raises(ValueError, match="alpha must"):
        KernelRidge(alpha=0.0).fit(X, y)


@pytest.mark.parametrize(
    "kernel, extra", [("rbf", {"gamma": 0.3}), ("poly", {"degree": 3, "coef0": 1.0, "gamma": 0.2}), ("linear", {})]
)
def test_kernel_pca_matches_scikit_learn_up_to_sign(kernel, extra):
    X, _ = _regression(4, n=60, d=4)
    Xt, _ = _regression(5, n=15, d=4)
    m = KernelPCA(n_components=3, kernel=kernel, **extra).fit(X)
    ref = SkKernelPCA(n_components=3, kernel=kernel, eigen_solver="dense", **extra).fit(X)
    Z, Z_ref = m.transform(Xt), ref.transform(Xt)
    signs = np.sign(np.sum(Z * Z_ref, axis=0))
    np.testing.assert_allclose(Z * signs, Z_ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(m.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    # training scores sqrt(lambda_j) a_j: zero mean, variance lambda_j / n
    Z_train = m.transform(X)
    np.testing.assert_allclose(Z_train.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(Z_train.var(axis=0), m.eigenvalues_ / len(X), rtol=1e-9)


def test_linear_kernel_pca_equals_linear_pca_scores():
    X, _ = _regression(6, n=50, d=5)
    Z = KernelPCA(n_components=3, kernel="linear").fit(X).transform(X)
    Z_pca = SkPCA(n_components=3).fit_transform(X)
    signs = np.sign(np.sum(Z * Z_pca, axis=0))
    np.testing.assert_allclose(Z * signs, Z_pca, rtol=1e-8, atol=1e-10)
    names = KernelPCA(n_components=2).fit(X).get_feature_names_out(["a"] * 5)
    assert list(names) == ["kernel_pca0", "kernel_pca1"]


def test_nystroem_is_exact_with_all_landmarks_and_improves_with_more():
    X, _ = _regression(7, n=120, d=4)
    K = gram(X, kernel="rbf", gamma=0.2)
    Z = Nystroem(n_components=120, gamma=0.2).fit(X).transform(X)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-8)
    errors = [
        np.linalg.norm(K - (lambda Z: Z @ Z.T)(Nystroem(n_components=m, gamma=0.2).fit(X).transform(X)))
        for m in (10, 40, 100)
    ]
    assert errors[0] > errors[1] > errors[2]
    a = Nystroem(n_components=30, random_state=3).fit(X)
    b = Nystroem(n_components=30, random_state=3).fit(X)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    assert a.get_feature_names_out().size == 30


def test_nystroem_matches_scikit_learn_with_the_same_landmarks():
    X, _ = _regression(8, n=100, d=4)
    m = Nystroem(n_components=25, gamma=0.3, random_state=1).fit(X)
    ref = SkNystroem(gamma=0.3, n_components=25).fit(X[m.component_indices_])  # all of them become landmarks
    Z, Z_ref = m.transform(X), ref.transform(X)
    np.testing.assert_allclose(Z @ Z.T, Z_ref @ Z_ref.T, rtol=1e-8, atol=1e-10)  # same kernel approximation


@pytest.mark.parametrize(
    "estimator", [KernelRidge, KernelPCA, Nystroem, GaussianProcessRegressor, GaussianProcessClassifier, SVC]
)
@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "exponential", "inverse_multiquadric"])
def test_every_estimator_fits_every_mercer_kernel_with_its_defaults(estimator, kernel):
    X, y = _regression(9, n=40)
    target = (y > np.median(y)).astype(int) if estimator in (GaussianProcessClassifier, SVC) else y
    m = estimator(kernel=kernel).fit(X, target)
    if kernel == "inverse_multiquadric":
        assert m.kernel_params_ == {"c": 1.0}
    assert np.all(np.isfinite(m.predict(X) if hasattr(m, "predict") else m.transform(X)))
