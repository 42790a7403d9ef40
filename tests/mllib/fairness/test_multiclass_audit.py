"""The multiclass audit: per-group, per-class rates counted by hand, macro gaps, cluster bootstrap, small groups."""

import numpy as np
import pytest

from mllib.fairness import multiclass_audit


def problem(seed=0, n=900, K=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    group = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.45, 0.05])
    noise = np.where(group == "a", 0.2, 0.4)  # group b's decisions are noisier
    y_hat = np.where(rng.random(n) < noise, rng.integers(0, K, n), y)
    return y, y_hat, group


def test_rates_and_gaps_equal_direct_counts():
    y, y_hat, g = problem()
    out = multiclass_audit(y, y_hat, g, 3, class_names=["x", "y", "z"], min_group_size=60, n_boot=0)
    assert out["small_groups"] == ["c"] and out["groups"]["c"]["small"]
    for group in ("a", "b"):
        rows = g == group
        row = out["groups"][group]
        assert row["n"] == rows.sum() and row["accuracy"] == pytest.approx(np.mean(y[rows] == y_hat[rows]))
        for k, name in enumerate("xyz"):
            assert row["classes"][name]["selection_rate"] == pytest.approx(np.mean(y_hat[rows] == k))
            assert row["classes"][name]["recall"] == pytest.approx(np.mean(y_hat[rows & (y == k)] == k))
            assert row["classes"][name]["base_rate"] == pytest.approx(np.mean(y[rows] == k))
    for criterion, metric in (("demographic_parity", "selection_rate"), ("equal_opportunity", "recall")):
        per_class = {
            name: abs(out["groups"]["a"]["classes"][name][metric] - out["groups"]["b"]["classes"][name][metric])
            for name in "xyz"
        }  # group c is small: left out
        assert out["criteria"][criterion]["per_class"] == pytest.approx(per_class)
        assert out["criteria"][criterion]["difference"] == pytest.approx(np.mean(list(per_class.values())))
    assert out["criteria"]["accuracy"]["difference"] == pytest.approx(
        out["groups"]["a"]["accuracy"] - out["groups"]["b"]["accuracy"]
    )
    assert out["criteria"]["equal_opportunity"]["difference"] > 0.1  # the noisier group recalls less


def test_bootstrap_intervals_by_rows_and_by_clusters():
    y, y_hat, g = problem(n=600)
    rows = multiclass_audit(y, y_hat, g, 3, n_boot=200, min_group_size=10, random_state=1)
    clusters = multiclass_audit(
        y, y_hat, g, 3, groups=np.arange(600) // 6, n_boot=200, min_group_size=10, random_state=1
    )
    for out in (rows, clusters):
        for c in ("demographic_parity", "equal_opportunity", "accuracy"):
            lo, hi = out["criteria"][c]["difference_interval"]
            assert 0 <= lo < hi  # a max - min gap is biased upwards, so its interval need not hold the point
        lo, hi = out["groups"]["a"]["intervals"][1]["recall"]
        assert lo <= out["groups"]["a"]["classes"][1]["recall"] <= hi
    assert rows["bootstrap"]["unit"] == "row" and clusters["bootstrap"] == {
        "n_boot": 200,
        "confidence_level": 0.95,
        "unit": "cluster",
        "n_units": 100,
        "random_state": 1,
    }
    again = multiclass_audit(y, y_hat, g, 3, n_boot=200, min_group_size=10, random_state=1)
    assert again == rows


def test_undefined_when_fewer_than_two_groups_are_large_enough():
    y, y_hat, g = problem(n=200)
    out = multiclass_audit(y, y_hat, g, 3, min_group_size=150, n_boot=0)
    assert not out["criteria"]["demographic_parity"]["defined"]
    assert "fewer than 2 groups" in out["criteria"]["demographic_parity"]["reason"]


def test_labels_outside_the_classes_are_refused():
    with pytest.raises(ValueError, match="class indices 0..2"):
        multiclass_audit(np.array([0, 1, 3]), np.array([0, 1, 2]), np.array(["a", "b", "a"]), 3)
