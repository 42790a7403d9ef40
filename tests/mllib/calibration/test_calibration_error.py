"""calibration_summary (ECE / MCE with the binning spec recorded), its shrinkage with n on a calibrated model,
per-group calibration error, and Platt's smoothed targets against a hand-written Newton iteration."""

import numpy as np
import pytest
from scipy.special import expit

from mllib.calibration import (
    PlattScaling,
    calibration_summary,
    expected_calibration_error,
    group_calibration_summary,
    maximum_calibration_error,
    platt_targets,
)


def test_records_the_binning_spec_and_agrees_with_the_scalar_functions():
    y = [0, 1, 1, 1, 1]
    p = [0.1, 0.1, 0.9, 0.9, 0.9]
    result = calibration_summary(y, p, n_bins=10, strategy="uniform")
    assert result == {
        "ece": pytest.approx((2 * 0.4 + 3 * 0.1) / 5),
        "mce": pytest.approx(0.4),
        "n_bins": 10,
        "strategy": "uniform",
        "n_bins_used": 10,
        "n_nonempty_bins": 2,
        "n": 5,
    }
    for strategy in ("uniform", "quantile"):
        r = calibration_summary(y, p, n_bins=4, strategy=strategy)
        assert r["ece"] == expected_calibration_error(y, p, n_bins=4, strategy=strategy)
        assert r["mce"] == maximum_calibration_error(y, p, n_bins=4, strategy=strategy)
        assert r["strategy"] == strategy


def test_ece_of_a_calibrated_model_shrinks_with_n():
    rng = np.random.default_rng(0)
    eces = []
    for n in (1_000, 10_000, 100_000):
        # average over a few seeds so the comparison is about the expectation, not one draw
        draws = []
        for _ in range(5):
            p = rng.random(n)
            y = (rng.random(n) < p).astype(int)
            draws.append(calibration_summary(y, p)["ece"])
        eces.append(np.mean(draws))
    assert eces[0] > eces[1] > eces[2]
    assert eces[2] < 0.006  # ~ sqrt(p(1-p) / (n/10)) per bin
    # the sampling bias shrinks like 1/sqrt(n): a factor ~sqrt(10) per decade, allow 2
    assert eces[0] / eces[1] > 2 and eces[1] / eces[2] > 2


def test_group_calibration_error_hand_computed():
    y = np.array([1, 0, 1, 1, 0, 0])
    p = np.array([0.9, 0.9, 0.9, 0.2, 0.2, 0.2])
    groups = np.array(["b", "b", "b", "a", "a", "a"])
    result = group_calibration_summary(y, p, groups)
    assert list(result) == ["a", "b"]
    assert result["a"]["ece"] == pytest.approx(abs(0.2 - 1 / 3))
    assert result["b"]["ece"] == pytest.approx(abs(0.9 - 2 / 3))
    assert result["a"]["n"] == 3 and result["b"]["strategy"] == "uniform"


def test_platt_targets_formula():
    y = np.array([1.0, 0.0, 0.0, 1.0, 0.0])
    t = platt_targets(y, n_pos=2, n_neg=3, smooth=True)
    np.testing.assert_allclose(t, [3 / 4, 1 / 5, 1 / 5, 3 / 4, 1 / 5])
    np.testing.assert_array_equal(platt_targets(y, 2, 3, smooth=False), y)


def _newton_platt(s, t, iterations=50):
    """Plain undamped Newton on the smoothed log-loss (the toy set is well conditioned)."""
    a, b = 0.0, 0.0
    for _ in range(iterations):
        p = expit(a * s + b)
        g = np.array([(p - t) @ s, np.sum(p - t)])
        h = p * (1 - p)
        hessian = np.array([[h @ (s * s), h @ s], [h @ s, h.sum()]])
        a, b = np.array([a, b]) - np.linalg.solve(hessian, g)
    return a, b


def test_platt_equals_the_newton_solution_with_smoothed_targets_on_a_toy_set():
    s = np.array([-2.0, -1.0, -0.5, 0.0, 0.3, 1.0, 1.5, 2.0])
    y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    n_pos, n_neg = 4, 4
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    model = PlattScaling().fit(s, y)
    np.testing.assert_allclose([model.a_, model.b_], _newton_platt(s, t), atol=1e-12)
    raw = PlattScaling(smooth_targets=False).fit(s, y)
    np.testing.assert_allclose([raw.a_, raw.b_], _newton_platt(s, y.astype(float)), atol=1e-12)
    # smoothing pulls the slope towards 0: targets closer to 1/2 than the labels
    assert 0 < model.a_ < raw.a_
