"""reliability_curve, ECE and MCE: the catalogue's oracles, the edge rule, empty and merged bins, sklearn agreement."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mllib.calibration import expected_calibration_error, maximum_calibration_error, reliability_curve

KEYS = ("bin_lower", "bin_upper", "count", "mean_predicted", "fraction_positive")


def test_over_confident_bin_lies_below_the_diagonal():
    # catalogue (b) 41 / E6: 10 predictions at 0.85 with 6 positives -> (0.85, 0.6), below y = x: over-prediction
    y = np.array([1] * 6 + [0] * 4)
    curve = reliability_curve(y, np.full(10, 0.85))
    filled = curve["count"] > 0
    assert curve["count"][filled].tolist() == [10]
    assert curve["mean_predicted"][filled][0] == pytest.approx(0.85)
    assert curve["fraction_positive"][filled][0] == pytest.approx(0.6)
    assert curve["fraction_positive"][filled][0] < curve["mean_predicted"][filled][0]
    assert curve["bin_lower"][filled][0] == 0.8 and curve["bin_upper"][filled][0] == 0.9


def test_empty_bins_are_kept_with_count_zero_and_nan_means():
    curve = reliability_curve([0, 1, 1], [0.05, 0.55, 0.95], n_bins=10)
    assert set(curve) == set(KEYS)
    assert all(len(curve[k]) == 10 for k in KEYS)
    assert curve["count"].tolist() == [1, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    empty = curve["count"] == 0
    assert np.isnan(curve["mean_predicted"][empty]).all()
    assert np.isnan(curve["fraction_positive"][empty]).all()
    np.testing.assert_allclose(curve["bin_lower"], np.arange(10) / 10)
    np.testing.assert_allclose(curve["bin_upper"], np.arange(1, 11) / 10)


def test_edge_rule_right_open_bins_last_bin_closed_at_one():
    proba = np.array([0.0, 0.3, 0.5, 0.7, 1.0])
    curve = reliability_curve(np.zeros(5, dtype=int), proba, n_bins=10)
    # 0.3 is exactly an edge: it goes to [0.3, 0.4), not [0.2, 0.3); 1.0 goes to the closed last bin [0.9, 1.0]
    assert np.nonzero(curve["count"])[0].tolist() == [0, 3, 5, 7, 9]
    assert reliability_curve([0, 1], [0.25, 0.5], n_bins=4)["count"].tolist() == [0, 1, 1, 0]


def test_quantile_bins_have_equal_mass_and_tile_zero_to_one():
    rng = np.random.default_rng(0)
    proba = rng.beta(2, 5, size=1000)
    y = (rng.random(1000) < proba).astype(int)
    curve = reliability_curve(y, proba, n_bins=10, strategy="quantile")
    assert curve["count"].tolist() == [100] * 10
    assert curve["bin_lower"][0] == 0.0 and curve["bin_upper"][-1] == 1.0
    np.testing.assert_array_equal(curve["bin_lower"][1:], curve["bin_upper"][:-1])


def test_quantile_bins_merge_duplicate_edges():
    # 80 % of the predictions are exactly 0.2: most quantiles coincide and their bins merge
    proba = np.concatenate([np.full(80, 0.2), np.linspace(0.5, 0.9, 20)])
    curve = reliability_curve(np.zeros(100, dtype=int), proba, n_bins=10, strategy="quantile")
    assert len(curve["count"]) < 10
    assert np.all(np.diff(np.concatenate([curve["bin_lower"], curve["bin_upper"][-1:]])) > 0)
    assert curve["count"].sum() == 100
    assert curve["count"][curve["bin_lower"] == 0.2].tolist() == [80]


def test_matches_sklearn_calibration_curve_away_from_edges():
    calibration = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(1)
    proba = rng.random(1000) ** 2
    y = (rng.random(1000) < np.sqrt(proba)).astype(int)
    for strategy in ("uniform", "quantile"):
        curve = reliability_curve(y, proba, n_bins=10, strategy=strategy)
        prob_true, prob_pred = calibration.calibration_curve(y, proba, n_bins=10, strategy=strategy)
        filled = curve["count"] > 0  # sklearn drops empty bins
        np.testing.assert_allclose(curve["fraction_positive"][filled], prob_true, atol=1e-12)
        np.testing.assert_allclose(curve["mean_predicted"][filled], prob_pred, atol=1e-12)


def test_ece_of_constant_prediction_on_balanced_labels():
    y = np.array([0, 1] * 50)
    assert expected_calibration_error(y, np.full(100, 0.9)) == pytest.approx(0.4, abs=1e-12)
    assert maximum_calibration_error(y, np.full(100, 0.9)) == pytest.approx(0.4, abs=1e-12)


def test_ece_of_a_perfectly_calibrated_model_is_near_zero():
    rng = np.random.default_rng(42)
    p = rng.random(200_000)
    y = (rng.random(p.size) < p).astype(int)
    # per-bin sampling error is ~sqrt(p(1-p)/20000) <= 0.0036; 0.01 leaves room without hiding a real bias
    assert expected_calibration_error(y, p) < 0.01
    assert expected_calibration_error(y, p, strategy="quantile") < 0.01
    assert maximum_calibration_error(y, p) < 0.015
    # a systematic over-prediction of 0.1 is clearly detected at the same n
    assert expected_calibration_error(y, np.clip(p + 0.1, 0, 1)) > 0.08


def test_ece_hand_computed_two_bins():
    # bin [0.1, 0.2): preds 0.1, 0.1 with 1 positive -> gap 0.4; bin [0.9, 1]: 0.9, 0.9, 0.9 all positive -> gap 0.1
    y = [0, 1, 1, 1, 1]
    p = [0.1, 0.1, 0.9, 0.9, 0.9]
    assert expected_calibration_error(y, p) == pytest.approx((2 * 0.4 + 3 * 0.1) / 5)
    assert maximum_calibration_error(y, p) == pytest.approx(0.4)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=60),
    st.integers(1, 15),
    st.sampled_from(["uniform", "quantile"]),
)
def test_properties(rows, n_bins, strategy):
    proba = np.array([r[0] for r in rows])
    y = np.array([int(r[1]) for r in rows])
    curve = reliability_curve(y, proba, n_bins=n_bins, strategy=strategy)
    assert curve["count"].sum() == len(rows)
    assert len({len(curve[k]) for k in KEYS}) == 1
    filled = curve["count"] > 0
    lower, upper = curve["bin_lower"][filled], curve["bin_upper"][filled]
    mean = curve["mean_predicted"][filled]
    assert np.all((lower <= mean + 1e-12) & (mean <= upper + 1e-12))
    ece = expected_calibration_error(y, proba, n_bins=n_bins, strategy=strategy)
    mce = maximum_calibration_error(y, proba, n_bins=n_bins, strategy=strategy)
    assert 0.0 <= ece <= mce + 1e-12 <= 1.0 + 1e-12


@pytest.mark.parametrize(
    "y, proba, kwargs, match",
    [
        ([0, 1], [0.2, 1.2], {}, r"\[0, 1\]"),
        ([0, 1], [0.2, np.nan], {}, "NaN"),
        ([0, 1], [[0.8, 0.2], [0.4, 0.6]], {}, r"proba\[:, 1\]"),
        ([0, 1, 1], [0.2, 0.3], {}, "entries"),
        ([0, 2], [0.2, 0.3], {}, "binary"),
        ([0, 1], [0.2, 0.3], {"n_bins": 0}, "n_bins"),
        ([0, 1], [0.2, 0.3], {"strategy": "kmeans"}, "strategy"),
    ],
)
def test_invalid_inputs_raise(y, proba, kwargs, match):
    with pytest.raises(ValueError, match=match):
        reliability_curve(y, proba, **kwargs)
