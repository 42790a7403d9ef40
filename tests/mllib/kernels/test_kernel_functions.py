"""Kernels (seed 000 catalogue F1-F3, seed 002 R7, G2): Gram matrices symmetric PSD (Mercer); (x.y)^2 equals the
explicit feature map phi(x).phi(y) (notes' phi = (x1^2, sqrt2 x1 x2, x2^2)); the catalogue's numeric oracles;
scikit-learn's pairwise kernels (the exponential kernel: its Matern kernel with nu = 1/2); blockwise Gram = direct
Gram; gamma = "scale"; coef0 = None resolves to each kernel's default; the distance kernels exact (against cdist)
at near-duplicates far from the origin."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.gaussian_process.kernels import Matern
from sklearn.metrics import pairwise

from mllib.kernels import functions, gram, is_psd, kernel_diagonal, kernel_params, quadratic_features

PARAMS = {
    "linear": {},
    "poly": {"gamma": 0.5, "coef0": 1.0, "degree": 3},
    "rbf": {"gamma": 0.7},
    "exponential": {"gamma": 0.7},
    "inverse_multiquadric": {"c": 0.8},
    "sigmoid": {"gamma": 0.1, "coef0": -0.5},
}


def _points(seed=0, n=50, d=4):
    return np.random.default_rng(seed).normal(size=(n, d))


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "exponential", "inverse_multiquadric"])
def test_mercer_kernels_give_symmetric_psd_gram_matrices(kernel):
    X = _points()
    K = gram(X, kernel=kernel, **PARAMS[kernel])
    np.testing.assert_array_equal(K, K.T)
    assert is_psd(K)
    assert np.linalg.eigvalsh(K).min() >= -1e-10 * np.abs(K).max()


@pytest.mark.parametrize("kernel", ["rbf", "exponential", "inverse_multiquadric"])
def test_distance_kernels_are_exact_at_near_duplicates_far_from_the_origin(kernel):
    # |x| ~ 200: unshifted, |x|^2 + |y|^2 - 2 x.y errs by ~eps |x|^2 ~ 1e-11, which the exponential's square root
    # turns into ~2e-6 at pairs 1e-6 apart (and an indefinite Gram matrix)
    near = np.repeat(_points()[:10], 5, axis=0) + 1e-6 * _points(11, n=50) + 100.0
    p = PARAMS[kernel]
    D = cdist(near, near)
    exact = {
        "rbf": lambda: np.exp(-p["gamma"] * D**2),
        "exponential": lambda: np.exp(-p["gamma"] * D),
        "inverse_multiquadric": lambda: 1.0 / np.sqrt(D**2 + p["c"] ** 2),
    }[kernel]()
    # relative 1e-12 where the distance enters squared; the square root leaves ~eps |x - mean|^2 / |x - y| ~ 5e-10
    tol = {"atol": 1e-9, "rtol": 0.0} if kernel == "exponential" else {"rtol": 1e-12}
    K = gram(near, kernel=kernel, **p)
    np.testing.assert_allclose(K, exact, **tol)
    assert is_psd(K)
    np.testing.assert_allclose(gram(near[::2], near[1::2], kernel, **p), exact[::2, 1::2], **tol)


def test_is_psd_rejects_indefinite_and_asymmetric_matrices():
    assert not is_psd(np.array([[1.0, 2.0], [2.0, 1.0]]))  # eigenvalues 3, -1
    assert not is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))
    assert is_psd(np.array([[1.0, 1.0], [1.0, 1.0]]))  # singular but PSD
    # the sigmoid "kernel" is not Mercer for every (gamma, coef0): a negative coef0 makes k(x, x) < 0
    X = _points(1, n=20)
    assert not is_psd(gram(X, kernel="sigmoid", gamma=0.01, coef0=-1.0))
    with pytest.raises(ValueError, match="square"):
        is_psd(np.ones((2, 3)))


def test_quadratic_kernel_equals_explicit_feature_map():
    # catalogue oracle (seed 002 R7): x = (1, 2), x' = (3, -1): (x.x')^2 = 1 both ways
    x, z = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    np.testing.assert_allclose(quadratic_features(x), [[1.0, 2 * np.sqrt(2), 4.0]])  # (x1^2, sqrt2 x1 x2, x2^2)
    assert np.isclose(quadratic_features(x) @ quadratic_features(z).T, 1.0)
    assert np.isclose(gram(x, z, "poly", gamma=1.0, coef0=0.0, degree=2)[0, 0], 1.0)
    X, Y = _points(2, n=30, d=5), _points(3, n=20, d=5)
    np.testing.assert_allclose(quadratic_features(X) @ quadratic_features(Y).T, (X @ Y.T) ** 2, rtol=1e-12, atol=1e-12)
    assert quadratic_features(X).shape == (30, 15)


def test_catalogue_values():
    # seed 001-004 catalogue 7.3: (x.x' + 1)^2 with x = (1, 2), x' = (3, 4) is 144
    assert np.isclose(gram([[1.0, 2.0]], [[3.0, 4.0]], "poly", gamma=1.0, coef0=1.0, degree=2)[0, 0], 144.0)
    # RBF with sigma: exp(-||x - y||^2 / (2 sigma^2)), gamma = 1 / (2 sigma^2)
    sigma = 0.5
    assert np.isclose(
        gram([[0.0, 0.0]], [[1.0, 1.0]], "rbf", gamma=1 / (2 * sigma**2))[0, 0], np.exp(-2 / (2 * sigma**2))
    )
    # inverse multiquadric 1 / sqrt(||x - y||^2 + c^2)
    assert np.isclose(gram([[0.0, 0.0]], [[3.0, 4.0]], "inverse_multiquadric", c=2.0)[0, 0], 1 / np.sqrt(29.0))
    # exponential exp(-|(x - x') / l|) (seed 002 G2, gamma-exponential with exponent 1), l = 0.2: gamma = 1 / l;
    # in R^2 the distance is Euclidean, ||(3, 4)|| = 5
    assert np.isclose(gram([[-0.5]], [[0.5]], "exponential", gamma=1 / 0.2)[0, 0], np.exp(-5.0))
    assert np.isclose(gram([[0.0, 0.0]], [[3.0, 4.0]], "exponential", gamma=0.1)[0, 0], np.exp(-0.5))


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "exponential", "sigmoid"])
def test_kernels_match_scikit_learn(kernel):
    X, Y = _points(4, n=40), _points(5, n=25)
    p = PARAMS[kernel]
    ref = {
        "linear": lambda: pairwise.linear_kernel(X, Y),
        "poly": lambda: pairwise.polynomial_kernel(X, Y, **p),
        "rbf": lambda: pairwise.rbf_kernel(X, Y, **p),
        "exponential": lambda: Matern(length_scale=1 / p["gamma"], nu=0.5)(X, Y),
        "sigmoid": lambda: pairwise.sigmoid_kernel(X, Y, **p),
    }[kernel]()
    np.testing.assert_allclose(gram(X, Y, kernel, **p), ref, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kernel", sorted(PARAMS))
def test_blockwise_gram_diagonal_and_gram_dot_agree_with_direct(kernel, monkeypatch):
    X, Y = _points(6, n=37), _points(7, n=23)
    p = PARAMS[kernel]
    direct = functions.KERNELS[kernel](X, Y, **p)
    monkeypatch.setattr(functions, "_BLOCK_ENTRIES", 50)  # blocks of 2 rows
    np.testing.assert_allclose(gram(X, Y, kernel, **p), direct, rtol=1e-13, atol=1e-14)
    coef = np.random.default_rng(8).normal(size=(23, 2))
    np.testing.assert_allclose(functions.gram_dot(X, Y, coef, kernel, **p), direct @ coef, rtol=1e-12, atol=1e-12)
    # the diagonal of the product form (Y = X given explicitly, so not set from kernel_diagonal); the exponential's
    # is exp(-gamma sqrt(rounding of |x|^2 + |x|^2 - 2 x.x)), off by ~1e-8
    np.testing.assert_allclose(
        kernel_diagonal(X, kernel, **p),
        np.diag(gram(X, X, kernel, **p)),
        rtol=1e-7 if kernel == "exponential" else 1e-12,
    )


def test_kernel_params_resolution_and_errors():
    X = _points(9) * 3.0
    assert kernel_params("rbf", X) == {"gamma": 1 / (4 * X.var())}
    assert kernel_params("rbf", X, gamma="auto") == {"gamma": 0.25}
    assert kernel_params("poly", X, gamma=2, degree=2, coef0=1) == {"gamma": 2.0, "degree": 2, "coef0": 1.0}
    assert kernel_params("linear", X) == {}
    assert kernel_params("inverse_multiquadric", X, coef0=1.5) == {"c": 1.5}
    # coef0 = None: the kernel's default (0 as libsvm for poly / sigmoid, c = 1 for the inverse multiquadric)
    assert kernel_params("inverse_multiquadric", X) == {"c": 1.0}
    assert kernel_params("sigmoid", X, gamma=1.0) == {"gamma": 1.0, "coef0": 0.0}
    # "scale": one length scale l = sqrt(d Var X) for both distance kernels: rbf gamma = 1 / l^2, exponential 1 / l
    assert np.isclose(kernel_params("exponential", X)["gamma"], 1 / np.sqrt(4 * X.var()))
    assert np.isclose(kernel_params("exponential", X, gamma="auto")["gamma"], 0.5)
    assert kernel_params("exponential", X, gamma=5.0) == {"gamma": 5.0}
    assert kernel_params("rbf", np.ones((5, 2))) == {"gamma": 1.0}  # constant X: Var = 0
    for kwargs, match in [
        ({"kernel": "laplace"}, "kernel must"),
        ({"kernel": "rbf", "gamma": -1.0}, "gamma must"),
        ({"kernel": "poly", "degree": 0}, "degree must"),
        ({"kernel": "inverse_multiquadric", "coef0": 0.0}, "c = coef0 > 0"),
        ({"kernel": "poly", "coef0": "one"}, "coef0 must be a finite number"),
    ]:
        with pytest.raises(ValueError, match=match):
            kernel_params(X=X, **kwargs)
    with pytest.raises(ValueError, match="kernel must"):
        gram(X, kernel="laplace")


def test_blockwise_symmetric_gram_is_exactly_symmetric(monkeypatch):
    X = _points(10, n=41, d=6)
    direct = functions.KERNELS["rbf"](X, X, gamma=0.3)
    monkeypatch.setattr(functions, "_BLOCK_ENTRIES", 41 * 3)  # blocks of 3 rows
    K = gram(X, kernel="rbf", gamma=0.3)
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_allclose(K, direct, rtol=1e-13, atol=1e-15)
