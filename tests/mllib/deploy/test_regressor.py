"""DeployedRegressor: the chain features -> model, the CV+ and split intervals of its parts, the model's own
Gaussian interval where it has one, a bit-identical save / load round trip, and inconsistent parts refused."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from mllib import io as mlio
from mllib.conformal import CVPlusRegressor, SplitConformalRegressor
from mllib.deploy import DeployedRegressor
from mllib.preprocessing import StandardScaler
from mllib.regression import BayesianLinearRegression, Ridge


def parts(model_cls=Ridge, K=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(90, 3)) * [1, 10, 100]
    y = X @ [1.0, 0.1, 0.01] + rng.normal(size=90)
    fold = np.arange(90) % K
    scalers = [StandardScaler().fit(X[fold != k]) for k in range(K)]
    models = [model_cls().fit(scalers[k].transform(X[fold != k]), y[fold != k]) for k in range(K)]
    oof = np.empty(90)
    for k in range(K):
        oof[fold == k] = models[k].predict(scalers[k].transform(X[fold == k]))
    features = StandardScaler().fit(X)
    model = model_cls().fit(features.transform(X), y)
    return (
        X,
        y,
        DeployedRegressor(
            features,
            model,
            SplitConformalRegressor(0.8).fit(y, oof),
            CVPlusRegressor(0.8).fit(y, oof, fold),
            scalers,
            models,
        ).fit(),
    )


def test_chain_and_intervals():
    X, y, deployed = parts()
    np.testing.assert_array_equal(deployed.predict(X), deployed.model.predict(deployed.features.transform(X)))
    lo, hi = deployed.predict_interval(X)
    folds = np.column_stack([m.predict(f.transform(X)) for f, m in zip(deployed.fold_features, deployed.fold_models)])
    expected = deployed.cv_plus.predict_interval(folds)
    np.testing.assert_array_equal(lo, expected[0]) and np.testing.assert_array_equal(hi, expected[1])
    lo, hi = deployed.predict_interval(X, method="split")
    np.testing.assert_allclose(hi - deployed.predict(X), deployed.split.threshold_)
    assert deployed.model_interval(X) is None  # ridge has no predictive distribution


def test_bayesian_model_gives_its_own_gaussian_interval():
    X, _, deployed = parts(BayesianLinearRegression)
    mean, std = deployed.model.predict(deployed.features.transform(X), return_std=True)
    lo, hi = deployed.model_interval(X)
    np.testing.assert_allclose(hi - mean, norm.ppf(0.9) * std)  # coverage 0.8: z_{0.9}


def test_save_and_load_give_the_same_intervals_bit_for_bit(tmp_path):
    X, _, deployed = parts()
    mlio.save(deployed, tmp_path / "regressor")
    loaded = mlio.load(tmp_path / "regressor")
    for a, b in zip(deployed.predict_interval(X), loaded.predict_interval(X)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(deployed.predict(X), loaded.predict(X))


def test_inconsistent_parts_are_refused():
    X, y, deployed = parts()
    with pytest.raises(ValueError, match="interval_method"):
        DeployedRegressor(deployed.features, deployed.model, deployed.split, interval_method="bootstrap").fit()
    with pytest.raises(ValueError, match="needs cv_plus"):
        DeployedRegressor(deployed.features, deployed.model, deployed.split).fit()
    with pytest.raises(ValueError, match="3 folds but there are 3 fold transformers and 2 fold models"):
        DeployedRegressor(
            deployed.features,
            deployed.model,
            deployed.split,
            deployed.cv_plus,
            deployed.fold_features,
            deployed.fold_models[:2],
        ).fit()
    assert DeployedRegressor(deployed.features, deployed.model, deployed.split, interval_method="split").fit()
