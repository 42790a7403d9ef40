"""LogTarget: a regressor fitted on log(y + c), its predictions mapped back as means (Duan's smearing estimate, worked
by hand) or medians; c = 0 for a positive target and the smallest positive value with zeros; what the explainers read
is the log-scale model; hyperparameters are set through it, it fits from blocks as from a matrix, and it saves and
loads."""

from __future__ import annotations

import numpy as np
import pytest

from mllib import io as mlio
from mllib.base import RowBlocks, clone
from mllib.baseline import MeanRegressor
from mllib.explain import tree_shap
from mllib.gradient_boosting import GradientBoostingRegressor
from mllib.regression import LogTarget, Ridge, StandardizedTarget, fitted_scale_prediction, log_shift, returns_std


def multiplicative(seed=0, n=400):
    """y = exp(1 + x0 - 0.5 x1) e, log e ~ N(0, 0.5^2): positive, right-skewed, spread growing with the level."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.exp(1.0 + X[:, 0] - 0.5 * X[:, 1] + 0.5 * rng.normal(size=n))


def test_smearing_by_hand_gives_the_mean_the_median_and_the_shift():
    """A constant model of log y: y = 1, 4, 16, log y = 0, ln 4, ln 16, f = their mean = ln 4; residuals -ln 4, 0,
    ln 4, exp of them 1/4, 1, 4, S = (1/4 + 1 + 4) / 3 = 1.75. Median exp(ln 4) = 4; mean 4 x 1.75 = 7 = (1 + 4 +
    16) / 3, the sample mean (Duan's estimate of an intercept-only model is the sample mean exactly)."""
    X = np.zeros((3, 1))
    mean = LogTarget(MeanRegressor()).fit(X, [1.0, 4.0, 16.0])
    assert mean.shift_ == 0.0 and mean.smearing_ == pytest.approx(1.75)
    np.testing.assert_allclose(mean.predict_log(X[:1]), [np.log(4)])
    np.testing.assert_allclose(mean.predict(X[:1]), [7.0])
    median = LogTarget(MeanRegressor(), back_transform="median").fit(X, [1.0, 4.0, 16.0])
    assert median.smearing_ == 1.0
    np.testing.assert_allclose(median.predict(X[:1]), [4.0])
    # with a zero: c = the smallest positive value, 1: y + 1 = 1, 2, 4, f = ln 2, exp(residuals) 1/2, 1, 2, S = 7/6;
    # mean 2 x 7/6 - 1 = 4/3 = (0 + 1 + 3) / 3, median 2 - 1 = 1
    shifted = LogTarget(MeanRegressor()).fit(X, [0.0, 1.0, 3.0])
    assert shifted.shift_ == 1.0 and shifted.smearing_ == pytest.approx(7 / 6)
    np.testing.assert_allclose(shifted.predict(X[:1]), [4 / 3])
    np.testing.assert_allclose(shifted.quantile_from_log(shifted.predict_log(X[:1])), [1.0])


def test_shift_is_zero_for_positive_values_and_the_smallest_positive_one_with_zeros():
    assert log_shift([0.5, 2.0]) == 0.0
    assert log_shift([0.0, 0.25, 3.0]) == 0.25  # unit-free: the same transform in dollars and in cents
    assert log_shift([0.0, 0.0]) == 1.0
    assert LogTarget(MeanRegressor(), shift=2.0).fit(np.zeros((2, 1)), [0.0, 1.0]).shift_ == 2.0


def test_a_negative_target_is_refused_by_the_shared_check():
    with pytest.raises(ValueError, match=r"^LogTarget: the smallest y \(shift None\) must be a finite number >= 0"):
        LogTarget(MeanRegressor()).fit(np.zeros((2, 1)), [-1.0, 2.0])
    with pytest.raises(ValueError, match=r"^LogTarget: the smallest y \+ shift must be a positive number, got 0.0"):
        LogTarget(MeanRegressor(), shift=1.0).fit(np.zeros((2, 1)), [-1.0, 2.0])
    with pytest.raises(ValueError, match="back_transform must be one of"):
        LogTarget(MeanRegressor(), back_transform="mode").fit(np.zeros((2, 1)), [1.0, 2.0])


def test_predictions_are_never_negative_and_beat_the_plain_fit_where_the_error_is_multiplicative():
    X, y = multiplicative()
    log = LogTarget(StandardizedTarget(Ridge(lam=1e-3))).fit(X[:300], y[:300])
    plain = StandardizedTarget(Ridge(lam=1e-3)).fit(X[:300], y[:300])
    assert (log.predict(X) > 0).all() and (plain.predict(X) < 0).any()
    log_error = np.mean((log.predict(X[300:]) - y[300:]) ** 2)
    assert log_error < np.mean((plain.predict(X[300:]) - y[300:]) ** 2)
    # the smearing estimate near E[exp(e)] = exp(0.5^2 / 2) = 1.133 for normal log-errors of sd 0.5
    assert log.smearing_ == pytest.approx(np.exp(0.125), abs=0.05)
    np.testing.assert_allclose(fitted_scale_prediction(log, X), log.regressor_.predict(X))
    np.testing.assert_array_equal(fitted_scale_prediction(plain, X), plain.predict(X))
    assert not returns_std(log)


def test_explainers_read_the_log_scale_model():
    X, y = multiplicative()
    model = LogTarget(StandardizedTarget(GradientBoostingRegressor(max_iter=20))).fit(X, y)
    out = tree_shap(model, X[:10])
    np.testing.assert_allclose(out["values"].sum(axis=1)[:, 0] + out["expected_value"][0], model.predict_log(X[:10]))
    linear = LogTarget(StandardizedTarget(Ridge())).fit(X, y)
    np.testing.assert_allclose(X @ linear.coef_ + linear.intercept_, linear.predict_log(X), rtol=1e-10)
    assert not hasattr(LogTarget(StandardizedTarget(Ridge())), "coef_")  # unfitted: nothing to read


def test_hyperparameters_are_set_through_the_wrapper_blocks_and_persistence(tmp_path):
    X, y = multiplicative()
    model = clone(LogTarget(StandardizedTarget(Ridge()), shift=0.0)).set_params(lam=7.0, back_transform="median")
    assert model.regressor.regressor.lam == 7.0 and model.back_transform == "median"
    model = LogTarget(StandardizedTarget(Ridge(lam=3.0))).fit(X, y)
    blocks = LogTarget(StandardizedTarget(Ridge(lam=3.0))).fit_blocks(RowBlocks.of(X, y, n_blocks=3))
    np.testing.assert_allclose(blocks.predict(X), model.predict(X), rtol=1e-9)
    assert blocks.smearing_ == pytest.approx(model.smearing_, rel=1e-12) and blocks.shift_ == model.shift_ == 0.0
    np.testing.assert_array_equal(blocks.log_range_, model.log_range_)
    mlio.save(model, tmp_path / "m")
    np.testing.assert_array_equal(mlio.load(tmp_path / "m").predict(X), model.predict(X))


def test_a_linear_log_model_never_extrapolates_beyond_the_training_targets():
    """exp of a linear f grows without bound: a row far outside the training X (a width typed 58.9 for 5.89) would be
    priced at exp(f) = 10^k. f is held in the training range of log(y + c) before exp, so the mean prediction is at
    most the largest training y times S and the median at most the largest y; inside the range nothing changes."""
    X, y = multiplicative()
    model = LogTarget(StandardizedTarget(Ridge(lam=1.0))).fit(X, y)
    np.testing.assert_array_equal(model.log_range_, [np.log(y.min()), np.log(y.max())])
    far = np.array([[60.0, 0.0, 0.0], [-60.0, 0.0, 0.0]])
    assert model.predict_log(far)[0] > 50 > -50 > model.predict_log(far)[1]  # f itself is left alone (SHAP adds up)
    np.testing.assert_allclose(model.predict(far), [y.max() * model.smearing_, y.min() * model.smearing_], rtol=1e-12)
    np.testing.assert_allclose(model.quantile_from_log(model.predict_log(far)), [y.max(), y.min()], rtol=1e-12)
    inside = (model.predict_log(X) > model.log_range_[0]) & (model.predict_log(X) < model.log_range_[1])
    expected = np.exp(model.predict_log(X)[inside]) * model.smearing_
    np.testing.assert_allclose(model.predict(X)[inside], expected, rtol=1e-14)
