"""GP classification by the Laplace approximation (seed 002 G3-G4; Rasmussen & Williams Alg. 3.1-3.2).

Oracles: scikit-learn's GaussianProcessClassifier with the same fixed kernel (optimizer=None): latent mode,
latent predictive mean and variance to 1e-6, probabilities to 0.02 (it averages the sigmoid against the Gaussian
with a 5-term probit expansion; we use the notes' single probit approximation sigmoid(m / sqrt(1 + pi v / 8)));
the probit approximation against Gauss-Hermite quadrature of the same Gaussian; the catalogue's (f*, s^2) = (1, 4)
and (2, 1) values; the Newton fixed point f = K (t - pi) at the mode, also where full Newton steps run away (large
amplitude, ill-conditioned K) and need halving; a warning at max_iter; subsampling above n_max."""

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from mllib.gaussian_process import GaussianProcessClassifier, probit_approximation
from mllib.kernels import gram


def _problem(seed=0, n=120):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (rng.random(n) < expit(2 * X[:, 0] - X[:, 1] ** 2 + 0.5)).astype(int)
    return X, y


def _reference(amplitude, gamma, X, y):
    kernel = ConstantKernel(amplitude, "fixed") * RBF(1 / np.sqrt(2 * gamma), "fixed")
    return SkGPC(kernel=kernel, optimizer=None).fit(X, y)


@pytest.mark.parametrize("amplitude, gamma", [(1.0, 0.5), (4.0, 2.0)])
def test_matches_scikit_learn_laplace(amplitude, gamma):
    X, y = _problem()
    Xt, _ = _problem(1, n=40)
    ours = GaussianProcessClassifier(amplitude=amplitude, gamma=gamma).fit(X, y)
    ref = _reference(amplitude, gamma, X, y)
    np.testing.assert_allclose(ours.latent_mode_[0], ref.base_estimator_.f_cached, atol=1e-6)
    mean, var = ours.latent(Xt)
    mean_ref, var_ref = ref.latent_mean_and_variance(Xt)
    np.testing.assert_allclose(mean[:, 0], mean_ref, atol=1e-6)
    np.testing.assert_allclose(var[:, 0], var_ref, atol=1e-6)
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=0.02)
    assert np.isclose(ours.log_marginal_likelihood_value_[0], ref.log_marginal_likelihood_value_, rtol=1e-6)


def test_mode_is_the_newton_fixed_point_and_probit_approximation():
    X, y = _problem(2)
    m = GaussianProcessClassifier(gamma=1.0).fit(X, y)
    K = gram(X, kernel="rbf", gamma=1.0)
    f = m.latent_mode_[0]
    np.testing.assert_allclose(f, K @ (y - expit(f)), atol=1e-8)  # grad of log p(t|f) - f^T K^-1 f / 2 is 0
    # probit approximation vs Gauss-Hermite integral of sigmoid(f) N(f | mean, var)
    mean, var = m.latent(X)
    mean, var = mean[:, 0], var[:, 0]
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    exact = (expit(mean[:, None] + np.sqrt(var)[:, None] * nodes) @ weights) / weights.sum()
    np.testing.assert_allclose(probit_approximation(mean, var), exact, atol=0.02)


def test_catalogue_probit_values():
    # seed 002 catalogue G3: (f*, s^2) = (1, 4) -> 0.6511; (2, 1) -> 0.8448; f* = 0 -> exactly 1/2
    np.testing.assert_allclose(probit_approximation([1.0, 2.0, 0.0], [4.0, 1.0, 9.0]), [0.6511, 0.8448, 0.5], atol=5e-5)
    assert probit_approximation(0.0, 9.0) == 0.5
    # no variance: the plain sigmoid; any variance pulls the probability towards 1/2 (catalogue G3)
    assert probit_approximation(1.5, 0.0) == expit(1.5)
    assert 0.5 < probit_approximation(1.5, 2.0) < expit(1.5) and expit(-1.5) < probit_approximation(-1.5, 2.0) < 0.5


def test_predict_proba_is_the_probit_approximation_of_the_latent_posterior():
    X, y = _problem(4)
    m = GaussianProcessClassifier(gamma=1.0).fit(X, y)
    mean, var = m.latent(X)
    np.testing.assert_array_equal(m.predict_proba(X)[:, 1], probit_approximation(mean, var)[:, 0])


def test_newton_step_halving_reaches_the_mode_with_a_large_amplitude():
    # 1-D, amplitude 1e5, narrow RBF: cond(K) ~ 1e18; five full Newton steps raise the objective, the sixth lowers it
    # and later ones run away to -1e7: stopping at the first fall (or never checking) leaves f far from the mode
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 1))
    y = (rng.random(40) < expit(3 * X[:, 0])).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converges within max_iter: no warning
        m = GaussianProcessClassifier(amplitude=1e5, gamma=10.0).fit(X, y)
    f, residual = m.latent_mode_[0], m.residual_[0]
    K = 1e5 * gram(X, kernel="rbf", gamma=10.0)
    # gradient of the concave objective log p(t|f) - 1/2 f^T K^-1 f is K^-1 (K (t - pi) - f): zero only at the mode
    np.testing.assert_allclose(residual, y - expit(f), atol=1e-15)
    assert np.linalg.norm(f - K @ residual) < 1e-6 * np.linalg.norm(f)


def test_warns_when_max_iter_stops_newton_before_convergence():
    X, y = _problem(5)
    with pytest.warns(UserWarning, match="max_iter=2"):
        GaussianProcessClassifier(amplitude=100.0, max_iter=2).fit(X, y)


def test_multiclass_subsampling_and_determinism():
    rng = np.random.default_rng(3)
    centers = np.array([[0, 2], [2, -1], [-2, -1]])
    X = np.vstack([rng.normal(size=(50, 2)) + c for c in centers])
    y = np.repeat([0, 1, 2], 50)
    m = GaussianProcessClassifier(n_max=90).fit(X, y)
    assert m.X_train_.shape == (90, 2) and m.L_.shape == (3, 90, 90)
    P = m.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert np.mean(m.predict(X) == y) > 0.85
    np.testing.assert_array_equal(P, GaussianProcessClassifier(n_max=90).fit(X, y).predict_proba(X))
    with pytest.raises(ValueError, match="n_max"):
        GaussianProcessClassifier(n_max=0).fit(X, y)
