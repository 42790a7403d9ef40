"""GP regression (seed 002 G2, seed 000 L5). Oracles: exercise 10.8.1 of seed 002 (catalogue values: mean 0.2970297
at x = -0.5 for the squared exponential, l = 0.2, sigma = 0.1, ...; 0.2970230 for the exponential kernel);
posterior mean = kernel ridge with lambda = noise variance; scikit-learn's GaussianProcessRegressor with the same
fixed kernel (mean, std and log marginal likelihood to 1e-8); posterior variance <= prior variance; evidence
maximisation increases the evidence and reaches scikit-learn's optimum."""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from mllib.gaussian_process import GaussianProcessRegressor
from mllib.kernels import KernelRidge


def test_exercise_10_8_1_squared_exponential():
    # k(x, x') = exp(-|(x - x') / l|^2) with l = 0.2 -> rbf gamma = 1 / l^2; noise sigma = 0.1 -> lambda = 0.01
    X = np.array([[-0.5], [0.5]])
    y = np.array([0.3, -0.1])
    gp = GaussianProcessRegressor(alpha=0.01, kernel="rbf", gamma=1 / 0.2**2).fit(X, y)
    mean, std_f = gp.predict(np.array([[-0.5], [0.5], [0.0]]), return_std=True)
    np.testing.assert_allclose(mean[:2], [0.2970297, -0.0990099], atol=5e-8)
    assert np.isclose(mean[0], 0.3 / 1.01, rtol=1e-9)
    assert abs(mean[2] - 3.82e-4) < 5e-6
    np.testing.assert_allclose(std_f[:2], 0.0995037, atol=5e-8)
    np.testing.assert_allclose(np.sqrt(std_f[:2] ** 2 + 0.01), 0.1410709, atol=5e-8)  # std of a noisy y
    assert abs(std_f[2] - 0.9999963) < 5e-8


def test_exercise_10_8_1_exponential():
    # e): gamma-exponential with exponent 1, k(x, x') = exp(-|x - x'| / l), l = 0.2 -> exponential kernel gamma = 1 / l
    X = np.array([[-0.5], [0.5]])
    y = np.array([0.3, -0.1])
    gp = GaussianProcessRegressor(alpha=0.01, kernel="exponential", gamma=1 / 0.2).fit(X, y)
    mean, std_f = gp.predict(np.array([[-0.5], [0.5], [0.0]]), return_std=True)
    np.testing.assert_allclose(mean, [0.2970230, -0.0989900, 0.0161467], atol=5e-8)
    np.testing.assert_allclose(std_f, [0.0995037, 0.0995037, 0.9933509], atol=5e-8)
    # the squared exponential at the same l gives mean(0) = 3.82e-4: the exponential's heavier tail reaches x = 0
    assert mean[2] > 40 * GaussianProcessRegressor(alpha=0.01, gamma=1 / 0.2**2).fit(X, y).predict([[0.0]])[0]


def test_mean_equals_kernel_ridge_with_lambda_the_noise_variance():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    Xt = rng.normal(size=(20, 3))
    gp = GaussianProcessRegressor(alpha=0.05, kernel="rbf", gamma=0.7).fit(X, y)
    krr = KernelRidge(alpha=0.05, kernel="rbf", gamma=0.7).fit(X, y)
    np.testing.assert_allclose(gp.predict(Xt), krr.predict(Xt), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("amplitude, gamma, noise", [(1.0, 0.5, 1e-2), (2.5, 0.1, 0.3)])
def test_matches_scikit_learn_with_a_fixed_kernel(amplitude, gamma, noise):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(70, 4))
    y = X[:, 0] - np.cos(X[:, 1]) + 0.1 * rng.normal(size=70)
    Xt = np.vstack([rng.normal(size=(30, 4)), 8 + rng.normal(size=(5, 4))])  # some far from the data
    ours = GaussianProcessRegressor(alpha=noise, amplitude=amplitude, kernel="rbf", gamma=gamma).fit(X, y)
    kernel = ConstantKernel(amplitude, "fixed") * RBF(length_scale=1 / np.sqrt(2 * gamma), length_scale_bounds="fixed")
    ref = SkGPR(kernel=kernel, alpha=noise, optimizer=None).fit(X, y)
    mean, std = ours.predict(Xt, return_std=True)
    mean_ref, std_ref = ref.predict(Xt, return_std=True)
    np.testing.assert_allclose(mean, mean_ref, atol=1e-8)
    np.testing.assert_allclose(std, std_ref, atol=1e-8)
    assert np.isclose(ours.log_marginal_likelihood(), ref.log_marginal_likelihood_value_, rtol=1e-10)
    # posterior variance <= prior variance; far from the data it returns to the prior
    assert np.all(std <= np.sqrt(amplitude) + 1e-12)
    np.testing.assert_allclose(std[-5:], np.sqrt(amplitude), rtol=1e-3)


def test_evidence_maximisation_reaches_scikit_learn_optimum():
    rng = np.random.default_rng(2)
    X = rng.uniform(-3, 3, size=(50, 1))
    y = np.sin(2 * X[:, 0]) + 0.2 * rng.normal(size=50)
    fixed = GaussianProcessRegressor(alpha=0.5, amplitude=1.0, gamma=1.0).fit(X, y)
    tuned = GaussianProcessRegressor(alpha=0.5, amplitude=1.0, gamma=1.0, optimize=True).fit(X, y)
    assert tuned.log_marginal_likelihood() > fixed.log_marginal_likelihood()
    kernel = ConstantKernel(1.0, (1e-6, 1e6)) * RBF(1 / np.sqrt(2.0), (1e-3, 1e3)) + WhiteKernel(0.5, (1e-6, 1e6))
    ref = SkGPR(kernel=kernel, alpha=0.0).fit(X, y)
    assert abs(tuned.log_marginal_likelihood() - ref.log_marginal_likelihood_value_) < 1e-3
    assert np.isclose(tuned.noise_, ref.kernel_.k2.noise_level, rtol=1e-2)


def test_validation():
    X, y = np.zeros((3, 1)) + [[0.0], [1.0], [2.0]], np.arange(3.0)
    for bad in ({"alpha": 0.0}, {"amplitude": -1.0}):
        with pytest.raises(ValueError, match="must be a positive finite number"):
            GaussianProcessRegressor(**bad).fit(X, y)
