"""regression_audit: per-group errors equal direct computation, gaps are max - min over the large groups, intervals
cover the point values, the cluster bootstrap resamples whole clusters, and bad inputs are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mllib.fairness import regression_audit


def data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    g = np.where(rng.random(n) < 0.6, "a", "b")
    y = rng.normal(size=n) + (g == "b")
    pred = y + rng.normal(scale=np.where(g == "a", 0.5, 1.0)) - 0.3 * (g == "b")  # b: noisier and over-predicted
    return y, pred, g


def test_group_metrics_equal_direct_computation():
    y, pred, g = data()
    lo, hi = pred - 1.0, pred + 1.0
    out = regression_audit(y, pred, g, lo, hi, n_boot=0)
    for group in ("a", "b"):
        r = (y - pred)[g == group]
        m = out["groups"][group]
        assert m["n"] == r.size and m["mae"] == pytest.approx(np.abs(r).mean())
        assert m["rmse"] == pytest.approx(np.sqrt((r**2).mean())) and m["mean_residual"] == pytest.approx(r.mean())
        assert m["mean_prediction"] == pytest.approx(pred[g == group].mean())
        assert m["interval_coverage"] == pytest.approx(np.mean(np.abs(r) <= 1.0))
    a, b = out["groups"]["a"], out["groups"]["b"]
    assert out["gaps"]["mae"]["difference"] == pytest.approx(abs(a["mae"] - b["mae"]))
    assert out["gaps"]["mean_residual"]["difference"] == pytest.approx(0.3, abs=0.15)
    assert out["largest_gap"] in ("mae", "rmse", "mean_prediction")


def test_intervals_cover_the_point_values_and_small_groups_are_left_out():
    y, pred, g = data()
    g = g.astype(object)
    g[:5] = "tiny"
    out = regression_audit(y, pred, g, n_boot=200, min_group_size=30, random_state=1)
    for name in ("a", "b"):
        lo, hi = out["groups"][name]["intervals"]["mae"]
        assert lo <= out["groups"][name]["mae"] <= hi
    assert out["small_groups"] == ["tiny"] and out["groups"]["tiny"]["small"]
    lo, hi = out["gaps"]["rmse"]["difference_interval"]
    assert lo <= out["gaps"]["rmse"]["difference"] <= hi
    assert np.isnan(out["groups"]["a"]["interval_coverage"])  # no intervals given


def test_cluster_bootstrap_is_seeded_and_resamples_clusters():
    y, pred, g = data()
    clusters = np.arange(y.size) // 4
    first = regression_audit(y, pred, g, groups=clusters, n_boot=50, random_state=3)
    again = regression_audit(y, pred, g, groups=clusters, n_boot=50, random_state=3)
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)  # nan-aware equality
    other = regression_audit(y, pred, g, groups=clusters, n_boot=50, random_state=4)
    assert other["gaps"]["mae"]["difference_interval"] != first["gaps"]["mae"]["difference_interval"]
    assert first["bootstrap"]["unit"] == "cluster" and first["bootstrap"]["n_units"] == 100


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="NaN or inf"):
        regression_audit(np.array([1.0, np.inf]), np.zeros(2), np.array(["a", "b"]))
