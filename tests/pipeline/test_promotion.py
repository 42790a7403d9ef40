"""The promotion gate (pipeline/tracking/promotion.py) and the headline figures it reads
(pipeline/reporting/headline.py)."""

from __future__ import annotations

import pytest
from partial_records import partial

from pipeline.core.fairness_records import BinaryFairness
from pipeline.core.task import Target
from pipeline.reporting.headline import fairness_gaps, flat
from pipeline.tracking.promotion import FIXES, Champion, champion_check, decide, threshold_checks

BINARY_TARGET = Target("binary", "y", [0, 1], "set by data.task")
REGRESSION_TARGET = Target("regression", "y", [], "set by data.task")

POLICY = {
    "min_headline": {"binary": 0.7, "multiclass": 0.7, "regression": 0.0},
    "max_ece": 0.05,
    "min_decision_gain": 0.0,
    "max_coverage_shortfall": 0.05,
    "max_fairness_gap": 0.4,
    "tolerance": 0.005,
    "fail_not_evaluated": True,
}
BINARY = {
    "test.roc_auc": 0.75,
    "test.roc_auc_low": 0.72,
    "test.n": 1000,
    "calibration.test_ece_after": 0.02,
    "calibration.test_ece_after_high": 0.03,
    "decisions.gain_vs_no_skill": 0.1,
    "decisions.gain_vs_no_skill_low": 0.05,
    "decisions.classes_decided": 2,
    "fairness.n_attributes": 1,
    "fairness.sex.demographic_parity_gap": 0.1,
    "fairness.sex.demographic_parity_gap_high": 0.15,
    "fairness.sex.equal_opportunity_gap": 0.3,
    "fairness.sex.equal_opportunity_gap_high": 0.35,
    "trust.leaky_features": 0,
}


def test_every_threshold_passes():
    checks = threshold_checks(BINARY, BINARY_TARGET, POLICY) + [champion_check(BINARY, BINARY_TARGET, None, 0.005)]
    decision = decide(checks)
    assert decision.promote and len(decision.reasons) == 7
    assert "largest fairness gap's interval <= max_fairness_gap: 0.35 (bound 0.4) passes" in decision.reasons[-2]


@pytest.mark.parametrize(
    "change, failing",
    [
        ({"test.roc_auc_low": 0.69}, "min_headline.binary"),  # the point 0.75 clears 0.7, its interval does not
        ({"calibration.test_ece_after_high": 0.06}, "max_ece"),  # the point 0.02 is within, its upper end is not
        ({"fairness.sex.equal_opportunity_gap_high": 0.41}, "max_fairness_gap"),  # the point 0.3 is within
        ({"calibration.test_ece_after_high": None}, "max_ece: FAILS, not evaluated: the value is undefined"),
        ({"trust.leaky_features": 1}, "features that alone predict the target beyond"),
        ({"decisions.gain_vs_no_skill_low": -0.002}, "gain over the no-skill rule"),
        ({"decisions.classes_decided": 1}, "classes decided on test >= 2"),
    ],
)
def test_a_failed_threshold_blocks_promotion_and_is_named(change, failing):
    figures = {k: v for k, v in {**BINARY, **change}.items() if v is not None}
    decision = decide(threshold_checks(figures, BINARY_TARGET, POLICY))
    assert not decision.promote and failing in decision.reasons[0]  # the failed check first
    assert len(decision.reasons) == 6 and sum("FAILS" in r for r in decision.reasons) == 1  # every check listed


def test_a_rule_that_never_predicts_the_positive_class_is_no_champion_unless_costs_say_so():
    """The issue's rare-positive file: tp 0, fp 0 at the deployed rule, AUC 0.737 and ECE 0.003 passing. The gain over
    deciding "No" for every row is 0 (its interval straddles 0) and one class is decided: both checks fail, naming
    decision.cost_matrix as the fix. With costs set, one class may be their answer; the gain check still asks for
    evidence that the rule beats the constant one."""
    rare = {**BINARY, "decisions.gain_vs_no_skill": 0.0, "decisions.gain_vs_no_skill_low": 0.0,
            "decisions.classes_decided": 1}  # fmt: skip
    decision = decide(threshold_checks(rare, BINARY_TARGET, POLICY))
    failed = [r for r in decision.reasons if "FAILS" in r]
    assert not decision.promote and len(failed) == 2
    assert all("decision.cost_matrix" in r for r in failed)
    with_costs = threshold_checks(rare, BINARY_TARGET, POLICY, costs_set=True)
    one_class = next(c for c in with_costs if c.check.startswith("classes decided"))
    assert one_class.passed and "decision.cost_matrix is set" in one_class.check
    assert decide(threshold_checks(rare, BINARY_TARGET, {**POLICY, "min_decision_gain": None})).promote  # both skipped


def test_no_worse_than_the_champion_beyond_the_tolerance():
    champion = Champion(version="3", figure=0.76, tags={})
    assert champion_check(BINARY, BINARY_TARGET, champion, 0.01).passed  # 0.75 >= 0.76 - 0.01
    failed = champion_check(BINARY, BINARY_TARGET, champion, 0.005)
    assert failed.passed is False and failed.bound == pytest.approx(0.755)
    assert champion_check(BINARY, BINARY_TARGET, None, 0.005).note == "no champion yet"


def test_a_contract_change_is_still_compared_never_no_champion_yet():
    """The issue's case: allow_contract_change true, a version with other inputs replaced the champion and its
    description said "no champion yet". Now the best champion for the same target is compared whatever its inputs,
    and a champion of another target is "not compared", failing closed unless the params allow it."""
    import json

    ours = {"contract.target": "binexp (binary, classes [0, 1])", "contract.inputs": json.dumps(["age:numeric"])}
    theirs = {"contract.target": ours["contract.target"],
              "contract.inputs": json.dumps(["age:numeric", "plan:categorical"])}  # fmt: skip
    best = Champion(version="2", figure=0.8, tags=theirs)
    check = champion_check(BINARY, BINARY_TARGET, best, 0.005, theirs, ours, allow_change=True)
    assert check.passed is False and check.bound == pytest.approx(0.795)  # compared: 0.75 < 0.795
    assert "version 2" in check.note and "removed ['plan:categorical']" in check.note
    other = {"contract.target": "meddol (regression)", "contract.inputs": ours["contract.inputs"]}
    strict = champion_check(BINARY, BINARY_TARGET, None, 0.005, other, ours, allow_change=False)
    assert strict.passed is False and strict.note.startswith("not compared: the target changed from meddol")
    allowed = champion_check(BINARY, BINARY_TARGET, None, 0.005, other, ours, allow_change=True)
    assert allowed.passed is None and "allowed by tracking.promotion.allow_contract_change" in allowed.note
    assert all("no champion yet" not in (c.note or "") for c in (check, strict, allowed))


def test_null_bounds_are_skipped_and_said_so():
    policy = {**POLICY, "max_ece": None, "max_fairness_gap": None}
    decision = decide(threshold_checks(BINARY, BINARY_TARGET, policy))
    assert decision.promote
    checks = threshold_checks(
        {
            "test.r2": 0.5,
            "test.r2_low": 0.4,
            "intervals.worst_fifth_coverage_low": 0.86,
            "intervals.target_coverage": 0.9,
        },
        REGRESSION_TARGET,
        policy,
    )
    # the single-feature check was not run (no figure), no sensitive attribute: both skipped, and said so
    assert [c.passed for c in checks] == [True, True, None, None]
    assert checks[2].note == "assess.single_feature_bound is null"


def test_an_undefined_fairness_gap_is_not_evaluated_and_fails_closed():
    """Sensitive attributes declared, but every group below fairness.min_group_size: no gap is defined. The check is
    "not evaluated" and blocks promotion (it was silently skipped and missing from the reasons); with
    fail_not_evaluated false it is skipped, and still listed."""
    figures = {k: v for k, v in BINARY.items() if not k.startswith("fairness.")} | {"fairness.n_attributes": 1}
    decision = decide(threshold_checks(figures, BINARY_TARGET, POLICY))
    assert not decision.promote
    assert decision.reasons[0].startswith("every audited attribute and intersection has its fairness gaps: FAILS")
    lenient = decide(threshold_checks(figures, BINARY_TARGET, {**POLICY, "fail_not_evaluated": False}))
    assert lenient.promote and any("skipped (not evaluated" in r for r in lenient.reasons)
    no_attributes = {k: v for k, v in figures.items() if k != "fairness.n_attributes"}
    assert decide(threshold_checks(no_attributes, BINARY_TARGET, POLICY)).promote  # not applicable: skipped, passes


def test_one_attribute_not_evaluated_beside_one_within_the_bound_fails_by_name():
    """The issue's case: two audited attributes, one whose gaps are all undefined (only small groups), one within the
    bound; the version became champion and its description said "every check passes". The gate took the max over the
    defined gaps only; now the undefined ones are named and block promotion."""
    undefined = ["race.demographic_parity_gap", "race.equal_opportunity_gap", "sex x race.demographic_parity_gap"]
    decision = decide(threshold_checks({**BINARY, "fairness.n_attributes": 2}, BINARY_TARGET, POLICY, False, undefined))
    assert not decision.promote
    assert "not evaluated: race.demographic_parity_gap, race.equal_opportunity_gap, sex x race" in decision.reasons[0]
    assert any(
        "largest fairness gap's interval <= max_fairness_gap: 0.35 (bound 0.4) passes" in r for r in decision.reasons
    )


def test_regression_coverage_shortfall():
    figures = {
        "test.r2": 0.5,
        "test.r2_low": 0.3,
        "intervals.coverage": 0.88,
        "intervals.coverage_low": 0.86,
        "intervals.worst_fifth_coverage": 0.88,
        "intervals.worst_fifth_coverage_low": 0.8,  # the point within 0.05 of 0.9, the interval's lower end not
        "intervals.target_coverage": 0.9,
        "fairness.n_attributes": 1,
        "fairness.sex.interval_coverage_gap": 0.02,
        "fairness.sex.interval_coverage_gap_high": 0.03,
    }
    decision = decide(threshold_checks(figures, REGRESSION_TARGET, POLICY))
    assert not decision.promote and "coverage shortfall in the worst fifth" in decision.reasons[0]


def test_regression_coverage_is_held_in_the_worst_fifth_of_predictions():
    """The issue's case: constant-width intervals on a skewed price hold 0.90 of the test rows (the lower end of the
    interval 0.894, within the bound) but 0.66 in the top fifth of predicted prices; the version was promoted. The gate
    reads the worst fifth's lower end now, and passes intervals that hold in every fifth."""
    figures = {
        "test.r2": 0.92,
        "test.r2_low": 0.91,
        "intervals.coverage": 0.902,
        "intervals.coverage_low": 0.894,
        "intervals.worst_fifth_coverage": 0.66,
        "intervals.worst_fifth_coverage_low": 0.64,
        "intervals.target_coverage": 0.9,
    }
    decision = decide(threshold_checks(figures, REGRESSION_TARGET, POLICY))
    assert not decision.promote
    assert decision.reasons[0].startswith("interval coverage shortfall in the worst fifth of predictions") and (
        "0.26 (bound 0.05) FAILS" in decision.reasons[0]
    )
    held = {**figures, "intervals.worst_fifth_coverage": 0.895, "intervals.worst_fifth_coverage_low": 0.88}
    assert decide(threshold_checks(held, REGRESSION_TARGET, POLICY)).promote


def test_headline_fairness_gaps_count_intersections_and_the_gate_reads_them():
    """The issue's case: each attribute's gap within the bound, the intersection's beyond it: the gate fails."""
    fairness = {
        "task": "binary",
        "attributes": {
            "sex": {"criteria": {"demographic_parity": {"difference": 0.1, "difference_interval": [0.05, 0.16]},
                                 "equal_opportunity": {"difference": None, "difference_interval": None}}},
            "sex & race": {
                "criteria": {"demographic_parity": {"difference": 0.4563, "difference_interval": [0.4, 0.52]},
                             "equal_opportunity": {"difference": 0.2, "difference_interval": [0.1, 0.3]}}
            },
        },
    }  # fmt: skip
    gaps = fairness_gaps(BINARY_TARGET, partial(BinaryFairness, fairness))
    assert gaps == {
        "sex.demographic_parity_gap": 0.1,
        "sex.demographic_parity_gap_high": 0.16,
        "sex.equal_opportunity_gap": None,
        "sex.equal_opportunity_gap_high": None,
        "sex x race.demographic_parity_gap": 0.4563,
        "sex x race.demographic_parity_gap_high": 0.52,
        "sex x race.equal_opportunity_gap": 0.2,
        "sex x race.equal_opportunity_gap_high": 0.3,
    }
    figures = flat({"fairness": {**gaps, "n_attributes": 1}, "test": {"roc_auc": 0.8}})
    assert (
        figures["fairness.sex x race.demographic_parity_gap"] == 0.4563
        and "fairness.sex.equal_opportunity_gap" not in figures
    )
    checks = threshold_checks(figures, BINARY_TARGET, {**POLICY, "max_fairness_gap": 0.4})
    fairness_check = next(c for c in checks if "fairness" in c.check)
    assert fairness_check.value == 0.52 and fairness_check.passed is False


def test_a_fairness_gap_whose_interval_crosses_the_bound_blocks_promotion():
    """The issue's case: `model.name=gradient_boosting` became champion with an intersectional demographic-parity gap of
    0.373, interval [0.288, 0.484], against max_fairness_gap 0.4: the gate read the point alone. It reads the upper
    end now, names the gap, its point and the end it read; a gap without its interval's upper end is not evaluated."""
    figures = {
        **BINARY,
        "fairness.female x black.demographic_parity_gap": 0.373,
        "fairness.female x black.demographic_parity_gap_high": 0.484,
    }
    decision = decide(threshold_checks(figures, BINARY_TARGET, POLICY))
    assert not decision.promote
    assert decision.reasons[0] == (
        "upper end of the largest fairness gap's interval <= max_fairness_gap: 0.484 (bound 0.4) FAILS "
        f"(female x black.demographic_parity_gap 0.373, its interval's upper end 0.484; fix: {FIXES['fairness']})"
    ), decision.reasons[0]
    within = {**figures, "fairness.female x black.demographic_parity_gap_high": 0.39}
    assert decide(threshold_checks(within, BINARY_TARGET, POLICY)).promote
    no_interval = {k: v for k, v in within.items() if k != "fairness.female x black.demographic_parity_gap_high"}
    blocked = decide(threshold_checks(no_interval, BINARY_TARGET, POLICY))
    assert not blocked.promote
    assert "not evaluated: female x black.demographic_parity_gap_high (" in blocked.reasons[0], blocked.reasons[0]
    named = decide(
        threshold_checks(no_interval, BINARY_TARGET, POLICY, False, ["female x black.demographic_parity_gap_high"])
    )
    assert named.reasons[0].count("female x black.demographic_parity_gap_high") == 1, named.reasons[0]  # named once


def test_a_changed_target_or_inputs_never_takes_champion_silently():
    import json

    from pipeline.tracking.promotion import contract_check

    ours = {"contract.target": "binexp (binary, classes [0, 1])", "contract.inputs": json.dumps(["age:numeric"])}
    assert contract_check(ours, None, False).note == "no champion yet"
    assert contract_check(ours, {"headline.test.roc_auc": "0.7"}, False).passed  # a champion from before the tags
    assert contract_check(ours, dict(ours), False).passed
    other = {
        "contract.target": "meddol (regression)",
        "contract.inputs": json.dumps(["age:numeric", "plan:categorical"]),
    }
    changed = contract_check(ours, other, False)
    assert changed.passed is False
    assert "target 'binexp (binary, classes [0, 1])' where the champion's is 'meddol (regression)'" in changed.note
    assert "removed ['plan:categorical']" in changed.note and "tracking.registered_model" in changed.note
    assert decide([changed]).reasons[0].startswith("same target and inputs as the champion (contract.*): FAILS")
    assert contract_check(ours, other, True).passed and "allowed" in contract_check(ours, other, True).note
