"""StandardScaler: catalogue oracle (item 15: [1, 2, 3, 4] -> [-1.341641, -0.447214, 0.447214, 1.341641] with the
population std 1.118034), constant columns, weights, inverse_transform round trip, agreement with scikit-learn."""

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from mllib.preprocessing import StandardScaler


def test_catalogue_oracle_population_std():
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    scaler = StandardScaler().fit(X)
    np.testing.assert_allclose(scaler.mean_, [2.5], rtol=0, atol=0)
    np.testing.assert_allclose(scaler.scale_, [1.118034], atol=5e-7)
    np.testing.assert_allclose(scaler.var_, [1.25], rtol=1e-15)
    out = scaler.transform(X)
    np.testing.assert_allclose(out.ravel(), [-1.341641, -0.447214, 0.447214, 1.341641], atol=5e-7)
    np.testing.assert_allclose(out.ravel(), np.array([-3, -1, 1, 3]) / np.sqrt(5), rtol=1e-14)
    # not the sample std (N - 1): that would give [-1.161895, -0.387298, ...]
    assert not np.allclose(out.ravel()[0], -1.161895, atol=1e-3)


def test_transformed_training_data_has_zero_mean_and_unit_population_variance():
    X = np.random.default_rng(0).normal(size=(50, 4)) * [1e-3, 1.0, 1e3, 7.0] + [5.0, -2.0, 1e4, 0.0]
    Z = StandardScaler().fit_transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0), 1.0, rtol=1e-12)


def test_constant_column_is_centred_but_not_scaled():
    X = np.array([[5.0, 1.0], [5.0, 3.0], [5.0, 2.0]])
    scaler = StandardScaler().fit(X)
    assert scaler.scale_[0] == 1.0
    out = scaler.transform(np.array([[5.0, 2.0], [6.0, 2.0]]))
    np.testing.assert_array_equal(out[:, 0], [0.0, 1.0])
    assert np.isfinite(out).all()


def test_with_mean_and_with_std_switches():
    X = np.array([[1.0], [3.0]])
    np.testing.assert_array_equal(StandardScaler(with_mean=False).fit_transform(X), [[1.0], [3.0]])
    np.testing.assert_array_equal(StandardScaler(with_std=False).fit_transform(X), [[-1.0], [1.0]])
    np.testing.assert_array_equal(StandardScaler(with_mean=False, with_std=False).fit_transform(X), X)


def test_statistics_come_from_fit_rows_only():
    scaler = StandardScaler().fit(np.array([[0.0], [2.0]]))
    np.testing.assert_array_equal(scaler.transform(np.array([[1e9], [1.0]])), [[1e9 - 1.0], [0.0]])


def test_integer_sample_weights_equal_repeating_rows():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 3))
    w = rng.integers(0, 4, size=20)
    w[0] = 1
    weighted = StandardScaler().fit(X, sample_weight=w)
    repeated = StandardScaler().fit(np.repeat(X, w, axis=0))
    np.testing.assert_allclose(weighted.mean_, repeated.mean_, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(weighted.var_, repeated.var_, rtol=1e-12)


@pytest.mark.parametrize("with_mean", [True, False])
@pytest.mark.parametrize("with_std", [True, False])
def test_inverse_transform_round_trip(with_mean, with_std):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3)) * [0.01, 1.0, 100.0] + [1.0, -50.0, 3.0]
    X[:, 1] = 7.0  # a constant column too
    scaler = StandardScaler(with_mean=with_mean, with_std=with_std).fit(X)
    X_new = rng.normal(size=(10, 3))
    np.testing.assert_allclose(scaler.inverse_transform(scaler.transform(X_new)), X_new, rtol=1e-13, atol=1e-13)
    Z = rng.normal(size=(10, 3))
    np.testing.assert_allclose(scaler.transform(scaler.inverse_transform(Z)), Z, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_sklearn_on_random_data(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, 6)) * rng.uniform(1e-2, 1e3, size=6) + rng.normal(size=6) * 100
    X_new = rng.normal(size=(15, 6)) * 50
    w = rng.uniform(0.1, 3.0, size=80)
    for kw in ({}, {"with_mean": False}, {"with_std": False}):
        for sw in (None, w):
            ours = StandardScaler(**kw).fit(X, sample_weight=sw)
            ref = SkStandardScaler(**kw).fit(X, sample_weight=sw)
            np.testing.assert_allclose(ours.transform(X_new), ref.transform(X_new), rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(
                ours.inverse_transform(X_new), ref.inverse_transform(X_new), rtol=1e-12, atol=1e-12
            )
            if kw.get("with_std", True):
                np.testing.assert_allclose(ours.scale_, ref.scale_, rtol=1e-12)
                np.testing.assert_allclose(ours.var_, ref.var_, rtol=1e-12)
            if kw.get("with_mean", True):
                np.testing.assert_allclose(ours.mean_, ref.mean_, rtol=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="NaN or inf"):
        StandardScaler().fit(np.array([[1.0], [np.nan]]))
    with pytest.raises(ValueError, match="non-negative"):
        StandardScaler().fit(np.ones((2, 1)), sample_weight=[1.0, -1.0])
    scaler = StandardScaler().fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="Z contains NaN"):
        scaler.inverse_transform(np.array([[np.nan, 1.0]]))
