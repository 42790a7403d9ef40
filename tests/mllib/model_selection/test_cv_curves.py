"""Validation and learning curves and the bootstrap bias/variance estimate (catalogue 2.5; D4:195-205,
361-377, 419-493)."""

import numpy as np
import pytest

from mllib.base import BaseEstimator, ClassifierMixin
from mllib.metrics import Scorer
from mllib.model_selection import (
    KFold,
    StratifiedKFold,
    bias_variance_estimate,
    evaluate_candidates,
    learning_curve,
    validation_curve,
)


def metric_scorer(func, greater_is_better=True, response="label"):
    return Scorer(
        getattr(func, "__name__", "metric"),
        lambda y, v, sample_weight=None: float(func(np.asarray(y), np.asarray(v))),
        greater_is_better,
        response,
    )


MSE = metric_scorer(lambda y, p: np.mean((y - p) ** 2), greater_is_better=False)
ACCURACY = metric_scorer(lambda y, p: np.mean(y == p))


class PolyRegressor(BaseEstimator):
    """Least-squares polynomial in the first column of X."""

    def __init__(self, degree=1):
        self.degree = degree

    def _design(self, X):
        return np.vander(np.asarray(X, dtype=float)[:, 0], self.degree + 1)

    def fit(self, X, y):
        self.coef_ = np.linalg.lstsq(self._design(X), np.asarray(y, dtype=float), rcond=None)[0]
        return self

    def predict(self, X):
        return self._design(X) @ self.coef_


class MeanRegressor(BaseEstimator):
    def __init__(self):
        pass

    def fit(self, X, y):
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


class Constant(BaseEstimator):
    def __init__(self, value=0.0):
        self.value = value

    def fit(self, X, y):
        self.fitted_ = True
        return self

    def predict(self, X):
        return np.full(len(X), self.value)


class NearestClassMean(ClassifierMixin, BaseEstimator):
    def __init__(self):
        pass

    def fit(self, X, y):
        codes = self._encode_targets(y)  # raises on a single class
        X = np.asarray(X, dtype=float)
        self.means_ = np.stack([X[codes == k].mean(0) for k in range(self.classes_.size)])
        return self

    def predict(self, X):
        d = ((np.asarray(X, dtype=float)[:, None, :] - self.means_[None]) ** 2).sum(-1)
        return self.classes_[np.argmin(d, axis=1)]


def noisy_sine(n=60, seed=0):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-1, 1, n))
    return x[:, None], np.sin(3 * x) + rng.normal(0, 0.2, n)


def test_validation_curve_shapes_and_nested_least_squares():
    """Training MSE is non-increasing in the degree on every fold (nested models); it matches a manual loop."""
    X, y = noisy_sine()
    cv = KFold(4, shuffle=True, random_state=0)
    degrees = [0, 1, 2, 3, 5, 7]
    train, valid = validation_curve(PolyRegressor(), X, y, "degree", degrees, cv, MSE)
    assert train.shape == valid.shape == (len(degrees), 4)
    assert np.all(np.diff(train, axis=0) <= 1e-9)
    for i, d in enumerate(degrees):
        for k, (tr, te) in enumerate(cv.split(X)):
            m = PolyRegressor(d).fit(X[tr], y[tr])
            assert valid[i, k] == pytest.approx(np.mean((m.predict(X[te]) - y[te]) ** 2))
    # underfitting degree 0 validates worse than the best degree
    assert valid.mean(1)[0] > valid.mean(1).min() + 0.05


def test_validation_curve_equals_evaluate_candidates():
    X, y = noisy_sine(seed=1)
    cv = KFold(3, shuffle=True, random_state=1)
    train, valid = validation_curve(PolyRegressor(), X, y, "degree", [1, 3], cv, MSE)
    folds = [(X[tr], y[tr], X[te], y[te]) for tr, te in cv.split(X)]
    res = evaluate_candidates(PolyRegressor(), [{"degree": 1}, {"degree": 3}], folds, MSE)
    assert np.allclose(valid, [r["valid_scores"] for r in res]) and np.allclose(train, [r["train_scores"] for r in res])


def test_learning_curve_sizes_and_interpolation_at_n_params():
    X, y = noisy_sine(seed=2)
    cv = KFold(3, shuffle=True, random_state=0)
    sizes, train, valid = learning_curve(PolyRegressor(degree=2), X, y, cv, [3, 10, 40], MSE, random_state=0)
    assert sizes.tolist() == [3, 10, 40]  # requested sizes are the sizes used
    assert train.shape == valid.shape == (3, 3)
    assert np.all(train[0] < 1e-20)  # 3 points, 3 parameters: interpolation
    assert np.all(train[2] > 1e-3)
    fr_sizes, _, _ = learning_curve(PolyRegressor(degree=1), X, y, cv, [0.1, 0.5, 1.0], MSE, random_state=0)
    assert fr_sizes.tolist() == [4, 20, 40]  # floor(fraction * 40), smallest train fold 40


def test_learning_curve_small_subsets_are_stratified():
    """Prefixes of the seeded order hold every class, so a 2-row subset of a balanced problem can be fitted."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 2)) + 2.0 * y[:, None]
    for seed in range(5):
        cv = StratifiedKFold(3, shuffle=True, random_state=seed)
        sizes, train, valid = learning_curve(NearestClassMean(), X, y, cv, [2, 4, 40], ACCURACY, random_state=seed)
        assert np.all(train[0] == 1.0)
        assert valid.shape == (3, 3)


def test_learning_curve_errors():
    X, y = noisy_sine()
    cv = KFold(3)
    with pytest.raises(ValueError, match="duplicate absolute sizes"):
        learning_curve(MeanRegressor(), X, y, cv, [0.01, 0.02], MSE)
    with pytest.raises(ValueError, match=r"in \[1, 40\]"):
        learning_curve(MeanRegressor(), X, y, cv, [41], MSE)
    with pytest.raises(ValueError, match=r"in \(0, 1\]"):
        learning_curve(MeanRegressor(), X, y, cv, [1.5], MSE)


def test_bias_variance_constant_and_mean_predictors():
    rng = np.random.default_rng(0)
    X_train, y_train = np.zeros((200, 1)), rng.normal(2.0, 1.0, 200)
    X_eval, y_eval = np.zeros((50, 1)), rng.normal(2.0, 1.0, 50)
    const = bias_variance_estimate(Constant(3.0), X_train, y_train, X_eval, y_eval, n_rounds=10, random_state=0)
    assert const["variance"] == 0.0
    assert const["bias"] == pytest.approx(np.mean((3.0 - y_eval) ** 2))
    mean = bias_variance_estimate(MeanRegressor(), X_train, y_train, X_eval, y_eval, n_rounds=400, random_state=1)
    # the variance of a bootstrap mean is var(y_train) / n (population variance), ~0.005 here
    assert mean["variance"] == pytest.approx(np.var(y_train) / 200, rel=0.2)
    assert mean["expected_loss"] == pytest.approx(mean["bias"] + mean["variance"], rel=1e-12)


def test_bias_variance_zero_one():
    y_eval = np.array([0, 0, 1, 1, 1])
    out = bias_variance_estimate(
        Constant(1),
        np.zeros((10, 1)),
        np.zeros(10),
        np.zeros((5, 1)),
        y_eval,
        n_rounds=5,
        loss="zero_one",
        random_state=0,
    )
    assert out["variance"] == 0.0 and out["bias"] == pytest.approx(0.4) and out["expected_loss"] == pytest.approx(0.4)
    with pytest.raises(ValueError, match="loss must be"):
        bias_variance_estimate(Constant(1), np.zeros((3, 1)), np.zeros(3), np.zeros((3, 1)), np.zeros(3), loss="hinge")
