"""StandardizedTarget: predictions are mean + scale * f(x) of a model fitted on the standardized target; ridge with an
unpenalized intercept predicts the same either way; a kernel model without an intercept is fixed by it; what the
explainers read (coef_, intercept_, tree_ensemble, the predictive std) is in target units; hyperparameters are set
through the wrapper, and it saves and loads."""

from __future__ import annotations

import numpy as np
import pytest

from mllib import io as mlio
from mllib.base import clone
from mllib.explain import tree_shap
from mllib.gradient_boosting import GradientBoostingRegressor
from mllib.kernels import KernelRidge
from mllib.metrics import r2_score
from mllib.regression import BayesianLinearRegression, Ridge, StandardizedTarget, returns_std


def data(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, 50 + 4 * X[:, 0] - 2 * X[:, 1] + rng.normal(size=n)


def test_ridge_with_an_intercept_predicts_the_same():
    X, y = data()
    np.testing.assert_allclose(
        StandardizedTarget(Ridge(lam=3.0)).fit(X, y).predict(X), Ridge(lam=3.0).fit(X, y).predict(X), rtol=1e-10
    )


def test_a_model_without_intercept_fits_a_shifted_target():
    X, y = data()
    plain = r2_score(y, KernelRidge().fit(X, y).predict(X))
    wrapped = r2_score(y, StandardizedTarget(KernelRidge()).fit(X, y).predict(X))
    assert wrapped > 0.9 > plain


def test_linear_coefficients_and_predictive_std_are_in_target_units():
    X, y = data()
    model = StandardizedTarget(BayesianLinearRegression()).fit(X, y)
    np.testing.assert_allclose(X @ model.coef_ + model.intercept_, model.predict(X), rtol=1e-12)
    mean, std = model.predict(X, return_std=True)
    inner_mean, inner_std = model.regressor_.predict(X, return_std=True)
    np.testing.assert_allclose(std, model.scale_ * inner_std) and np.testing.assert_allclose(mean, model.predict(X))
    assert returns_std(model) and not returns_std(StandardizedTarget(Ridge()).fit(X, y))
    assert not hasattr(StandardizedTarget(KernelRidge()).fit(X, y), "coef_")


def test_tree_shap_of_the_wrapper_adds_up_to_its_prediction():
    X, y = data()
    model = StandardizedTarget(GradientBoostingRegressor(max_iter=20)).fit(X, y)
    out = tree_shap(model, X[:10])
    np.testing.assert_allclose(out["prediction"][:, 0], model.predict(X[:10]), rtol=1e-10)
    np.testing.assert_allclose(
        out["values"].sum(axis=1)[:, 0] + out["expected_value"][0], model.predict(X[:10]), rtol=1e-10
    )


def test_hyperparameters_are_set_through_the_wrapper_and_it_saves(tmp_path):
    X, y = data()
    model = clone(StandardizedTarget(Ridge())).set_params(lam=7.0)
    assert model.regressor.lam == 7.0 and model.get_params(deep=False) == {"regressor": model.regressor}
    with pytest.raises(ValueError, match="no parameter"):
        StandardizedTarget(Ridge()).set_params(depth=3)
    model.fit(X, y)
    mlio.save(model, tmp_path / "m")
    np.testing.assert_array_equal(mlio.load(tmp_path / "m").predict(X), model.predict(X))
