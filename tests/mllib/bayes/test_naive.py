"""NaiveBayes (catalogue 000 A5, 002 L2): agreement with scikit-learn GaussianNB / BernoulliNB / CategoricalNB
posteriors; the linear rule of seed 000 line 214 written out independently; ML counts; weights = repeated rows."""

import numpy as np
import pytest
from scipy.special import softmax
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB

from mllib.bayes import NaiveBayes


def _continuous(seed, n=200, d=5, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2, size=d) + rng.normal(size=(k, d))[y]
    return X, y


def _categorical(seed, n=300, d=4, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    m = rng.integers(2, 5, size=d)
    probs = [rng.dirichlet(np.ones(mi), size=k) for mi in m]
    X = np.column_stack([[rng.choice(mi, p=probs[i][c]) for c in y] for i, mi in enumerate(m)])
    X[: m.max()] = np.arange(m.max())[:, None] % m  # every category occurs at least once
    return X.astype(float), y


@pytest.mark.parametrize("k", [2, 3])
def test_gaussian_equals_sklearn(k):
    X, y = _continuous(k, k=k)
    w = np.random.default_rng(0).uniform(0.2, 2, size=y.size)
    for weights in [None, w]:
        ref = GaussianNB().fit(X, y, sample_weight=weights)
        model = NaiveBayes().fit(X, y, sample_weight=weights)
        np.testing.assert_allclose(model.theta_, ref.theta_, rtol=1e-12)
        np.testing.assert_allclose(model.var_, ref.var_, rtol=1e-10)
        np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-10)
        np.testing.assert_array_equal(model.predict(X), ref.predict(X))


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_bernoulli_equals_sklearn(alpha):
    X, y = _continuous(5)
    ref = BernoulliNB(alpha=alpha, binarize=0.3).fit(X, y)
    model = NaiveBayes(distribution="bernoulli", alpha=alpha, binarize=0.3).fit(X, y)
    np.testing.assert_allclose(model.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-10)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


def test_bernoulli_linear_rule_and_ml_frequencies():
    X, y = _continuous(6, k=2)
    B = (X > 0).astype(float)
    model = NaiveBayes(distribution="bernoulli", alpha=0.0).fit(X, y)
    q = np.array([B[y == c].mean(axis=0) for c in (0, 1)])  # ML: per-class frequency of ones
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), q, rtol=1e-12)
    a, b = np.log(q), np.log(1 - q)
    prior = np.log(np.bincount(y) / y.size)
    g = B @ (a - b).T + b.sum(axis=1) + prior  # seed 000 line 214
    np.testing.assert_allclose(model.predict_proba(X), softmax(g, axis=1), atol=1e-12)


@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_categorical_equals_sklearn(alpha):
    X, y = _categorical(7)
    ref = CategoricalNB(alpha=alpha).fit(X.astype(int), y)
    model = NaiveBayes(distribution="categorical", alpha=alpha).fit(X, y)
    for mine, theirs in zip(model.feature_log_prob_, ref.feature_log_prob_):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X.astype(int)), atol=1e-10)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X.astype(int)))


def test_categorical_tables_sum_to_one_and_unseen_values_are_marginalised():
    X, y = _categorical(8)
    model = NaiveBayes(distribution="categorical").fit(X, y)
    for log_prob in model.feature_log_prob_:
        np.testing.assert_allclose(np.exp(log_prob).sum(axis=1), 1.0)
    Xu = X[:5].copy()
    Xu[:, 0] = 99.0  # unseen: the row's posterior is that of the model without feature 0
    without = NaiveBayes(distribution="categorical").fit(X[:, 1:], y)
    np.testing.assert_allclose(model.predict_proba(Xu), without.predict_proba(X[:5, 1:]), atol=1e-12)


@pytest.mark.parametrize("distribution", ["gaussian", "bernoulli", "categorical"])
def test_integer_sample_weights_equal_repeating_rows(distribution):
    X, y = _categorical(9) if distribution == "categorical" else _continuous(9)
    w = np.random.default_rng(2).integers(1, 4, size=y.size)
    # var_smoothing scales with the unweighted feature variances (as in sklearn), so switch it off here
    a = NaiveBayes(distribution=distribution, var_smoothing=0.0).fit(X, y, sample_weight=w)
    b = NaiveBayes(distribution=distribution, var_smoothing=0.0).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-9)


def test_given_priors():
    X, y = _continuous(10)
    a = NaiveBayes().fit(X, y)
    b = NaiveBayes(priors=[0.2, 0.3, 0.5]).fit(X, y)
    ref = GaussianNB(priors=[0.2, 0.3, 0.5]).fit(X, y)
    np.testing.assert_allclose(b.predict_proba(X), ref.predict_proba(X), atol=1e-10)
    assert not np.allclose(a.predict_proba(X), b.predict_proba(X))


def test_errors():
    X, y = _continuous(11, n=30)
    with pytest.raises(ValueError, match="distribution must be one of"):
        NaiveBayes(distribution="poisson").fit(X, y)
    with pytest.raises(ValueError, match="alpha must be a number >= 0"):
        NaiveBayes(alpha=-1).fit(X, y)
    with pytest.raises(ValueError, match="set alpha > 0"):
        NaiveBayes(distribution="bernoulli", alpha=0.0, binarize=100.0).fit(X, y)
