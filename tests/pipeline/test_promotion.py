"""The promotion gate (pipeline/tracking/promotion.py) and the headline figures it reads
(pipeline/reporting/headline.py)."""

from __future__ import annotations

import pytest

from pipeline.reporting.headline import fairness_gaps, flat
from pipeline.tracking.promotion import champion_check, decide, threshold_checks

POLICY = {
    "min_headline": {"binary": 0.7, "multiclass": 0.7, "regression": 0.0},
    "max_ece": 0.05,
    "max_coverage_shortfall": 0.05,
    "max_fairness_gap": 0.4,
    "tolerance": 0.005,
    "fail_not_evaluated": True,
}
BINARY = {
    "test.roc_auc": 0.75,
    "calibration.test_ece_after": 0.02,
    "fairness.sex.demographic_parity_gap": 0.1,
    "fairness.sex.equal_opportunity_gap": 0.3,
    "trust.leaky_features": 0,
}


def test_every_threshold_passes():
    checks = threshold_checks(BINARY, "binary", POLICY) + [champion_check(BINARY, "binary", None, 0.005)]
    decision = decide(checks)
    assert decision["promote"] and len(decision["reasons"]) == 5
    assert "largest fairness gap <= max_fairness_gap: 0.3 (bound 0.4) passes" in decision["reasons"]


@pytest.mark.parametrize(
    "change, failing",
    [
        ({"test.roc_auc": 0.69}, "min_headline.binary"),
        ({"calibration.test_ece_after": 0.06}, "max_ece"),
        ({"fairness.sex.equal_opportunity_gap": 0.41}, "max_fairness_gap"),
        ({"calibration.test_ece_after": None}, "undefined"),
        ({"trust.leaky_features": 1}, "no feature alone predicts the target"),
    ],
)
def test_a_failed_threshold_blocks_promotion_and_is_named(change, failing):
    figures = {k: v for k, v in {**BINARY, **change}.items() if v is not None}
    decision = decide(threshold_checks(figures, "binary", POLICY))
    assert not decision["promote"] and failing in decision["reasons"][0]  # the failed check first
    assert len(decision["reasons"]) == 4 and sum("FAILS" in r for r in decision["reasons"]) == 1  # every check listed


def test_no_worse_than_the_champion_beyond_the_tolerance():
    champion = {"test.roc_auc": 0.76}
    assert champion_check(BINARY, "binary", champion, 0.01)["passed"]  # 0.75 >= 0.76 - 0.01
    failed = champion_check(BINARY, "binary", champion, 0.005)
    assert failed["passed"] is False and failed["bound"] == pytest.approx(0.755)
    assert champion_check(BINARY, "binary", {}, 0.005)["note"] == "no champion yet"


def test_null_bounds_are_skipped_and_said_so():
    policy = {**POLICY, "max_ece": None, "max_fairness_gap": None}
    decision = decide(threshold_checks(BINARY, "binary", policy))
    assert decision["promote"]
    checks = threshold_checks(
        {"test.r2": 0.5, "intervals.coverage": 0.86, "intervals.target_coverage": 0.9}, "regression", policy
    )
    # the single-feature check was not run (no figure), no sensitive attribute: both skipped, and said so
    assert [c["passed"] for c in checks] == [True, True, None, None]
    assert checks[2]["note"] == "assess.single_feature_bound is null"


def test_an_undefined_fairness_gap_is_not_evaluated_and_fails_closed():
    """Sensitive attributes declared, but every group below fairness.min_group_size: no gap is defined. The check is
    "not evaluated" and blocks promotion (it was silently skipped and missing from the reasons); with
    fail_not_evaluated false it is skipped, and still listed."""
    figures = {k: v for k, v in BINARY.items() if not k.startswith("fairness.")} | {"fairness.n_attributes": 1}
    decision = decide(threshold_checks(figures, "binary", POLICY))
    assert not decision["promote"]
    assert decision["reasons"][0].startswith("largest fairness gap <= max_fairness_gap: FAILS, not evaluated")
    lenient = decide(threshold_checks(figures, "binary", {**POLICY, "fail_not_evaluated": False}))
    assert lenient["promote"] and any("skipped (not evaluated" in r for r in lenient["reasons"])
    no_attributes = {k: v for k, v in figures.items() if k != "fairness.n_attributes"}
    assert decide(threshold_checks(no_attributes, "binary", POLICY))["promote"]  # not applicable: skipped, passes


def test_regression_coverage_shortfall():
    figures = {
        "test.r2": 0.5,
        "intervals.coverage": 0.8,
        "intervals.target_coverage": 0.9,
        "fairness.sex.interval_coverage_gap": 0.02,
    }
    decision = decide(threshold_checks(figures, "regression", POLICY))
    assert not decision["promote"] and "coverage shortfall" in decision["reasons"][0]


def test_headline_fairness_gaps_count_intersections_and_the_gate_reads_them():
    """The issue's case: each attribute's gap within the bound, the intersection's beyond it: the gate fails."""
    fairness = {
        "task": "binary",
        "attributes": {
            "sex": {"criteria": {"demographic_parity": {"difference": 0.1}, "equal_opportunity": {"difference": None}}},
            "sex & race": {
                "criteria": {"demographic_parity": {"difference": 0.4563}, "equal_opportunity": {"difference": 0.2}}
            },
        },
    }
    gaps = fairness_gaps(fairness)
    assert gaps == {
        "sex.demographic_parity_gap": 0.1,
        "sex.equal_opportunity_gap": None,
        "sex x race.demographic_parity_gap": 0.4563,
        "sex x race.equal_opportunity_gap": 0.2,
    }
    figures = flat({"fairness": gaps, "test": {"roc_auc": 0.8}})
    assert (
        figures["fairness.sex x race.demographic_parity_gap"] == 0.4563
        and "fairness.sex.equal_opportunity_gap" not in figures
    )
    checks = threshold_checks(figures, "binary", {**POLICY, "max_fairness_gap": 0.4})
    fairness_check = next(c for c in checks if "fairness" in c["check"])
    assert fairness_check["value"] == 0.4563 and fairness_check["passed"] is False


def test_a_changed_target_or_inputs_never_takes_champion_silently():
    import json

    from pipeline.tracking.promotion import contract_check

    ours = {"contract.target": "binexp (binary, classes [0, 1])", "contract.inputs": json.dumps(["age:numeric"])}
    assert contract_check(ours, None, False)["note"] == "no champion yet"
    assert contract_check(ours, {"headline.test.roc_auc": "0.7"}, False)["passed"]  # a champion from before the tags
    assert contract_check(ours, dict(ours), False)["passed"]
    other = {
        "contract.target": "meddol (regression)",
        "contract.inputs": json.dumps(["age:numeric", "plan:categorical"]),
    }
    changed = contract_check(ours, other, False)
    assert changed["passed"] is False
    assert "target 'binexp (binary, classes [0, 1])' where the champion's is 'meddol (regression)'" in changed["note"]
    assert "removed ['plan:categorical']" in changed["note"] and "tracking.registered_model" in changed["note"]
    assert decide([changed])["reasons"][0].startswith("same target and inputs as the champion (contract.*): FAILS")
    assert contract_check(ours, other, True)["passed"] and "allowed" in contract_check(ours, other, True)["note"]
