"""Bootstrap intervals (mllib.metrics.bootstrap_intervals). Oracles: the percentile interval of a mean agrees with
the normal-theory interval mean -/+ 1.96 s / sqrt(n) on many rows; stratified draws keep every stratum's count;
cluster draws keep clusters whole; undefined replicates are left out and counted; the same seed gives the same
interval."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.metrics import bootstrap_intervals


def test_interval_of_a_mean_is_the_normal_one_on_many_rows():
    x = np.random.default_rng(0).exponential(size=4000)
    out = bootstrap_intervals(lambda rows: {"mean": x[rows].mean()}, x.size, n_boot=2000, random_state=1)
    half = 1.96 * x.std(ddof=1) / np.sqrt(x.size)
    low, high = out["intervals"]["mean"]
    assert low == pytest.approx(x.mean() - half, abs=0.15 * half)
    assert high == pytest.approx(x.mean() + half, abs=0.15 * half)
    assert out["unit"] == "row" and out["defined"] == {"mean": 2000}


def test_stratified_draws_keep_each_stratum_and_clusters_stay_whole():
    strata = np.repeat([0, 1, 2], [5, 20, 75])
    seen = []
    bootstrap_intervals(lambda rows: seen.append(np.bincount(strata[rows], minlength=3)) or {"n": rows.size},
                        100, n_boot=50, strata=strata)  # fmt: skip
    assert all((counts == [5, 20, 75]).all() for counts in seen)
    clusters = np.repeat(np.arange(20), 5)
    whole = []
    out = bootstrap_intervals(
        lambda rows: whole.append(np.bincount(clusters[rows], minlength=20) % 5 == 0) or {"n": rows.size},
        100, n_boot=50, clusters=clusters, strata=strata,  # clusters take precedence
    )  # fmt: skip
    assert all(w.all() for w in whole) and out["unit"] == "cluster" and out["n_units"] == 20


def test_undefined_replicates_are_left_out_and_counted():
    y = np.r_[np.zeros(57), np.ones(3)]

    def share(rows):
        return {"share": y[rows].mean() if y[rows].any() else float("nan")}

    out = bootstrap_intervals(share, y.size, n_boot=400, random_state=0)
    assert 5 < 400 - out["defined"]["share"] < 40  # P(no positive drawn) = 0.95^60 ~ 4.6%: ~18 of 400
    assert out["intervals"]["share"][0] > 0


def test_same_seed_same_interval():
    x = np.arange(50.0)
    a, b = (bootstrap_intervals(lambda r: {"m": x[r].mean()}, 50, n_boot=30, random_state=7) for _ in range(2))
    assert a == b


def test_many_rows_draw_from_a_sample_and_rescale_to_all_of_them():
    """The m-out-of-n bootstrap: replicates from 2,000 of 40,000 rows, the ends rescaled by sqrt(2,000 / 40,000),
    agree with the normal-theory interval of the mean of all 40,000 rows; each replicate holds 2,000 rows."""
    x = np.random.default_rng(3).exponential(size=40_000)
    sizes = []

    def mean(rows):
        sizes.append(rows.size)
        return {"mean": x[rows].mean()}

    out = bootstrap_intervals(mean, x.size, n_boot=1000, random_state=0, max_units=2000)
    assert out["subsample"] == {"units": 2000, "scale": pytest.approx(np.sqrt(0.05))} and out["n_units"] == 40_000
    assert sizes[-1] == 40_000 and set(sizes[:-1]) == {2000}  # the sample, its replicates, then the whole once
    assert len(sizes) == 1 + 1000 + 1
    half = 1.96 * x.std(ddof=1) / np.sqrt(x.size)
    low, high = out["intervals"]["mean"]
    assert (low + high) / 2 == pytest.approx(x.mean(), abs=0.2 * half)
    assert high - low == pytest.approx(2 * half, rel=0.15)
