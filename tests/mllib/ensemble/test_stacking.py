"""Stacking: the meta-model's inputs are out-of-fold (a memorising base model scores no better than chance on them,
while on its own training rows it is perfect), grouped inner folds keep a group's twins on one side, the fitted
stack predicts well where one base model cannot, and it saves and loads without pickle."""

from __future__ import annotations

import numpy as np
import pytest

from mllib import io as mlio
from mllib.ensemble import StackingClassifier, StackingRegressor


def noise_labels(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)), rng.integers(0, 2, size=n)


def test_meta_features_are_out_of_fold():
    X, y = noise_labels()
    stack = StackingClassifier(estimators=["knn"], estimator_params={"knn": {"n_neighbors": 1}}, cv=5).fit(X, y)
    in_sample = stack.estimators_[0].predict_proba(X)[:, 1]
    assert np.mean((in_sample > 0.5) == y) == 1.0  # 1-NN memorises its training rows
    agreement = np.mean((stack.meta_features_[:, 0] > 0.5) == y)
    assert abs(agreement - 0.5) < 0.1, agreement  # labels are noise: out of fold, 1-NN is a coin flip


def test_groups_keep_twins_on_one_side_of_every_inner_fold():
    X, y = noise_labels(200)
    X, y = np.repeat(X, 2, axis=0), np.repeat(y, 2)  # every row twice: a group of two identical rows
    groups = np.repeat(np.arange(200), 2)
    params = {"estimators": ["knn"], "estimator_params": {"knn": {"n_neighbors": 1}}, "cv": 5}
    ungrouped = StackingClassifier(**params).fit(X, y)
    grouped = StackingClassifier(**params).fit(X, y, groups=groups)
    # without groups a row's twin is usually in the fitting part, and 1-NN copies its label
    assert np.mean((ungrouped.meta_features_[:, 0] > 0.5) == y) > 0.7
    assert abs(np.mean((grouped.meta_features_[:, 0] > 0.5) == y) - 0.5) < 0.1


def test_stack_combines_models_and_round_trips(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 4))
    y = ((X[:, 0] + X[:, 1] > 0) ^ (X[:, 2] > 1)).astype(int)
    stack = StackingClassifier(estimators=["logistic_regression", "decision_tree"], cv=4, random_state=0).fit(X, y)
    P = stack.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert stack.meta_features_.shape == (600, 2)
    mlio.save(stack, tmp_path / "stack")
    np.testing.assert_array_equal(mlio.load(tmp_path / "stack").predict_proba(X), P)
    three = StackingClassifier(cv=3).fit(X, np.digitize(X[:, 0], [-0.5, 0.5]))
    assert three.meta_features_.shape == (600, 6)  # K probabilities per base model


def test_regressor_meta_features_are_out_of_fold_predictions():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3))
    y = 2 * X[:, 0] + rng.normal(size=300)
    stack = StackingRegressor(
        estimators=["knn_regressor"], estimator_params={"knn_regressor": {"n_neighbors": 1}}, cv=5
    ).fit(X, y)
    assert np.allclose(stack.estimators_[0].predict(X), y)  # memorised in sample
    assert not np.allclose(stack.meta_features_[:, 0], y)  # but not out of fold
    assert np.corrcoef(stack.predict(X), y)[0, 1] > 0.8


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"estimators": ["ridge"]}, "unknown classifier \\(estimators entry\\) .ridge."),
        ({"estimators": ["stacking"]}, "cannot be stacking itself"),
        ({"estimators": ["knn"], "estimator_params": {"svm": {}}}, "not in estimators"),
    ],
)
def test_bad_settings_are_named(kwargs, message):
    X, y = noise_labels(60)
    with pytest.raises(ValueError, match=message):
        StackingClassifier(**kwargs).fit(X, y)
