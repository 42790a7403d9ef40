"""Normalized conformal scores: the scale curve of the prediction, CV+ and split intervals of |y - mu| / sigma against
their definitions (bit-equal to the plain ones at sigma = 1, and the two order-statistic paths bit-equal to each
other), the cross-fitted coverage that tells where they help, and coverage along the prediction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mllib.conformal import (
    CVPlusRegressor,
    ResidualScale,
    SplitConformalRegressor,
    crossfitted_coverage,
    interval_summary_by_bin,
    quantile_bins,
)


def heteroscedastic(seed=0, n=3000, K=5):
    """Out-of-fold predictions mu in [1, 10] and targets y = mu + mu * noise: the error grows with the prediction."""
    rng = np.random.default_rng(seed)
    mu = rng.uniform(1, 10, size=n)
    return mu + mu * rng.normal(scale=0.3, size=n), mu, rng.permutation(np.arange(n) % K)


def test_the_scale_follows_the_mean_absolute_residual_along_the_prediction():
    y, mu, _ = heteroscedastic()
    sigma = ResidualScale().fit(mu, np.abs(y - mu))
    # E|mu N(0, 0.3^2)| = 0.3 sqrt(2 / pi) mu = 0.239 mu
    np.testing.assert_allclose(sigma.predict(np.array([3.0, 5.0, 8.0])), 0.239 * np.array([3.0, 5.0, 8.0]), rtol=0.1)
    assert sigma.centres_.size == 20 and (np.diff(sigma.centres_) > 0).all()
    # at the interval's coverage: the 0.9 quantile of |mu N(0, 0.3^2)| = 1.645 x 0.3 mu
    tail = ResidualScale(level=0.9).fit(mu, np.abs(y - mu))
    np.testing.assert_allclose(tail.predict(np.array([3.0, 5.0, 8.0])), 0.4935 * np.array([3.0, 5.0, 8.0]), rtol=0.15)
    assert sigma.predict(np.array([-100.0]))[0] == sigma.values_[0]  # constant beyond the outer bins
    one_bin = ResidualScale(min_rows=5000).fit(mu, np.abs(y - mu))  # too few rows for two bins: a constant scale
    assert one_bin.centres_.size == 1 and np.ptp(one_bin.predict(mu)) == 0
    floored = ResidualScale(n_bins=2, min_rows=1, floor_share=0.5).fit([1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 1.0, 3.0])
    assert floored.floor_ == 0.5 and floored.values_.tolist() == [0.5, 2.0]  # mean |r| 1, bins' means 0 and 2


def test_normalized_intervals_equal_their_definition_and_unit_scales_the_plain_ones():
    y, mu, fold = heteroscedastic(n=200, K=4)
    rng = np.random.default_rng(3)
    scale = rng.uniform(0.5, 2, size=y.size)
    P, S = rng.uniform(1, 10, size=(50, 4)), rng.uniform(0.5, 2, size=(50, 4))
    lo, hi = CVPlusRegressor(0.8).fit(y, mu, fold, scale).predict_interval(P, S)
    R, n, alpha = np.abs(y - mu) / scale, y.size, 0.2
    for j in (0, 17, 49):
        low = np.sort(P[j, fold] - S[j, fold] * R)[math.floor(alpha * (n + 1)) - 1]
        high = np.sort(P[j, fold] + S[j, fold] * R)[math.ceil((1 - alpha) * (n + 1)) - 1]
        assert (lo[j], hi[j]) == (low, high)
    plain = CVPlusRegressor(0.8).fit(y, mu, fold).predict_interval(P)
    unit = CVPlusRegressor(0.8).fit(y, mu, fold, np.ones(n)).predict_interval(P, np.ones_like(P))
    for a, b in zip(plain, unit):
        assert a.tobytes() == b.tobytes()
    split = SplitConformalRegressor(0.8).fit(y, mu, scale)
    assert split.threshold_ == np.sort(R)[math.ceil(0.8 * (n + 1)) - 1]
    lo, hi = split.predict_interval(P[:, 0], S[:, 0])
    np.testing.assert_array_equal(hi, P[:, 0] + split.threshold_ * S[:, 0])
    with pytest.raises(ValueError, match="the smallest scale must be a positive finite number"):
        split.predict_interval(P[:, 0], np.zeros(50))
    with pytest.raises(ValueError, match="scale has 3 columns, but the fold models was fitted with 4"):
        CVPlusRegressor(0.8).fit(y, mu, fold).predict_interval(P, S[:, :3])


def test_scaled_order_statistics_are_bit_equal_on_both_paths(monkeypatch):
    from mllib.conformal import regression

    y, mu, fold = heteroscedastic(n=400, K=5)
    rng = np.random.default_rng(5)
    scale = np.round(rng.uniform(0.5, 2, size=y.size) * 4) / 4  # coarse: ties
    P, S = np.round(rng.uniform(1, 10, size=(2000, 5)) * 8) / 8, np.round(rng.uniform(0.5, 2, size=(2000, 5)) * 4) / 4
    bounds = {}
    for searches in (True, False):
        monkeypatch.setattr(regression, "_searches_beat_partition", lambda n, k, s=searches: s)
        bounds[searches] = CVPlusRegressor(0.9).fit(y, mu, fold, scale).predict_interval(P, S)
    for a, b in zip(bounds[True], bounds[False]):
        assert a.tobytes() == b.tobytes()


def test_cross_fitted_coverage_finds_the_fifth_a_constant_width_misses():
    """A constant width over-covers the small predictions and under-covers the large ones (0.9 overall); scaled by
    the fold's sigma_{-k}, every fifth holds about 0.9."""
    y, mu, fold = heteroscedastic()
    fifth = quantile_bins(mu)
    absolute = crossfitted_coverage(y, mu, fold, 0.9)
    scales = [ResidualScale(level=0.9).fit(mu[fold != k], np.abs(y - mu)[fold != k]) for k in range(5)]
    normalized = crossfitted_coverage(y, mu, fold, 0.9, scales)
    by_fifth = {name: [c[fifth == k].mean() for k in range(5)] for name, c in (("abs", absolute), ("norm", normalized))}
    assert absolute.mean() == pytest.approx(0.9, abs=0.02) and by_fifth["abs"][4] < 0.8 < 0.97 < by_fifth["abs"][0]
    assert min(by_fifth["norm"]) > 0.86 and max(by_fifth["norm"]) < 0.94


def test_interval_summary_by_bin_reads_fifths_of_the_prediction():
    prediction = np.arange(10.0)
    y = prediction.copy()
    y[[8, 9]] += 5  # the top fifth's two rows fall outside their intervals
    rows = interval_summary_by_bin(y, prediction - 1, prediction + 1, prediction)
    assert [r["bin"] for r in rows] == [1, 2, 3, 4, 5] and [r["n"] for r in rows] == [2] * 5
    assert [r["coverage"] for r in rows] == [1.0, 1.0, 1.0, 1.0, 0.0] and rows[4]["prediction"] == [8.0, 9.0]
    assert rows[0]["mean_width"] == 2.0
