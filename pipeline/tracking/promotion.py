"""The promotion gate: which registered model version may become the `champion` (the one to deploy).

Every pipeline state is registered as a new version with the alias `candidate`; `champion` moves to it only when
every check of params.yaml `tracking.promotion` passes, each test figure read with its uncertainty (the evaluate
stage's bootstrap intervals): the lower end of the task's headline test metric's interval (ROC AUC, macro one-vs-rest
ROC AUC or R^2) is at least `min_headline`; the upper end of the test ECE's interval (classification) or the target
coverage minus the lower end of the test coverage's interval (regression) is within bounds; the deployed decisions
beat the no-skill rule's (one class for every row) beyond their noise, on balanced error or realised cost, and name
more than one class unless decision.cost_matrix is set (classification); the largest parity gap (classification) or
interval coverage gap (regression) of the sensitive attributes and their intersections is within `max_fairness_gap` at
the upper end of its bootstrap interval;
no feature column alone predicts the target beyond assess.single_feature_bound unless assess.legitimate_features
declares its column (leakage); and the headline metric is no worse than the best champion's for the same target
beyond `tolerance`. A check with a null bound is skipped and says so; a check that applies but cannot be computed
(an audited attribute or intersection without two groups large enough for a gap, named) is "not evaluated" and fails
closed unless tracking.promotion.fail_not_evaluated is false. The decision's reasons list every check, the failed ones
first.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..core.json_types import JSON
from ..core.task import Target

GateCheck = tuple[str, float | None, float | None, str, str]  # (name, value, bound, op, fix when it fails)


@dataclass(frozen=True)
class Check:
    """One check of the gate: value op bound; passed None: skipped (a null bound), False: failed or not evaluated;
    fix: what to do when it fails (the report's verdict panel and the run's summary show it beside the figures)."""

    check: str
    value: float | None
    bound: float | None
    passed: bool | None
    note: str | None = None
    fix: str | None = None


@dataclass(frozen=True)
class Decision:
    """The gate's decision: promote when no check failed; reasons describe every check, the failed ones first."""

    promote: bool
    reasons: list[str]


@dataclass(frozen=True)
class Champion:
    """The best version that has been champion for the same target: its number, headline figure and tags."""

    version: str
    figure: float
    tags: dict[str, str]


LEAKY = "features that alone predict the target beyond assess.single_feature_bound <= 0"
FIXES = {  # what to do when a check fails, by check (the decisions' and the quality check's are below, by task)
    "headline": "more rows or more informative columns; or a lower tracking.promotion.min_headline if the use allows",
    "leakage": "drop the column (data.drop), or declare it in assess.legitimate_features if it is known at prediction "
    "time",
    "fairness": "the report's Fairness section: a mitigation that narrows the gap on test, or a model without the "
    "proxy columns; the bound is tracking.promotion.max_fairness_gap",
    "not evaluated": "more rows of the small groups, or a lower fairness.min_group_size",
    "champion": "compare the two runs in MLflow; apply a better experiment, or tracking.promotion.tolerance",
}


def calibration_check(figures: JSON, cfg: JSON) -> tuple[str, float | None, float | None, str]:
    """The gate's check of the deployed probabilities: (name, value, bound, fix), value <= bound passes; the value is
    the upper end of the test ECE's interval."""
    name = "upper end of calibration.test_ece_after's interval <= max_ece"
    fix = "calibration.method auto (it tries every map on cross-fitted scores); more rows narrow the interval"
    return name, figures.get("calibration.test_ece_after_high"), cfg["max_ece"], fix


def coverage_check(figures: JSON, cfg: JSON) -> tuple[str, float | None, float | None, str]:
    """The gate's check of the intervals: how far the lower end of the coverage's interval in the worst fifth of the
    test predictions falls short of the coverage asked. The promise is made to every row, so it is held where the
    intervals hold least: an overall 0.90 can be 0.99 on small predictions and 0.66 on the largest fifth (a constant
    width on a skewed target). Its lower end also bounds the overall coverage's from below, up to the draws' noise:
    the overall check is implied."""
    coverage, target = figures.get("intervals.worst_fifth_coverage_low"), figures.get("intervals.target_coverage")
    shortfall = None if coverage is None else target - coverage
    name = (
        "interval coverage shortfall in the worst fifth of predictions (target - lower end of its coverage's "
        "interval) <= max_coverage_shortfall"
    )
    fix = "calibration.interval_score normalized (intervals scale with the prediction), or model.target_transform log"
    return name, shortfall, cfg["max_coverage_shortfall"], fix


def classification_decision_checks(figures: JSON, cfg: JSON, costs_set: bool) -> list[GateCheck]:
    """The gate's checks of the deployed decisions, (name, value, bound, op, fix when it fails) each: the rule beats
    the rule that decides one class for every row beyond the noise (the lower end of the gain's interval above
    min_decision_gain), and it decides more than one class on test unless decision.cost_matrix is set (costs may make
    one class the best decision for every row)."""
    bound = cfg["min_decision_gain"]
    fix = "set decision.cost_matrix to what each error costs (the threshold follows from it)"
    return [
        (
            "lower end of the decisions' gain over the no-skill rule's (interval) > min_decision_gain",
            figures.get("decisions.gain_vs_no_skill_low"),
            bound,
            ">",
            fix,
        ),
        (
            "classes decided on test >= 2" + (" (1 allowed: decision.cost_matrix is set)" if costs_set else ""),
            figures.get("decisions.classes_decided"),
            None if bound is None else 1 if costs_set else 2,
            ">=",
            fix,
        ),
    ]


def no_decision_checks(figures: JSON, cfg: JSON, costs_set: bool) -> list[GateCheck]:
    """A regression target makes no decisions: no checks."""
    return []


# by task: the check of how far the deployed output can be trusted (calibration, or interval coverage), the checks
# of its decisions, and the headline's gaps (pipeline/reporting/headline.py) the fairness bound reads
QUALITY_CHECKS = {"binary": calibration_check, "multiclass": calibration_check, "regression": coverage_check}
DECISION_CHECKS = {
    "binary": classification_decision_checks,
    "multiclass": classification_decision_checks,
    "regression": no_decision_checks,
}
PARITY_GAPS = ("demographic_parity_gap", "equal_opportunity_gap")
FAIRNESS_GAPS = {"binary": PARITY_GAPS, "multiclass": PARITY_GAPS, "regression": ("interval_coverage_gap",)}


def threshold_checks(
    figures: dict[str, float], target: Target, cfg: JSON, costs_set: bool = False, undefined_gaps: Sequence[str] = ()
) -> list[Check]:
    """The checks that need no registry: a Check each (passed None: skipped, bound null).
    The headline and quality checks read the conservative end of the test figure's bootstrap interval, so a figure
    from few rows has to clear its bound with its uncertainty; costs_set: decision.cost_matrix is set;
    undefined_gaps: the audited attributes' and intersections' gaps that could not be computed (by name)."""
    metric, min_headline = f"test.{target.headline_metric}", cfg["min_headline"][target.task]
    on = f"test figure {_fmt(figures.get(metric))} on {_fmt(figures.get('test.n'))} rows"
    quality, value, bound, fix = QUALITY_CHECKS[target.task](figures, cfg)  # calibration, or interval coverage
    checks = [
        _check(
            f"lower end of {metric}'s interval >= min_headline.{target.task}",
            figures.get(f"{metric}_low"),
            min_headline,
            ">=",
            note=on,
            fix=FIXES["headline"],
        ),  # fmt: skip
        _check(quality, value, bound, "<=", fix=fix),
    ]
    checks += [_check(name, value, bound, op, fix=fix) for name, value, bound, op, fix in
               DECISION_CHECKS[target.task](figures, cfg, costs_set)]  # fmt: skip
    leaky = figures.get("trust.leaky_features")
    checks.append(
        _check(LEAKY, leaky, 0, "<=", fix=FIXES["leakage"])
        if leaky is not None
        else Check(LEAKY, None, None, None, "assess.single_feature_bound is null")  # fmt: skip
    )
    return checks + fairness_checks(figures, target, cfg, list(undefined_gaps))


def fairness_checks(figures: JSON, target: Target, cfg: JSON, undefined: list[str]) -> list[Check]:
    """The upper end of the bootstrap interval of the largest gap of every audited attribute and intersection within
    max_fairness_gap (a gap whose interval reaches past the bound may be past it), and every one of them evaluated: a
    gap or an upper end that cannot be computed (no two groups of fairness.min_group_size, no interval) is named "not
    evaluated" and fails closed unless tracking.promotion.fail_not_evaluated is false."""
    name = "upper end of the largest fairness gap's interval <= max_fairness_gap"
    gaps = {k: v for k, v in figures.items() if k.startswith("fairness.") and k.endswith(FAIRNESS_GAPS[target.task])}
    ends = {k: figures[f"{k}_high"] for k in gaps if f"{k}_high" in figures}
    # an upper end the headline did not name as undefined (figures of an older run): missing all the same
    undefined = list(dict.fromkeys(undefined + [f"{k.removeprefix('fairness.')}_high" for k in gaps if k not in ends]))
    audited = figures.get("fairness.n_attributes")
    if not audited and not undefined:
        return [Check(name, None, None, None, "no sensitive attribute declared")]
    if cfg["max_fairness_gap"] is None:
        return [Check(name, None, None, None)]
    checks = []
    if ends:
        largest = max(ends, key=lambda k: ends[k])
        note = (
            f"{largest.removeprefix('fairness.')} {_fmt(gaps[largest])}, its interval's upper end {_fmt(ends[largest])}"
        )
        checks.append(_check(name, ends[largest], cfg["max_fairness_gap"], "<=", note=note, fix=FIXES["fairness"]))
    if undefined or not ends:
        what = ", ".join(undefined) if undefined else "every gap"
        note = (
            f"not evaluated: {what} (no two groups reach fairness.min_group_size, a rate has no rows, or the gap's "
            "bootstrap interval could not be drawn)"
            + ("" if cfg["fail_not_evaluated"] else "; tracking.promotion.fail_not_evaluated is false")
        )
        passed = False if cfg["fail_not_evaluated"] else None
        name = "every audited attribute and intersection has its fairness gaps"
        checks.append(Check(name, None, None, passed, note, FIXES["not evaluated"] if passed is False else None))
    return checks


def champion_check(
    figures: dict[str, float],
    target: Target,
    best: Champion | None,
    tolerance: float,
    champion_tags: dict[str, str] | None = None,
    contract: dict[str, str] | None = None,
    allow_change: bool = False,
) -> Check:
    """The candidate's headline metric against the best champion's so far: the best, not the current one, so a run of
    versions each within the tolerance of the last cannot drift down. best: {version, figure, tags} of the best
    version that has been champion for the same target, whatever its inputs (a changed input set is compared, and
    said); champion_tags: the current champion's tags, when there is one. A champion that answers another question
    (its target differs) cannot be compared: "not compared", failing closed unless allow_contract_change."""
    metric = f"test.{target.headline_metric}"
    name = f"{metric} >= best champion's {metric} - tolerance"
    if best is None:
        if champion_tags is None:
            return Check(name, figures.get(metric), None, True, "no champion yet")  # fmt: skip
        theirs, ours = champion_tags.get("contract.target"), (contract or {}).get("contract.target")
        note = f"not compared: the target changed from {theirs} to {ours}" + (
            "; allowed by tracking.promotion.allow_contract_change" if allow_change else
            "; register it under another tracking.registered_model, or set tracking.promotion.allow_contract_change"
        )  # fmt: skip
        return Check(name, figures.get(metric), None, None if allow_change else False, note)  # fmt: skip
    check = _check(name, figures.get(metric), best.figure - tolerance, ">=", fix=FIXES["champion"])
    note = f"best champion so far: version {best.version}"
    changed = _contract_difference("contract.inputs", (contract or {}).get("contract.inputs"),
                                   best.tags.get("contract.inputs"))  # fmt: skip
    if contract and changed:
        note += f" ({changed}: compared all the same)"
    return replace(check, note="; ".join(filter(None, [check.note, note])))


def contract_check(contract: dict[str, str], champion_tags: dict[str, str] | None, allow_change: bool) -> Check:
    """The candidate answers the champion's question with the champion's inputs: the same target (column, task,
    classes) and the same input columns (names and kinds), read from the versions' contract.* tags. A change fails
    (clients of @champion would break, or get answers to another question) unless
    tracking.promotion.allow_contract_change is true; a new tracking.registered_model is the usual way."""
    name = "same target and inputs as the champion (contract.*)"
    if not champion_tags:
        return Check(name, None, None, True, "no champion yet")
    if not any(k.startswith("contract.") for k in champion_tags):
        return Check(name, None, None, True, "the champion predates contract tags")  # fmt: skip
    found = [_contract_difference(k, v, champion_tags.get(k)) for k, v in contract.items()]
    differences = [d for d in found if d]
    if not differences:
        return Check(name, None, None, True, "unchanged")
    note = "; ".join(differences) + (
        "; allowed by tracking.promotion.allow_contract_change"
        if allow_change
        else "; register it under another tracking.registered_model, or set tracking.promotion.allow_contract_change"
    )
    return Check(name, None, None, True if allow_change else False, note)


def _contract_difference(key: str, ours: str | None, theirs: str | None) -> str | None:
    if ours == theirs or ours is None:
        return None
    if key == "contract.inputs":
        mine, champion = set(json.loads(ours)), set(json.loads(theirs or "[]"))
        added, removed = sorted(mine - champion), sorted(champion - mine)
        return f"inputs differ (added {added[:5]}{'...' if len(added) > 5 else ''}, removed {removed[:5]}" + (
            "...)" if len(removed) > 5 else ")"
        )
    return f"{key.removeprefix('contract.')} {ours!r} where the champion's is {theirs!r}"


def decide(checks: list[Check]) -> Decision:
    """Promote when no check failed; the reasons describe every check, the failed ones first, so a skipped or
    not-evaluated check is never hidden."""
    failed = [c for c in checks if c.passed is False]
    shown = failed + [c for c in checks if c.passed is not False]
    return Decision(promote=not failed, reasons=[describe(c) for c in shown])


def describe(check: Check) -> str:
    if check.passed is None:
        return f"{check.check}: skipped ({check.note or 'no bound set'})"
    fix = f"; fix: {check.fix}" if check.passed is False and check.fix else ""
    if check.passed is False and check.value is None and check.note:
        return f"{check.check}: FAILS, {check.note}{fix}"
    value = "" if check.value is None else f"{check.value:.4g} "  # a check of equality has no figure
    bound = "" if check.bound is None else f"(bound {check.bound:.4g}) "
    note = "; ".join(filter(None, [check.note, fix.removeprefix("; ")]))
    return f"{check.check}: {value}{bound}{'passes' if check.passed else 'FAILS'}" + (f" ({note})" if note else "")


def _check(
    name: str, value: float | None, bound: float | None, op: str, note: str | None = None, fix: str | None = None
) -> Check:
    """A check of value op bound (">=", ">", "<="): passed None when the bound is null (skipped), False when the value
    is undefined (fails closed); `fix` is kept for when it fails."""
    if bound is None:
        return Check(name, value, None, None, note or None)
    if value is None:
        why = "; ".join(filter(None, ["not evaluated: the value is undefined", note]))
        return Check(name, None, bound, False, why, fix)
    passed = bool({">=": value >= bound, ">": value > bound, "<=": value <= bound}[op])
    return Check(name, value, bound, passed, note or None, None if passed else fix)


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4g}"


def contract_tags(contract: dict[str, str]) -> dict[str, str]:
    """The contract as a version shows it: the target, and the inputs counted with a digest of the whole list (a
    30-name list would fill the version page's tag box)."""
    inputs = json.loads(contract["contract.inputs"])
    kinds = [c.rsplit(":", 1)[1] for c in inputs]
    digest = hashlib.sha256(contract["contract.inputs"].encode()).hexdigest()[:12]
    summary = f"{len(inputs)} columns: {kinds.count('numeric')} numeric, {kinds.count('categorical')} categorical"
    return {"contract.target": contract["contract.target"], "contract.inputs": f"{summary} (sha256 {digest})"}


def model_description(name: str, target: str) -> str:
    """The registered model's description: what it predicts and what its aliases mean."""
    return (
        f"Predicts {target} from the raw rows of the data file (input columns and kinds: the contract.inputs tag of "
        "each version, the whole list in the model's input_contract.json). Every pipeline state is a version with "
        "alias candidate; alias champion is the last version the promotion gate (params.yaml tracking.promotion) "
        f"passed: serve models:/{name}@champion. Each version's description lists the gate's checks, failed first."
    )


def markdown_cell(text: object) -> str:
    """Text from the data (column and group names, notes) as one markdown table cell: MLflow renders a description
    as markdown with HTML, so markup is escaped, a pipe does not end the cell, and a line break does not end the row."""

    escaped = re.sub(r"([\\|])", r"\\\1", html.escape(str(text), quote=False))
    return " ".join(escaped.splitlines())


def description(promote: bool, checks: list[Check], run_id: str) -> str:
    """The version's description: the decision in plain words (the versions list shows its first line unrendered),
    then every check as a list item with its value, bound and result, failed first (a list renders in MLflow's UI
    where a markdown table loses its borders)."""
    failed = [c for c in checks if c.passed is False]
    skipped = [c for c in checks if c.passed is None]
    verdict = (
        f"Candidate only: {len(failed)} of {len(checks)} checks fail"
        if failed
        else f"Champion: every check evaluated passes, {len(skipped)} skipped"
        if skipped
        else f"Champion: all {len(checks)} checks pass"
    )
    items = [f"- {markdown_cell(describe(c))}" for c in failed + [c for c in checks if c.passed is not False]]
    return "\n".join([f"{verdict} (the promotion gate, tracking.promotion; run {run_id}).", "", *items])
