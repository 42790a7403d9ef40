"""audit_groups / fairness_report: hand-computed confusion matrices, the four criteria as differences and
ratios, undefined = nan + flag, small groups flagged and excluded, seeded bootstrap intervals."""

import math

import numpy as np
import pytest

from mllib.calibration import group_calibration_summary
from mllib.fairness import audit_groups, criteria_compatibility, fairness_report, intersectional_groups


def _labels(counts):
    """{group: (tp, fp, fn, tn)} -> y_true, y_pred, groups."""
    y_true, y_pred, groups = [], [], []
    for g, (tp, fp, fn, tn) in counts.items():
        y_true += [1] * tp + [0] * fp + [1] * fn + [0] * tn
        y_pred += [1] * tp + [1] * fp + [0] * fn + [0] * tn
        groups += [g] * (tp + fp + fn + tn)
    return np.array(y_true), np.array(y_pred), np.array(groups)


# a: TP 40, FP 10, FN 20, TN 30 (catalogue (b) 1); b: TP 30, FP 30, FN 10, TN 30
COUNTS = {"a": (40, 10, 20, 30), "b": (30, 30, 10, 30)}


def test_hand_computed_metrics_and_criteria():
    result = audit_groups(*_labels(COUNTS), min_group_size=10, n_boot=0)
    a, b = result["groups"]["a"], result["groups"]["b"]
    assert (a["n"], a["n_pos"], a["n_neg"]) == (100, 60, 40)
    expected_a = {
        "base_rate": 0.6,
        "selection_rate": 0.5,
        "tpr": 40 / 60,
        "fpr": 0.25,
        "precision": 0.8,
        "accuracy": 0.7,
    }
    expected_b = {"base_rate": 0.4, "selection_rate": 0.6, "tpr": 0.75, "fpr": 0.5, "precision": 0.5, "accuracy": 0.6}
    for key in expected_a:
        assert a[key] == pytest.approx(expected_a[key], abs=1e-15), key
        assert b[key] == pytest.approx(expected_b[key], abs=1e-15), key
    c = result["criteria"]
    assert c["demographic_parity"]["difference"] == pytest.approx(0.1)
    assert c["demographic_parity"]["ratio"] == pytest.approx(0.5 / 0.6)
    assert c["equal_opportunity"]["difference"] == pytest.approx(0.75 - 2 / 3)  # t/p, E4
    assert c["equal_opportunity"]["ratio"] == pytest.approx((2 / 3) / 0.75)
    # equalized odds: the worse of TPR (1/12) and FPR (0.25) gaps; the smaller of the two ratios
    assert c["equalized_odds"]["difference"] == pytest.approx(0.25)
    assert c["equalized_odds"]["ratio"] == pytest.approx(0.5)
    assert c["predictive_parity"]["difference"] == pytest.approx(0.3)
    assert c["predictive_parity"]["ratio"] == pytest.approx(0.5 / 0.8)
    assert c["predictive_parity"]["per_metric"]["precision"] == {"max_group": "a", "min_group": "b", "n_defined": 2}
    assert all(v["defined"] and v["ratio_defined"] and v["reason"] is None for v in c.values())


def test_undefined_is_nan_with_a_flag_not_zero():
    # group c has no positives: TPR undefined; with only a and c of size >= min, equal opportunity is undefined
    counts = {"a": (8, 1, 2, 29), "b": (1, 0, 0, 1), "c": (0, 3, 0, 37)}
    result = audit_groups(*_labels(counts), min_group_size=10, n_boot=0)
    assert math.isnan(result["groups"]["c"]["tpr"]) and "tpr" in result["groups"]["c"]["undefined"]
    eo = result["criteria"]["equal_opportunity"]
    assert math.isnan(eo["difference"]) and math.isnan(eo["ratio"]) and not eo["defined"]
    assert "tpr" in eo["reason"]
    assert result["criteria"]["equalized_odds"]["defined"] is False
    assert result["criteria"]["demographic_parity"]["defined"]
    # small group b is reported (flagged) but excluded from the criteria
    assert result["groups"]["b"]["small"] and result["small_groups"] == ["b"]
    assert eo["excluded_groups"] == ["b"]
    # a zero maximum makes the ratio undefined (0 / 0) while the difference is 0
    zero = audit_groups(*_labels({"a": (0, 0, 5, 5), "b": (0, 0, 3, 7)}), min_group_size=1, n_boot=0)
    dp = zero["criteria"]["demographic_parity"]
    assert dp["difference"] == 0.0 and dp["defined"] and math.isnan(dp["ratio"]) and not dp["ratio_defined"]
    assert "0 / 0" in dp["reason"]


def _random_problem(seed=0, n=2000):
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b"], size=n, p=[0.6, 0.4])
    y = (rng.random(n) < np.where(g == "a", 0.3, 0.5)).astype(int)
    p = np.clip(0.35 + 0.3 * y + rng.normal(0, 0.2, n) + 0.1 * (g == "b"), 0, 1)
    return y, (p >= 0.5).astype(int), g, p


def test_bootstrap_is_deterministic_given_the_seed_and_covers_the_point_estimate():
    y, pred, g, p = _random_problem()
    first = audit_groups(y, pred, g, proba=p, n_boot=300, random_state=7)
    again = audit_groups(y, pred, g, proba=p, n_boot=300, random_state=7)
    other = audit_groups(y, pred, g, proba=p, n_boot=300, random_state=8)
    assert first == again
    assert first["groups"]["a"]["intervals"] != other["groups"]["a"]["intervals"]
    for row in first["groups"].values():
        for metric, (lo, hi) in row["intervals"].items():
            assert lo <= row[metric] <= hi, metric
            assert hi - lo < 0.1, metric  # n ~ 800-1200 per group
    for name, crit in first["criteria"].items():  # real gaps here (base rates and scores differ)
        lo, hi = crit["difference_interval"]
        assert lo <= crit["difference"] <= hi, name
    assert first["bootstrap"] == {
        "n_boot": 300,
        "confidence_level": 0.95,
        "random_state": 7,
        "unit": "row",
        "n_units": 2000,
    }


def test_cluster_bootstrap_with_one_row_per_cluster_is_the_row_bootstrap_and_clusters_widen_intervals():
    y, pred, g, _ = _random_problem(1, n=600)
    rows = audit_groups(y, pred, g, n_boot=200, random_state=3)
    singletons = audit_groups(y, pred, g, groups=np.arange(600), n_boot=200, random_state=3)
    assert rows["groups"] == singletons["groups"] and rows["criteria"] == singletons["criteria"]
    # each "person" contributes 10 identical rows: resampling people must give wider intervals than rows
    person = np.repeat(np.arange(60), 10)
    y10, pred10, g10 = (np.repeat(v[:60], 10) for v in (y, pred, g))
    naive = audit_groups(y10, pred10, g10, n_boot=300, random_state=0)
    clustered = audit_groups(y10, pred10, g10, groups=person, n_boot=300, random_state=0)
    width = lambda r: np.diff(r["groups"]["a"]["intervals"]["selection_rate"])[0]  # noqa: E731
    assert clustered["bootstrap"]["unit"] == "cluster" and clustered["bootstrap"]["n_units"] == 60
    assert width(clustered) > 2 * width(naive)


def test_group_calibration_error_matches_the_calibration_module():
    y, pred, g, p = _random_problem(2)
    for strategy in ("uniform", "quantile"):
        result = audit_groups(y, pred, g, proba=p, n_boot=0, strategy=strategy, n_bins=8)
        reference = group_calibration_summary(y, p, g, n_bins=8, strategy=strategy)
        for group in ("a", "b"):
            assert result["groups"][group]["calibration_error"] == pytest.approx(reference[group]["ece"], abs=1e-12)
        assert result["binning"] == {"n_bins": 8, "strategy": strategy}


def test_intersections_and_report():
    attributes = {"female": np.array([0, 1, 0, 1]), "black": np.array([1, 1, 0, 0]), "old": np.array([0, 0, 0, 1])}
    groupings = intersectional_groups(attributes)
    assert list(groupings) == [
        "female",
        "black",
        "old",
        "female & black",
        "female & old",
        "black & old",
        "female & black & old",
    ]
    assert np.asarray(groupings["female & black"]).tolist() == [
        "female=0,black=1",
        "female=1,black=1",
        "female=0,black=0",
        "female=1,black=0",
    ]
    y, pred = np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0])
    report = fairness_report(
        y, pred, {"female": attributes["female"], "black": attributes["black"]}, n_boot=0, min_group_size=1
    )
    assert list(report) == ["female", "black", "female & black"]
    assert report["female & black"]["groups"]["female=1,black=1"]["n"] == 1


def test_compatibility_given_base_rates():
    # catalogue 5.2: base rates 1/3 and 1/5 -> equalized odds and predictive parity cannot hold together
    result = criteria_compatibility([1 / 3, 1 / 5])
    assert not result["equal_base_rates"]
    assert not result["sets"]["equalized_odds+predictive_parity"]["possible"]
    assert "FPR = 0" in result["sets"]["equalized_odds+predictive_parity"]["condition"]
    assert not result["sets"]["demographic_parity+equalized_odds"]["possible"]
    assert result["sets"]["demographic_parity+predictive_parity"]["possible"]
    assert criteria_compatibility([0.25, 0.25, 0.25])["sets"]["all"]["possible"]
    with pytest.raises(ValueError, match="base_rates"):
        criteria_compatibility([0.0, 0.5])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"min_group_size": 0}, "min_group_size"),
        ({"n_boot": -1}, "n_boot"),
        ({"confidence_level": 1.0}, "confidence_level"),
        ({"proba": [0.5, 1.5, 0.2]}, r"\[0, 1\]"),
        ({"groups": [1, None, 2]}, "missing"),
    ],
)
def test_invalid_inputs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        audit_groups([0, 1, 1], [0, 1, 0], ["a", "b", "a"], **kwargs)


def test_all_groups_small_gives_undefined_criteria_not_an_error():
    result = audit_groups([0, 1, 1, 0], [0, 1, 0, 1], ["a", "b", "a", "b"], min_group_size=30, n_boot=20)
    assert result["small_groups"] == ["a", "b"]
    assert all(not c["defined"] and math.isnan(c["difference"]) for c in result["criteria"].values())
    assert all(math.isnan(v) for v in result["criteria"]["equal_opportunity"]["difference_interval"])


def test_catalogue_impossibility_example_through_the_audit():
    # catalogue 5.2: n = (100, 200) negatives, p = (50, 50) positives, TPR 0.8 (t/p, E4) and FPR 0.1 in both groups
    y, pred, g = _labels({"g1": (40, 10, 10, 90), "g2": (40, 20, 10, 180)})
    result = audit_groups(y, pred, g, min_group_size=1, n_boot=0)
    assert result["criteria"]["equal_opportunity"]["difference"] == 0.0
    assert result["criteria"]["equalized_odds"]["difference"] == pytest.approx(0.0, abs=1e-15)
    assert result["criteria"]["predictive_parity"]["difference"] == pytest.approx(0.8 - 2 / 3)
    base_rates = [row["base_rate"] for row in result["groups"].values()]
    assert not criteria_compatibility(base_rates)["sets"]["equalized_odds+predictive_parity"]["possible"]
