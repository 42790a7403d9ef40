"""Per-group thresholds (parity reached on the fitting data within the score grid's resolution, accuracy
maximised among feasible targets, monotone and symmetric behaviour) and Kamiran-Calders reweighing."""

import numpy as np
import pytest

from mllib.fairness import GroupThresholdOptimizer, criterion_gap, group_confusion, reweighing_weights


def _problem(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.35, 0.15])
    y = (rng.random(n) < np.select([g == "a", g == "b"], [0.3, 0.5], 0.4)).astype(int)
    s = 0.35 + 0.3 * y + rng.normal(0, 0.2, n) + np.select([g == "b", g == "c"], [0.1, -0.05], 0.0)
    return s, y, g  # continuous scores: no ties


@pytest.mark.parametrize(
    "criterion, rates", [("demographic_parity", ("selection_rate",)), ("equal_opportunity", ("tpr",))]
)
def test_parity_is_reached_on_the_fitting_data_within_the_grid_resolution(criterion, rates):
    s, y, g = _problem()
    model = GroupThresholdOptimizer(criterion=criterion).fit(s, y, g)
    pred = model.predict(s, g)
    gap = criterion_gap(y, pred, g, criterion)
    assert gap == pytest.approx(model.gap_, abs=1e-12)
    # catalogue 5.3: without tied scores the rate grid of group k has step 1/n_k (selection) or 1/p_k (TPR)
    per_group = group_confusion(y, pred, g)
    denominators = [m["n"] if criterion == "demographic_parity" else m["n_pos"] for m in per_group.values()]
    assert gap <= 1.0 / min(denominators) + 1e-12
    assert model.baseline_gap_ > 10 * gap  # the single threshold was clearly unfair
    assert model.accuracy_ == pytest.approx(np.mean(pred == y), abs=1e-12)
    assert model.accuracy_cost_ == pytest.approx(model.baseline_accuracy_ - model.accuracy_)


def test_equalized_odds_minimises_the_larger_of_the_tpr_and_fpr_gaps():
    s, y, g = _problem(1)
    model = GroupThresholdOptimizer(criterion="equalized_odds").fit(s, y, g)
    pred = model.predict(s, g)
    per_group = group_confusion(y, pred, g)
    tpr = [m["tpr"] for m in per_group.values()]
    fpr = [m["fpr"] for m in per_group.values()]
    assert model.gap_ == pytest.approx(max(max(tpr) - min(tpr), max(fpr) - min(fpr)), abs=1e-12)
    assert model.gap_ < model.baseline_gap_ / 3
    # brute force over a grid of threshold triples cannot beat it by more than the grid's coarseness
    grid = np.quantile(s, np.linspace(0.05, 0.95, 41))
    rates = []
    for group in ("a", "b", "c"):
        pos, neg = s[(g == group) & (y == 1)], s[(g == group) & (y == 0)]
        rates.append(((pos[None, :] >= grid[:, None]).mean(axis=1), (neg[None, :] >= grid[:, None]).mean(axis=1)))
    (ta, fa), (tb, fb), (tc, fc) = rates
    ix = np.ix_(range(41), range(41), range(41))
    tprs = np.stack(np.broadcast_arrays(ta[ix[0]], tb[ix[1]], tc[ix[2]]))
    fprs = np.stack(np.broadcast_arrays(fa[ix[0]], fb[ix[1]], fc[ix[2]]))
    best = np.maximum(np.ptp(tprs, axis=0), np.ptp(fprs, axis=0)).min()
    assert model.gap_ <= best + 1e-12


def test_tolerance_trades_parity_for_accuracy():
    s, y, g = _problem(2)
    strict = GroupThresholdOptimizer(criterion="demographic_parity").fit(s, y, g)
    loose = GroupThresholdOptimizer(criterion="demographic_parity", tolerance=0.05).fit(s, y, g)
    assert loose.accuracy_ > strict.accuracy_ and loose.gap_ > strict.gap_
    assert loose.gap_ <= 0.05 + 1.0 / np.bincount(np.unique(g, return_inverse=True)[1]).min() + 1e-12


def test_identical_groups_get_identical_thresholds():
    rng = np.random.default_rng(3)
    s = rng.normal(size=400)
    y = (rng.random(400) < 1 / (1 + np.exp(-3 * s))).astype(int)
    # group "b" is an exact copy of group "a"
    model = GroupThresholdOptimizer(criterion="equal_opportunity").fit(
        np.concatenate([s, s]), np.concatenate([y, y]), np.repeat(["a", "b"], 400)
    )
    assert model.thresholds_[0] == model.thresholds_[1] and model.gap_ == 0.0


def test_report_on_new_data_and_unseen_groups():
    s, y, g = _problem(4)
    model = GroupThresholdOptimizer(criterion="demographic_parity").fit(s[:2000], y[:2000], g[:2000])
    report = model.report(s[2000:], y[2000:], g[2000:])
    assert set(report) == {
        "criterion",
        "accuracy_before",
        "accuracy_after",
        "accuracy_cost",
        "gap_before",
        "gap_after",
        "thresholds",
    }
    assert report["gap_after"] < report["gap_before"]
    assert report["accuracy_cost"] == pytest.approx(report["accuracy_before"] - report["accuracy_after"])
    with pytest.raises(ValueError, match="not in the fitting data"):
        model.predict([0.5], ["z"])
    with pytest.raises(ValueError, match="criterion"):
        GroupThresholdOptimizer(criterion="calibration").fit(s, y, g)
    with pytest.raises(ValueError, match="no positives"):
        GroupThresholdOptimizer(criterion="equal_opportunity").fit([0.1, 0.9, 0.4], [0, 1, 0], ["a", "a", "b"])


def test_reweighing_makes_the_weighted_label_independent_of_the_group():
    rng = np.random.default_rng(5)
    g = rng.choice(["a", "b", "c"], size=1000, p=[0.6, 0.3, 0.1])
    y = (rng.random(1000) < np.select([g == "a", g == "b"], [0.2, 0.5], 0.7)).astype(int)
    result = reweighing_weights(y, g)
    w = result["weights"]
    overall = y.mean()
    for group in ("a", "b", "c"):
        rows = g == group
        assert w[rows] @ y[rows] / w[rows].sum() == pytest.approx(overall, abs=1e-12)  # weighted P(y=1 | g) = P(y=1)
        assert w[rows].sum() == pytest.approx(rows.sum(), abs=1e-9)  # each group keeps its total weight
    assert w.sum() == pytest.approx(1000, abs=1e-9)
    # w(g, y) = P(g) P(y) / P(g, y), checked for one cell by hand
    n_a, n_pos = (g == "a").sum(), y.sum()
    n_a_pos = ((g == "a") & (y == 1)).sum()
    assert result["table"]["a"][1] == pytest.approx((n_a / 1000) * (n_pos / 1000) / (n_a_pos / 1000))
