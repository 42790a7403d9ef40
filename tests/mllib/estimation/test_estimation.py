"""Parameter estimation (seed 000 catalogue B1-B3, G5; seed 001-003-004 catalogue 10).

Oracles: the notes' geometric example with the corrected ML theta_2 = 4/7 (the notes print 3/7), ML scores
0.125 vs 6/49 -> omega_1; Bayesian posteriors 30 theta^2 (1 - theta)^2 and 280 theta^4 (1 - theta)^3 and predictives
3/14 vs 2/9 -> omega_2 (exact, with fractions); ML = numerical argmax of the likelihood; Gaussian ML [1, 2, 3, 4]
-> mean 2.5, variance 1.25 (unbiased 5/3); conjugate posteriors == normalised likelihood x prior by quadrature;
the Gaussian-mean posterior tends to the ML mean; James-Stein has lower Monte-Carlo MSE than the mean for n >= 3."""

from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from mllib.estimation import (
    bernoulli_ml,
    bernoulli_posterior,
    bernoulli_predictive,
    gaussian_mean_posterior,
    gaussian_ml,
    gaussian_predictive,
    geometric_log_likelihood,
    geometric_ml,
    geometric_posterior,
    geometric_predictive,
    james_stein,
)

D1, D2 = [0, 2], [0, 2, 0, 1]  # seed 000, lines 471-536


def test_geometric_ml_worked_example_with_the_corrected_theta2():
    theta1, theta2 = geometric_ml(D1), geometric_ml(D2)
    assert Fraction(theta1).limit_denominator(100) == Fraction(1, 2)
    assert Fraction(theta2).limit_denominator(100) == Fraction(4, 7)  # the notes' 3/7 is an erratum
    # plug-in classifier at x = 1 with equal priors: (1 - theta) theta * 0.5
    score1, score2 = (1 - theta1) * theta1 * 0.5, (1 - theta2) * theta2 * 0.5
    assert score1 == pytest.approx(0.125) and score2 == pytest.approx(6 / 49)
    assert score1 > score2  # decide omega_1


@pytest.mark.parametrize("data", [D1, D2, [3, 0, 7, 1, 1, 2]])
def test_geometric_ml_is_the_argmax_of_the_likelihood(data):
    res = optimize.minimize_scalar(
        lambda t: -geometric_log_likelihood(data, t),
        bounds=(1e-9, 1 - 1e-9),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert geometric_ml(data) == pytest.approx(res.x, abs=1e-7)
    assert geometric_log_likelihood(D2, 4 / 7) > geometric_log_likelihood(D2, 3 / 7)


def test_bayesian_geometric_worked_example():
    a1, b1 = geometric_posterior(D1)
    a2, b2 = geometric_posterior(D2)
    theta = np.linspace(0.01, 0.99, 50)
    np.testing.assert_allclose(stats.beta(a1, b1).pdf(theta), 30 * theta**2 * (1 - theta) ** 2, rtol=1e-10)
    np.testing.assert_allclose(stats.beta(a2, b2).pdf(theta), 280 * theta**4 * (1 - theta) ** 3, rtol=1e-10)
    p1, p2 = geometric_predictive(1, a1, b1), geometric_predictive(1, a2, b2)
    assert Fraction(p1).limit_denominator(1000) == Fraction(3, 14)
    assert Fraction(p2).limit_denominator(1000) == Fraction(2, 9)
    assert p2 * 0.5 > p1 * 0.5  # decide omega_2: the Bayes and ML classifiers disagree
    # the predictive is the posterior average of theta (1 - theta)^k, by quadrature
    for k in range(4):
        quad = integrate.quad(lambda t: t * (1 - t) ** k * stats.beta(a2, b2).pdf(t), 0, 1)[0]
        assert geometric_predictive(k, a2, b2) == pytest.approx(quad, rel=1e-10)
    assert np.sum(geometric_predictive(np.arange(2000), a2, b2)) == pytest.approx(1.0, abs=1e-3)


def test_bernoulli_ml_posterior_and_predictive():
    x = [1, 0, 1, 1, 0, 1, 1]
    assert bernoulli_ml(x) == pytest.approx(5 / 7)
    a, b = bernoulli_posterior(x, a=2.0, b=3.0)
    assert (a, b) == (7.0, 5.0)
    assert bernoulli_predictive(a, b) == pytest.approx(7 / 12)

    # posterior == normalised likelihood x prior
    def lik_prior(t):
        return t**5 * (1 - t) ** 2 * stats.beta(2, 3).pdf(t)

    z = integrate.quad(lik_prior, 0, 1)[0]
    for t in (0.2, 0.5, 0.8):
        assert stats.beta(a, b).pdf(t) == pytest.approx(lik_prior(t) / z, rel=1e-8)
    with pytest.raises(ValueError, match=r"must be binary with labels \{0, 1\}"):
        bernoulli_ml([0, 2])


def test_gaussian_ml_catalogue_example_and_covariance():
    mean, var = gaussian_ml([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and var == 1.25
    assert gaussian_ml([1.0, 2.0, 3.0, 4.0], unbiased=True)[1] == pytest.approx(5 / 3)
    X = np.random.default_rng(0).normal(size=(50, 3))
    mu, cov = gaussian_ml(X)
    np.testing.assert_allclose(mu, X.mean(0))
    np.testing.assert_allclose(cov, np.cov(X.T, bias=True), rtol=1e-12)
    np.testing.assert_allclose(gaussian_ml(X, unbiased=True)[1], np.cov(X.T), rtol=1e-12)


def test_gaussian_mean_posterior_matches_quadrature_and_tends_to_the_ml_mean():
    rng = np.random.default_rng(1)
    x = rng.normal(2.0, 1.5, size=6)
    sigma2, mu0, tau0_2 = 1.5**2, -1.0, 0.5
    mu_n, tau_n2 = gaussian_mean_posterior(x, sigma2, mu0, tau0_2)

    def unnorm(m):  # likelihood x prior, up to a constant
        return np.exp(-np.sum((x - m) ** 2) / (2 * sigma2) - (m - mu0) ** 2 / (2 * tau0_2))

    z = integrate.quad(unnorm, -10, 10)[0]
    mean = integrate.quad(lambda m: m * unnorm(m) / z, -10, 10)[0]
    var = integrate.quad(lambda m: (m - mean) ** 2 * unnorm(m) / z, -10, 10)[0]
    assert mu_n == pytest.approx(mean, rel=1e-7) and tau_n2 == pytest.approx(var, rel=1e-6)
    pred_mean, pred_var = gaussian_predictive(x, sigma2, mu0, tau0_2)
    assert pred_mean == mu_n and pred_var == pytest.approx(sigma2 + tau_n2)
    # few points: near the prior mean; many points: the ML mean
    assert abs(gaussian_mean_posterior(x[:1], sigma2, mu0, 1e-4)[0] - mu0) < 1e-3
    big = rng.normal(2.0, 1.5, size=100_000)
    gaps = [abs(gaussian_mean_posterior(big[:n], sigma2, mu0, tau0_2)[0] - big[:n].mean()) for n in (10, 1000, 100_000)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 2e-4


def test_james_stein_beats_the_mean_in_three_or_more_dimensions():
    rng = np.random.default_rng(2)
    mu = rng.normal(size=10) * 0.5
    N, sigma = 5, 2.0
    reps = 4000
    samples = rng.normal(mu, sigma, size=(reps, N, 10))
    means = samples.mean(axis=1)
    js = np.array([james_stein(m, sigma**2 / N) for m in means])
    js_plus = np.array([james_stein(m, sigma**2 / N, positive_part=True) for m in means])

    def mse(est):
        return np.mean(np.sum((est - mu) ** 2, axis=1))

    assert mse(js) < 0.8 * mse(means)
    assert mse(js_plus) <= mse(js)
    # the factor: 1 - (n - 2) sigma2 / ||mu_hat||^2
    m = np.array([3.0, 4.0, 0.0])
    np.testing.assert_allclose(james_stein(m, 5.0), (1 - 5.0 / 25.0) * m)
    np.testing.assert_allclose(james_stein(m, 50.0, positive_part=True), 0.0)
    with pytest.raises(ValueError, match="dimension >= 3"):
        james_stein([1.0, 2.0], 1.0)


def test_bad_inputs():
    with pytest.raises(ValueError, match="non-negative integers"):
        geometric_ml([0, 1.5])
    with pytest.raises(ValueError, match="a must be a positive finite number"):
        geometric_posterior(D1, a=0.0)
    with pytest.raises(ValueError, match="must be a positive finite number"):
        gaussian_mean_posterior([1.0], sigma2=0.0)
