"""NearestCentroid (catalogue 000 C1): predictions equal argmin ||x - m_k|| computed directly and scikit-learn's
NearestCentroid; the two-class means-difference rule x^T (m1 - m2) + C with the midpoint threshold; isotropic
Gaussian posteriors (seed 001 D1:94-97); integer weights = repeated rows."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.neighbors import NearestCentroid as SkNearestCentroid

from mllib.discriminant import NearestCentroid


def _problem(seed, n=200, d=4, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    return rng.normal(size=(k, d))[y] + rng.normal(size=(n, d)), y


@pytest.mark.parametrize("k", [2, 3])
def test_predicts_the_nearest_class_mean_like_sklearn(k):
    X, y = _problem(k, k=k)
    model = NearestCentroid().fit(X, y + 5)
    means = np.array([X[y == c].mean(0) for c in range(k)])
    dist = ((X[:, None, :] - means[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(model.predict(X), 5 + dist.argmin(axis=1))
    np.testing.assert_array_equal(model.predict(X), SkNearestCentroid().fit(X, y + 5).predict(X))
    np.testing.assert_allclose(model.centroids_, means, rtol=1e-12)


def test_two_class_means_difference_rule():
    X, y = _problem(4, k=2)
    model = NearestCentroid().fit(X, y)
    m1, m2 = X[y == 0].mean(0), X[y == 1].mean(0)
    g = X @ (m2 - m1) - 0.5 * (m2 @ m2 - m1 @ m1)  # midpoint threshold
    np.testing.assert_allclose(model.decision_function(X), g / model.variance_, rtol=1e-10)
    np.testing.assert_array_equal(model.predict(X), (g > 0).astype(int))


def test_posteriors_are_isotropic_gaussian_bayes():
    X, y = _problem(5)
    model = NearestCentroid(priors="empirical").fit(X, y)
    s2 = sum(((X[y == c] - X[y == c].mean(0)) ** 2).sum() for c in range(3)) / X.size
    assert model.variance_ == pytest.approx(s2, rel=1e-12)
    dens = np.column_stack(
        [np.mean(y == c) * multivariate_normal(X[y == c].mean(0), s2 * np.eye(4)).pdf(X) for c in range(3)]
    )
    np.testing.assert_allclose(model.predict_proba(X), dens / dens.sum(1, keepdims=True), rtol=1e-9)


def test_integer_sample_weights_equal_repeating_rows():
    X, y = _problem(6, n=60)
    w = np.random.default_rng(0).integers(1, 4, size=60)
    a = NearestCentroid().fit(X, y, sample_weight=w)
    b = NearestCentroid().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-12)


def test_errors():
    X, y = _problem(7, n=30)
    with pytest.raises(ValueError, match="priors must be one of 'uniform', 'empirical'"):
        NearestCentroid(priors="flat").fit(X, y)
    with pytest.raises(ValueError, match="priors must be 3 positive"):
        NearestCentroid(priors=[1.0]).fit(X, y)
