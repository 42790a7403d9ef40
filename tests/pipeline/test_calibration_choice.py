"""calibration.method auto: every map, no map included, cross-fitted on the out-of-fold scores and judged by log loss
and by its ranking within the folds; auto deploys the least log loss of the maps whose gain exceeds calibration.margin
standard errors without lowering the ranking beyond as many or raising the cross-fitted ECE, else none; a named map is
deployed as asked but flagged when it is worse than no map. Oracles: the cross-fitted log loss of each map recomputed
from mllib's calibrators, and hand-made scores where the answer is known (already calibrated scores: no map earns its
place; scores off by a factor: temperature / Platt do; scores whose probability is capped at the top: histogram
binning's gain costs ranking and beta calibration takes it; confident rows the sigmoids fix at the many rows'
expense: they raise the ECE), over 8 to 50 seeds each."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import classification_target
from scipy.special import expit, log_expit

from mllib.calibration import PlattScaling, TemperatureScaling
from mllib.metrics import log_loss
from pipeline.steps.calibration import MAPS, choose_map, compare_maps, cross_fitted, why_deployed

CFG = {"params": {}, "n_bins": 10, "binning": "uniform", "margin": 2.0}


def scores(n: int = 4000, scale: float = 1.0, seed: int = 0):
    """Binary log-odds s whose true probability is sigmoid(s / scale): calibrated when scale = 1, over-confident by
    `scale` otherwise; folds 0..4."""
    rng = np.random.default_rng(seed)
    s = rng.normal(0, 2, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-s / scale))).astype(np.int64)
    return s, y, np.arange(n) % 5


def test_every_map_is_cross_fitted_and_scored_by_log_loss():
    s, y, fold = scores(scale=3.0)
    table, probabilities = compare_maps(CFG, s, y, fold, classification_target(2), keep="platt")
    assert [r["method"] for r in table] == list(MAPS) and all(r["defined"] for r in table)
    # what choose_map can deploy is kept, nothing more: no map, the named one, the least log loss that qualifies
    best = min((r for r in table if r["qualifies"]), key=lambda r: r["log_loss"])["method"]
    assert set(probabilities) == {"none", "platt", best}
    platt = next(r for r in table if r["method"] == "platt")
    expected = cross_fitted(PlattScaling(), s, y, fold)
    np.testing.assert_allclose(probabilities["platt"], expected, rtol=0, atol=0)
    assert platt["log_loss"] == pytest.approx(log_loss(y, expected[:, 1]), rel=1e-12)
    none = next(r for r in table if r["method"] == "none")
    assert platt["log_loss_vs_none"] == pytest.approx(platt["log_loss"] - none["log_loss"], abs=1e-12)


def test_time_ordered_folds_fit_each_map_on_the_earlier_folds_only():
    """Folds that chain forward in time (data.time): fold k's map sees folds < k only, as the deployed map sees only
    the past; the first fold's rows fit maps and are judged by none. Oracle: Platt scaling fitted by hand."""
    s, y, fold = scores(scale=3.0)
    P = cross_fitted(PlattScaling(), s, y, fold, forward=True)
    assert np.isnan(P[fold == 0]).all() and not np.isnan(P[fold > 0]).any()
    for k in range(1, 5):
        by_hand = PlattScaling().fit(s[fold < k], y[fold < k]).predict_proba(s[fold == k])
        np.testing.assert_allclose(P[fold == k], by_hand, rtol=0, atol=0)
    # a fold's map differs from the one the unordered cross-fit gives it (which saw later folds)
    assert not np.allclose(P[fold == 1], cross_fitted(PlattScaling(), s, y, fold)[fold == 1])
    table, probabilities = compare_maps(CFG, s, y, fold, classification_target(2), keep="platt", forward=True)
    scored = fold > 0
    np.testing.assert_array_equal(probabilities["platt"], P[scored])
    platt = next(r for r in table if r["method"] == "platt")
    assert platt["log_loss"] == pytest.approx(log_loss(y[scored], P[scored][:, 1]), rel=1e-12)
    assert platt["ranking_vs_none"]["folds"] == 4  # the first fold is not judged
    assert choose_map("auto", table)[0] in ("platt", "temperature")  # over-confident scores: a map still earns it


def test_auto_keeps_calibrated_scores_as_they_are():
    s, y, fold = scores(scale=1.0)
    table, _ = compare_maps(CFG, s, y, fold, classification_target(2))
    assert choose_map("auto", table)[1] is None  # auto never warns
    # a map fitted on finite data cannot beat already calibrated scores by more than noise
    for r in table:
        if r["defined"] and r["method"] != "none":
            assert r["log_loss_vs_none"] > -2 * r["standard_error_vs_none"]


def test_auto_deploys_a_map_on_over_confident_scores_and_flags_nothing():
    s, y, fold = scores(scale=3.0)
    table, _ = compare_maps(CFG, s, y, fold, classification_target(2))
    method, warning = choose_map("auto", table)
    assert method in ("platt", "temperature") and warning is None
    none = next(r for r in table if r["method"] == "none")
    assert next(r for r in table if r["method"] == method)["log_loss"] < none["log_loss"]


@pytest.mark.parametrize("scale, expected", [(1.0, "none"), (2.0, "a map")])
def test_auto_deploys_a_map_only_beyond_its_noise_over_50_seeds(scale, expected):
    """The issue's oracle: on calibrated scores (s ~ N(0, 2), y ~ Bernoulli(sigmoid(s)), n = 4000) auto chose Platt in
    2 of 10 seeds at 0.2 and 0.6 standard errors of gain; now "none" in at least 95% of 50 seeds. On over-confident
    scores (the true log-odds half the score) a map in at least 95% of them."""
    chosen = []
    for seed in range(50):
        s, y, _ = scores(scale=scale, seed=seed)
        fold = np.random.default_rng(seed).permutation(np.arange(s.size) % 5)
        chosen.append(choose_map("auto", compare_maps(CFG, s, y, fold, classification_target(2))[0])[0])
    hits = sum((m == "none") == (expected == "none") for m in chosen)
    assert hits >= 48, chosen


def test_a_gain_within_the_margin_steps_aside_and_says_why():
    """Calibrated scores where a map's log loss is lower by less than calibration.margin standard errors: none is
    deployed, and the row says how many standard errors the gain was."""
    s, y, fold = scores(scale=1.0, seed=8)
    table, _ = compare_maps(CFG, s, y, fold, classification_target(2))
    gainers = [r for r in table if r["defined"] and r["method"] != "none" and r["log_loss_vs_none"] < 0]
    assert gainers, "seed 8 has maps with a noise gain (Platt 0.63, temperature 0.29 standard errors)"
    for r in gainers:
        assert not r["qualifies"] and "within 2 standard errors" in r["why"]
        assert r["gain_in_standard_errors"] == pytest.approx(-r["log_loss_vs_none"] / r["standard_error_vs_none"])
    losers = [r for r in table if r["defined"] and r["method"] != "none" and r["log_loss_vs_none"] > 0]
    assert losers and all(not r["qualifies"] and r["why"].startswith("no log-loss gain") for r in losers)
    assert choose_map("auto", table)[0] == "none"
    # margin 0 takes any gain: what auto did before
    loose = compare_maps({**CFG, "margin": 0.0}, s, y, fold, classification_target(2))[0]
    assert choose_map("auto", loose)[0] == min(loose, key=lambda r: r["log_loss"])["method"] != "none"


def test_a_map_that_costs_ranking_beyond_its_noise_is_not_deployed():
    """Scores whose order is wrong in the middle (a bump the model's score misses): histogram binning's bins fix the
    log loss but its ranking within the folds falls beyond the margin on coarse bins; a ranking-preserving gain is
    what auto keeps. The ranking figures are DeLong's: their difference is the fold-mean AUC difference."""
    from mllib.metrics import roc_auc_score

    s, y, fold = scores(scale=3.0, seed=0)
    table, probabilities = compare_maps(
        {**CFG, "params": {"histogram_binning": {"n_bins": 2}}}, s, y, fold, classification_target(2),
        keep="histogram_binning",
    )  # fmt: skip
    binned = next(r for r in table if r["method"] == "histogram_binning")
    within = [roc_auc_score(y[fold == k], probabilities["histogram_binning"][fold == k, 1])
              - roc_auc_score(y[fold == k], probabilities["none"][fold == k, 1]) for k in range(5)]  # fmt: skip
    assert binned["ranking_vs_none"]["difference"] == pytest.approx(np.mean(within), abs=1e-12)
    assert binned["ranking_vs_none"]["difference"] < -2 * binned["ranking_vs_none"]["standard_error"]
    assert not binned["qualifies"] and "lowers roc_auc" in binned["why"]
    platt = next(r for r in table if r["method"] == "platt")
    assert platt["ranking_vs_none"]["difference"] == 0.0 and platt["qualifies"]  # monotone within each fold


def capped_at_the_top(seed: int, n: int = 4000):
    """The spam file's shape: scores s ~ N(0, 2.5) whose true probability is sigmoid(2.5 ln q + 2) of q = sigmoid(s),
    the beta map with b = 0 (over-confident at the top, where it levels off at sigmoid(2) = 0.88; under-confident at
    the bottom), seen through the best sigmoid of the score: 0.9234 s - 0.1790, Platt's fit to 10^6 rows of the same
    law, so that no sigmoid of the score (Platt, temperature) gains more than noise. Folds 0..4."""
    rng = np.random.default_rng(seed)
    s = rng.normal(0, 2.5, n)
    y = (rng.random(n) < expit(2.5 * log_expit(s) + 2.0)).astype(np.int64)
    return 0.9234 * s - 0.1790, y, np.arange(n) % 5


def test_a_gain_whose_ties_cost_ranking_goes_to_a_map_that_cannot_tie():
    """The issue's case (spam7: histogram binning 0.4544 -> 0.3896 refused for its ranking, none deployed): histogram
    binning's gain passes the margin but its bins tie rows and lower the AUC within the folds beyond it, no sigmoid
    gains, and auto used to deploy none. Beta calibration is strictly increasing (its AUC within each fold is no
    map's, exactly) and bends the top: auto deploys it, in each of 8 seeds, and says why."""
    chosen = []
    for seed in range(8):
        s, y, fold = capped_at_the_top(seed)
        table, _ = compare_maps(CFG, s, y, fold, classification_target(2))
        rows = {r["method"]: r for r in table}
        binned, beta = rows["histogram_binning"], rows["beta"]
        assert binned["gain_in_standard_errors"] > 2 and not binned["qualifies"] and "lowers roc_auc" in binned["why"]
        assert not rows["platt"]["qualifies"] and not rows["temperature"]["qualifies"]
        assert beta["ranking_vs_none"]["difference"] == 0.0 and beta["ranking_vs_none"]["standard_error"] == 0.0
        assert beta["qualifies"] and beta["ece"] < rows["none"]["ece"]
        chosen.append(choose_map("auto", table)[0])
        if seed == 0:
            why = why_deployed("auto", table, chosen[-1], 2.0)
            assert why.startswith("calibration.method auto: log-loss gain") and "cross-fitted ECE" in why
    assert chosen == ["beta"] * 8


def under_confident_ends(seed: int, n: int = 4000):
    """Many rows near p = 1/2, calibrated (s ~ N(0, 0.5)), and 15% at |s| in [1.5, 2.5] whose truth is 0.999 or 0.001
    (under-confident): a steeper sigmoid gains log loss on the few confident rows and over-states the many, raising
    the ECE. Folds 0..4."""
    rng = np.random.default_rng(seed)
    extreme = rng.random(n) < 0.15
    side = rng.choice([-1, 1], n)
    s = np.where(extreme, side * rng.uniform(1.5, 2.5, n), rng.normal(0, 0.5, n))
    truth = np.where(extreme, np.where(s > 0, 0.999, 0.001), expit(s))
    return s, (rng.random(n) < truth).astype(np.int64), np.arange(n) % 5


def test_auto_never_deploys_a_map_that_raises_the_cross_fitted_ece():
    """Seed 3: temperature scaling has the least log loss of the maps whose gain passes the margin without costing
    ranking (5.6 standard errors), and auto used to deploy it, though it raises the cross-fitted ECE 0.0361 -> 0.0374;
    now it steps aside, saying so, and the next least log loss that lowers the ECE is deployed. Over 20 seeds the
    deployed map's ECE is never above no map's, and every map refused for its ECE gains log loss beyond the margin."""
    s, y, fold = under_confident_ends(3)
    table, _ = compare_maps(CFG, s, y, fold, classification_target(2))
    rows = {r["method"]: r for r in table}
    temperature = rows["temperature"]
    assert temperature["gain_in_standard_errors"] > 2 and temperature["ranking_vs_none"]["difference"] == 0.0
    but_for_ece = [
        r for r in table if r.get("qualifies") or r.get("why", "").startswith("it raises the cross-fitted ECE")
    ]
    assert temperature["log_loss"] == min(r["log_loss"] for r in but_for_ece)  # the old rule's choice
    assert temperature["ece_vs_none"] > 0 and not temperature["qualifies"]
    assert temperature["why"].startswith("it raises the cross-fitted ECE 0.0361 -> 0.0374")
    method = choose_map("auto", table)[0]
    assert method != "temperature" and rows[method]["ece_vs_none"] <= 0
    assert "temperature's lower log loss" in why_deployed("auto", table, method, 2.0)
    for seed in range(20):
        s, y, fold = under_confident_ends(seed)
        table, _ = compare_maps(CFG, s, y, fold, classification_target(2))
        rows = {r["method"]: r for r in table}
        assert rows[choose_map("auto", table)[0]]["ece"] <= rows["none"]["ece"]
        for r in table:
            if r["defined"] and "raises the cross-fitted ECE" in r["why"]:
                assert r["ece_vs_none"] > 0 and r["gain_in_standard_errors"] > 2


def test_a_named_map_worse_than_none_is_deployed_and_flagged():
    s, y, fold = scores(scale=1.0, n=300)  # few rows: isotonic's steps cost log loss against calibrated scores
    table, _ = compare_maps(CFG, s, y, fold, classification_target(2))
    isotonic, none = (next(r for r in table if r["method"] == m) for m in ("isotonic", "none"))
    assert isotonic["log_loss"] > none["log_loss"]
    method, warning = choose_map("isotonic", table)
    assert method == "isotonic" and "makes the probabilities worse" in warning and "calibration.method: auto" in warning


def test_separable_scores_leave_temperature_undefined_not_arbitrary():
    """Perfectly separated out-of-fold scores: temperature scaling has no minimiser (T -> 0); it raises its message,
    the table says so, and auto chooses among the maps that are defined."""
    y = np.tile([0, 1], 50)
    s = np.where(y == 1, 1.0, -1.0) * (1 + np.arange(100) / 100)
    with pytest.raises(ValueError, match="separate the classes perfectly"):
        TemperatureScaling().fit(s, y)
    table, _ = compare_maps(CFG, s, y, np.arange(100) % 5, classification_target(2))
    temperature = next(r for r in table if r["method"] == "temperature")
    assert not temperature["defined"] and "separate the classes perfectly" in temperature["reason"]
    assert choose_map("auto", table)[0] != "temperature"
    with pytest.raises(ValueError, match="separate the classes perfectly"):
        choose_map("temperature", table)


def test_multiclass_maps_take_the_class_scores():
    rng = np.random.default_rng(1)
    logits = rng.normal(0, 2, (1500, 3))
    y = np.array([rng.choice(3, p=np.exp(3 * z) / np.exp(3 * z).sum()) for z in logits])  # under-confident logits
    table, probabilities = compare_maps(CFG, logits, y, np.arange(1500) % 5, classification_target(3))
    assert all(p.shape == (1500, 3) for p in probabilities.values())
    assert choose_map("auto", table)[0] != "none"


def test_the_report_knows_when_the_deployed_map_changed_the_ranking():
    """A monotone map keeps the model's test AUC; a map that reorders rows (histogram binning's independent bins)
    changes it, and evaluate records both numbers so the card can say so."""
    from pipeline.core.evaluation_records import RankingChange
    from pipeline.reporting.page import ranking_note
    from pipeline.steps.evaluation import ranking_change

    y = np.array([0, 0, 1, 0, 1, 1, 0, 1])
    p = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    raw = np.column_stack([1 - p, p])
    monotone = ranking_change(classification_target(2), y, raw, np.column_stack([1 - p**2, p**2]))
    assert not monotone["changed"] and ranking_note(RankingChange(**monotone)) == ""
    q = np.where(p == 0.7, 0.05, p)  # the row at 0.7 (a negative) moved to the bottom
    reordered = ranking_change(classification_target(2), y, raw, np.column_stack([1 - q, q]))
    assert reordered["changed"] and reordered["model"] == 12 / 16 and reordered["deployed"] == 15 / 16
    note = ranking_note(RankingChange(**reordered))
    assert "test roc_auc 0.7500 of the model's own scores, 0.9375 of the deployed" in note
