"""MinMaxScaler and RobustScaler: agreement with scikit-learn to 1e-12 (feature ranges, quantile ranges, centring and
scaling switches), constant columns without division by zero, and inverse_transform round trips."""

import numpy as np
import pytest
from sklearn.preprocessing import MinMaxScaler as SkMinMaxScaler
from sklearn.preprocessing import RobustScaler as SkRobustScaler

from mllib.preprocessing import MinMaxScaler, RobustScaler


def _data(seed, n=70, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_t(3, size=(n, d)) * rng.uniform(1e-2, 1e3, size=d) + rng.normal(size=d) * 100
    return X, rng.normal(size=(20, d)) * 300


def test_min_max_hand_example():
    scaler = MinMaxScaler(feature_range=(-1, 1)).fit(np.array([[1.0], [3.0], [5.0]]))
    np.testing.assert_allclose(scaler.transform(np.array([[1.0], [4.0], [7.0]])), [[-1.0], [0.5], [2.0]], rtol=1e-15)


@pytest.mark.parametrize("feature_range", [(0.0, 1.0), (-1.0, 1.0), (2, 7.5)])
@pytest.mark.parametrize("seed", range(3))
def test_min_max_agrees_with_sklearn(feature_range, seed):
    X, X_new = _data(seed)
    ours = MinMaxScaler(feature_range=feature_range).fit(X)
    ref = SkMinMaxScaler(feature_range=feature_range).fit(X)
    for attr in ("data_min_", "data_max_", "data_range_", "scale_", "min_"):
        np.testing.assert_allclose(getattr(ours, attr), getattr(ref, attr), rtol=1e-12)
    np.testing.assert_allclose(ours.transform(X_new), ref.transform(X_new), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.inverse_transform(X_new), ref.inverse_transform(X_new), rtol=1e-12)
    train = ours.transform(X)
    np.testing.assert_allclose(train.min(axis=0), feature_range[0], atol=1e-12)
    np.testing.assert_allclose(train.max(axis=0), feature_range[1], atol=1e-12)


def test_robust_hand_example():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [100.0]])  # median 3, quartiles 2 and 4: the outlier does not matter
    scaler = RobustScaler().fit(X)
    assert scaler.center_[0] == 3.0 and scaler.scale_[0] == 2.0
    np.testing.assert_array_equal(scaler.transform(np.array([[5.0]])), [[1.0]])


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"quantile_range": (10.0, 90.0)},
        {"quantile_range": (0, 100)},
        {"with_centering": False},
        {"with_scaling": False},
    ],
)
@pytest.mark.parametrize("seed", range(3))
def test_robust_agrees_with_sklearn(kw, seed):
    X, X_new = _data(seed)
    ours = RobustScaler(**kw).fit(X)
    ref = SkRobustScaler(**kw).fit(X)
    if kw.get("with_centering", True):
        np.testing.assert_allclose(ours.center_, ref.center_, rtol=1e-12)
    if kw.get("with_scaling", True):
        np.testing.assert_allclose(ours.scale_, ref.scale_, rtol=1e-12)
    np.testing.assert_allclose(ours.transform(X_new), ref.transform(X_new), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.inverse_transform(X_new), ref.inverse_transform(X_new), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("make", [MinMaxScaler, RobustScaler])
def test_constant_and_mostly_constant_columns_keep_scale_one(make):
    X = np.column_stack([np.full(9, 4.0), np.r_[np.zeros(8), 1.0], np.arange(9.0)])
    scaler = make().fit(X)
    assert scaler.scale_[0] == 1.0
    out = scaler.transform(np.array([[4.0, 0.0, 3.0], [5.0, 1.0, 100.0]]))
    assert np.isfinite(out).all()
    assert out[1, 0] - out[0, 0] == 1.0  # a unit step stays a unit step
    if make is RobustScaler:
        assert scaler.scale_[1] == 1.0  # quartiles of a mostly-zero binary column coincide
    ref = (SkMinMaxScaler if make is MinMaxScaler else SkRobustScaler)().fit(X)
    np.testing.assert_allclose(scaler.transform(X), ref.transform(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "scaler",
    [
        MinMaxScaler(),
        MinMaxScaler((-3, 2)),
        RobustScaler(),
        RobustScaler(with_centering=False),
        RobustScaler(with_scaling=False),
    ],
)
def test_inverse_transform_round_trip(scaler):
    X, X_new = _data(7)
    X[:, 2] = 5.0
    scaler.fit(X)
    np.testing.assert_allclose(scaler.inverse_transform(scaler.transform(X_new)), X_new, rtol=1e-12, atol=1e-9)
    Z = np.random.default_rng(8).normal(size=(10, 5))
    np.testing.assert_allclose(scaler.transform(scaler.inverse_transform(Z)), Z, rtol=1e-12, atol=1e-11)


def test_errors():
    X = np.ones((3, 2))
    for bad in ((1, 1), (2, 0), (0,), "ab", None):
        with pytest.raises(ValueError, match="feature_range must"):
            MinMaxScaler(feature_range=bad).fit(X)
    for bad in ((75, 25), (-1, 50), (25, 101), (1, 2, 3)):
        with pytest.raises(ValueError, match="quantile_range must"):
            RobustScaler(quantile_range=bad).fit(X)
    with pytest.raises(ValueError, match="NaN or inf"):
        RobustScaler().fit(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="X has 3 features"):
        MinMaxScaler().fit(X).transform(np.ones((1, 3)))
