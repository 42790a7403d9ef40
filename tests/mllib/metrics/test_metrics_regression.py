"""MSE, MAE and R^2: hand values, weights as repetitions, sklearn agreement, undefined R^2."""

import numpy as np
import pytest
import sklearn.metrics as skm

from mllib.metrics import mean_absolute_error, mean_squared_error, r2_score

SEEDS = range(20)
METRICS = [
    (mean_squared_error, skm.mean_squared_error),
    (mean_absolute_error, skm.mean_absolute_error),
    (r2_score, skm.r2_score),
]


def _random_regression(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    y = rng.normal(0, 3, n)
    y[:2] = [0.0, 1.0]  # never constant
    return y, y + rng.normal(0, 1.5, n), rng.uniform(0.0, 3.0, n)


def test_hand_values():
    y, pred = [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 4.0, 2.0]
    assert mean_squared_error(y, pred) == 1.25
    assert mean_absolute_error(y, pred) == 0.75
    assert r2_score(y, pred) == pytest.approx(1 - 5 / 5, abs=1e-15)  # SS_res = 5, SS_tot = 5
    assert r2_score(y, [2.5] * 4) == 0.0  # predicting the mean
    assert r2_score(y, y) == 1.0
    assert mean_squared_error([0.0, 2.0], [1.0, 1.0], sample_weight=[3.0, 1.0]) == 1.0
    assert mean_absolute_error([0.0, 4.0], [1.0, 1.0], sample_weight=[3.0, 1.0]) == pytest.approx(1.5, abs=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ours, reference", METRICS)
def test_matches_sklearn_with_and_without_weights(seed, ours, reference):
    y, pred, w = _random_regression(seed)
    assert ours(y, pred) == pytest.approx(reference(y, pred), abs=1e-12)
    assert ours(y, pred, sample_weight=w) == pytest.approx(reference(y, pred, sample_weight=w), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ours", [m for m, _ in METRICS])
def test_integer_weights_act_like_repetitions(seed, ours):
    y, pred, _ = _random_regression(seed)
    counts = np.random.default_rng(seed + 1).integers(1, 4, y.size)
    assert ours(y, pred, sample_weight=counts) == pytest.approx(
        ours(np.repeat(y, counts), np.repeat(pred, counts)), abs=1e-12
    )


def test_r2_undefined_for_constant_target():
    assert np.isnan(r2_score([0.1, 0.1, 0.1], [0.1, 0.1, 0.1]))
    assert np.isnan(r2_score([0.1, 0.1, 0.1], [0.0, 0.5, 0.1]))
    # constant over the samples that carry weight
    assert np.isnan(r2_score([0.1, 0.1, 7.0], [0.0, 0.5, 0.1], sample_weight=[1.0, 2.0, 0.0]))


@pytest.mark.parametrize("ours", [m for m, _ in METRICS])
def test_bad_inputs_raise(ours):
    with pytest.raises(ValueError, match="NaN"):
        ours([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        ours([1.0, 2.0], [1.0, np.inf])
    with pytest.raises(ValueError, match="entries, expected"):
        ours([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="1-D"):
        ours([[1.0, 2.0]], [[1.0, 2.0]])
    with pytest.raises(ValueError, match="sample_weight"):
        ours([1.0, 2.0], [1.0, 2.0], sample_weight=[1.0])
