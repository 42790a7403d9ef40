"""Gaussian mixture by EM (seed 000 catalogue K2-K5; seed 002 catalogue L4; seed 001-003-004 catalogue 9.2).

Oracles: the log-likelihood never decreases across EM iterations (every covariance type); scikit-learn's
GaussianMixture started from the same parameters (weights_init / means_init / precisions_init = our k-means
initialisation) reaches the same log-likelihood, weights, means and covariances within 1e-6; densities match
scipy's multivariate normal; the history is the log-likelihood of the previous iterate (score of a model with one
iteration fewer); K = 1 gives the ML mean and covariance; separated 1-D blobs N(-5, 1), N(5, 1) give means +-5 and
weights 1/2; hard EM with a fixed shared spherical covariance and equal weights makes exactly k-means' assignments
from the same start (checked on the EM primitives e_step / m_step, driven by a loop in the test: GaussianMixture
itself always re-estimates the weights and covariances, so it has no fixed-covariance mode); hard EM's parameters
are the per-cluster ML estimates of its own partition; integer sample weights == repeated rows."""

import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.mixture import GaussianMixture as SkGaussianMixture

from mllib.cluster import GaussianMixture, KMeans
from mllib.cluster.gaussian_mixture import e_step, m_step


def _mixture_sample(seed=0, n=(120, 80, 100)):
    rng = np.random.default_rng(seed)
    means = np.array([[0.0, 0.0, 0.0], [4.0, 1.0, -1.0], [-1.0, 4.0, 2.0]])
    parts = []
    for k, size in enumerate(n):
        A = rng.normal(size=(3, 3)) * 0.7 + np.eye(3) * 0.5
        parts.append(rng.normal(size=(size, 3)) @ A + means[k])
    return np.vstack(parts)


@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical"])
def test_log_likelihood_never_decreases(covariance_type):
    X = _mixture_sample(1)
    for init in ("kmeans", "random"):
        model = GaussianMixture(
            4, covariance_type=covariance_type, init_params=init, tol=0.0, max_iter=60, random_state=2
        ).fit(X)
        L = model.log_likelihood_history_
        assert len(L) == 60 and model.n_iter_ == 60 and not model.converged_
        assert (np.diff(L) >= -1e-12 * np.abs(L).max()).all()
        assert L[-1] > L[0]


@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical"])
def test_matches_sklearn_from_the_same_initial_parameters(covariance_type):
    X = _mixture_sample(2)
    K, reg, seed, iters = 3, 1e-4, 7, 25
    ours = GaussianMixture(
        K, covariance_type=covariance_type, reg_covar=reg, tol=0.0, max_iter=iters, random_state=seed
    ).fit(X)
    # our initialisation, recomputed independently: k-means labels -> per-cluster ML parameters (+ reg_covar)
    labels = KMeans(K, n_init=1, random_state=np.random.default_rng(seed)).fit(X).labels_
    weights = np.bincount(labels) / len(X)
    means = np.array([X[labels == k].mean(0) for k in range(K)])
    covs = np.array([np.cov(X[labels == k].T, bias=True) + reg * np.eye(3) for k in range(K)])
    precisions = {
        "full": np.linalg.inv(covs),
        "diag": 1 / np.array([np.diag(c) for c in covs]),
        "spherical": 1 / np.array([np.diag(c).mean() for c in covs]),
    }[covariance_type]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns that tol = 0 did not converge
        ref = SkGaussianMixture(
            K,
            covariance_type=covariance_type,
            reg_covar=reg,
            tol=0.0,
            max_iter=iters,
            weights_init=weights,
            means_init=means,
            precisions_init=precisions,
        ).fit(X)
    assert ours.log_likelihood_ == pytest.approx(ref.lower_bound_, rel=1e-6)
    np.testing.assert_allclose(ours.weights_, ref.weights_, rtol=1e-6)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.covariances_, ref.covariances_, rtol=1e-6, atol=1e-8)
    assert ours.score(X) == pytest.approx(ref.score(X), rel=1e-6)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical"])
def test_densities_responsibilities_and_history_are_consistent(covariance_type):
    X = _mixture_sample(3)
    model = GaussianMixture(3, covariance_type=covariance_type, tol=0.0, max_iter=5).fit(X)
    d = X.shape[1]
    covs = {"full": lambda c: c, "diag": np.diag, "spherical": lambda c: c * np.eye(d)}[covariance_type]
    dens = np.column_stack(
        [
            w * multivariate_normal(m, covs(c)).pdf(X)
            for w, m, c in zip(model.weights_, model.means_, model.covariances_)
        ]
    )
    np.testing.assert_allclose(model.score_samples(X), np.log(dens.sum(1)), rtol=1e-10, atol=1e-9)
    P = model.predict_proba(X)
    np.testing.assert_allclose(P, dens / dens.sum(1, keepdims=True), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(P.sum(1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), np.argmax(P, axis=1))
    assert model.weights_.sum() == pytest.approx(1.0)
    # the history holds the log-likelihood of the iterate before each M-step: one more iteration sees ours
    longer = GaussianMixture(3, covariance_type=covariance_type, tol=0.0, max_iter=6).fit(X)
    assert longer.log_likelihood_history_[-1] == pytest.approx(model.score(X), rel=1e-12)
    np.testing.assert_allclose(longer.log_likelihood_history_[:-1], model.log_likelihood_history_, rtol=1e-13)


def test_one_component_is_the_ml_gaussian():
    X = _mixture_sample(4)
    model = GaussianMixture(1, reg_covar=0.0).fit(X)
    np.testing.assert_allclose(model.means_[0], X.mean(0), rtol=1e-12)
    np.testing.assert_allclose(model.covariances_[0], np.cov(X.T, bias=True), rtol=1e-10)
    assert model.converged_ and model.weights_[0] == pytest.approx(1.0)


def test_separated_one_dimensional_blobs():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-5, 1, 500), rng.normal(5, 1, 500)][:, None]
    model = GaussianMixture(2, random_state=0).fit(X)
    order = np.argsort(model.means_[:, 0])
    np.testing.assert_allclose(model.means_[order, 0], [-5, 5], atol=0.15)
    np.testing.assert_allclose(model.weights_, 0.5, atol=0.01)
    np.testing.assert_allclose(model.covariances_[order, 0, 0], 1.0, atol=0.15)


def test_hard_em_with_fixed_spherical_shared_covariance_is_kmeans():
    """The identity on the EM primitives: classification EM whose M-step re-estimates the means only (the weights
    1/K and the spherical variance s^2 held fixed), written out below with e_step / m_step, is Lloyd's algorithm."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(250, 3)) @ rng.normal(size=(3, 3))
    start = X[rng.choice(250, size=5, replace=False)]
    kmeans = KMeans(5, init=start, tol=0.0, max_iter=200).fit(X)
    # classification EM: E-step argmax of tau_k N(x | mu_k, s^2 I) with tau_k = 1/K and s^2 fixed; M-step means only
    weights, variances = np.full(5, 0.2), np.full(5, 0.7)
    means, labels, steps = start, None, 0
    while steps < 200:
        log_resp, _ = e_step(X, weights, means, variances, "spherical")
        new = np.argmax(log_resp, axis=1)
        if labels is not None and np.array_equal(new, labels):
            break
        labels, steps = new, steps + 1
        means = m_step(X, np.eye(5)[labels], "spherical", 0.0)[1]
    np.testing.assert_array_equal(labels, kmeans.labels_)
    np.testing.assert_allclose(means, kmeans.cluster_centers_, rtol=1e-10)
    assert steps == kmeans.n_iter_


def test_hard_em_parameters_are_the_ml_estimates_of_its_partition():
    X = _mixture_sample(6)
    model = GaussianMixture(3, assignment="hard", reg_covar=0.0, tol=0.0, max_iter=500, random_state=1).fit(X)
    assert model.converged_
    labels = model.predict(X)
    for k in range(3):
        np.testing.assert_allclose(model.means_[k], X[labels == k].mean(0), rtol=1e-9)
        np.testing.assert_allclose(model.covariances_[k], np.cov(X[labels == k].T, bias=True), rtol=1e-8)
        assert model.weights_[k] == pytest.approx(np.mean(labels == k))


@pytest.mark.parametrize(
    "assignment, covariance_type", [("soft", "full"), ("soft", "diag"), ("hard", "full"), ("hard", "spherical")]
)
def test_integer_sample_weights_equal_repeated_rows(assignment, covariance_type):
    X = _mixture_sample(8)
    counts = np.random.default_rng(9).integers(0, 4, size=len(X))
    kwargs = dict(covariance_type=covariance_type, assignment=assignment, tol=1e-13, max_iter=2000, random_state=3)
    weighted = GaussianMixture(3, **kwargs).fit(X, sample_weight=counts)
    repeated = GaussianMixture(3, **kwargs).fit(np.repeat(X, counts, axis=0))
    assert weighted.converged_ and repeated.converged_
    order_w, order_r = np.argsort(weighted.means_[:, 0]), np.argsort(repeated.means_[:, 0])
    np.testing.assert_allclose(weighted.means_[order_w], repeated.means_[order_r], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(weighted.weights_[order_w], repeated.weights_[order_r], rtol=1e-6)
    np.testing.assert_allclose(weighted.covariances_[order_w], repeated.covariances_[order_r], rtol=1e-6, atol=1e-8)
    assert weighted.log_likelihood_ == pytest.approx(repeated.log_likelihood_, rel=1e-9)
    # the weighted log-likelihood is the average over the repeated rows
    assert weighted.log_likelihood_ == pytest.approx(weighted.score(np.repeat(X, counts, axis=0)), rel=1e-9)
    # and the weights matter
    assert not np.allclose(np.sort(GaussianMixture(3, **kwargs).fit(X).weights_), np.sort(weighted.weights_))


def test_reg_covar_keeps_collapsed_components_finite():
    X = np.repeat(np.array([[0.0, 0.0], [1.0, 1.0]]), 10, axis=0)
    model = GaussianMixture(3, reg_covar=1e-3, init_params="random").fit(X)
    assert np.isfinite(model.score_samples(X)).all()
    assert (np.linalg.eigvalsh(model.covariances_) > 0).all()


def test_restarts_keep_the_highest_likelihood():
    X = _mixture_sample(7)
    one = GaussianMixture(5, n_init=1, init_params="random", random_state=4).fit(X)
    many = GaussianMixture(5, n_init=4, init_params="random", random_state=4).fit(X)
    assert many.log_likelihood_ >= one.log_likelihood_


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"covariance_type": "tied"}, "covariance_type must be one of"),
        ({"assignment": "fuzzy"}, "assignment must be one of"),
        ({"init_params": "k-means++"}, "init_params must be one of"),
        ({"n_components": 0}, "n_components must be an integer"),
        ({"reg_covar": -1.0}, "reg_covar must be a number >= 0"),
        ({"max_iter": 0}, "max_iter must be an integer >= 1"),
    ],
)
def test_bad_hyperparameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GaussianMixture(**kwargs).fit(_mixture_sample())
