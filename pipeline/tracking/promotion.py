"""The promotion gate: which registered model version may become the `champion` (the one to deploy).

Every pipeline state is registered as a new version with the alias `candidate`; `champion` moves to it only when
every check of params.yaml `tracking.promotion` passes: the task's headline test metric (ROC AUC, macro one-vs-rest
ROC AUC or R^2) is at least `min_headline`, calibration (classification: test ECE after calibration) or interval
coverage (regression: target minus test coverage) is within bounds, the largest parity gap (classification) or interval
coverage gap (regression) of the sensitive attributes is within `max_fairness_gap`, and the headline metric is no
worse than the current champion's beyond `tolerance`, and no feature column alone predicts the target beyond
assess.single_feature_bound unless assess.legitimate_features declares its column (leakage). A check with a null
bound is skipped and says so; a check that applies but cannot be computed (sensitive attributes declared, but no
group large enough to give a gap) is "not evaluated" and fails closed unless tracking.promotion.fail_not_evaluated
is false. The decision's reasons list every check, the failed ones first.
"""

from __future__ import annotations

import json

from ..core.task import kind_of


def threshold_checks(figures: dict[str, float], task: str, cfg: dict) -> list[dict]:
    """The checks that need no registry: {check, value, bound, passed} each (passed None: skipped, bound null)."""
    kind = kind_of(task)
    metric = f"test.{kind.headline_metric}"
    checks = [_check(f"{metric} >= min_headline.{task}", figures.get(metric), cfg["min_headline"][task], ">=")]
    checks.append(_check(*kind.quality_check(figures, cfg), "<="))  # calibration, or interval coverage
    leaky = figures.get("trust.leaky_features")
    checks.append(
        _check("no feature alone predicts the target (assess.single_feature_bound)", leaky, 0, "<=")
        if leaky is not None
        else {
            "check": "no feature alone predicts the target (assess.single_feature_bound)",
            "value": None,
            "bound": None,
            "passed": None,
            "note": "assess.single_feature_bound is null",
        }  # fmt: skip
    )
    gaps = [v for k, v in figures.items() if k.startswith("fairness.") and k.endswith(kind.fairness_gaps)]
    name = "largest fairness gap <= max_fairness_gap"
    if gaps:
        checks.append(_check(name, max(gaps), cfg["max_fairness_gap"], "<="))
    elif figures.get("fairness.n_attributes") and cfg["max_fairness_gap"] is not None:
        note = "not evaluated: no group of a sensitive attribute reaches fairness.min_group_size, so no gap is defined"
        if not cfg["fail_not_evaluated"]:
            note += "; tracking.promotion.fail_not_evaluated is false"
        passed = False if cfg["fail_not_evaluated"] else None
        checks.append({"check": name, "value": None, "bound": cfg["max_fairness_gap"], "passed": passed, "note": note})
    else:
        checks.append(
            {"check": name, "value": None, "bound": None, "passed": None, "note": "no sensitive attribute declared"}
        )
    return checks


def champion_check(
    figures: dict[str, float], task: str, champion: dict[str, float] | None, tolerance: float, version=None
) -> dict:
    """The candidate's headline metric against the best champion's so far (passes when there has been none): the
    best, not the current one, so a run of versions each within the tolerance of the last cannot drift down."""
    metric = f"test.{kind_of(task).headline_metric}"
    if not champion or metric not in champion:
        return {
            "check": f"{metric} no worse than the best champion's - tolerance",
            "value": figures.get(metric),
            "bound": None,
            "passed": True,
            "note": "no champion yet",
        }
    check = _check(
        f"{metric} >= best champion's {metric} - tolerance", figures.get(metric), champion[metric] - tolerance, ">="
    )
    return check | ({"note": f"best champion so far: version {version}"} if version is not None else {})


def contract_check(contract: dict[str, str], champion_tags: dict[str, str] | None, allow_change: bool) -> dict:
    """The candidate answers the champion's question with the champion's inputs: the same target (column, task,
    classes) and the same input columns (names and kinds), read from the versions' contract.* tags. A change fails
    (clients of @champion would break, or get answers to another question) unless
    tracking.promotion.allow_contract_change is true; a new tracking.registered_model is the usual way."""
    name = "same target and inputs as the champion (contract.*)"
    if not champion_tags:
        return {"check": name, "value": None, "bound": None, "passed": True, "note": "no champion yet"}
    if not any(k.startswith("contract.") for k in champion_tags):
        return {"check": name, "value": None, "bound": None, "passed": True,
                "note": "the champion predates contract tags"}  # fmt: skip
    differences = [_contract_difference(k, v, champion_tags.get(k)) for k, v in contract.items()]
    differences = [d for d in differences if d]
    if not differences:
        return {"check": name, "value": None, "bound": None, "passed": True, "note": "unchanged"}
    note = "; ".join(differences) + (
        "; allowed by tracking.promotion.allow_contract_change"
        if allow_change
        else "; register it under another tracking.registered_model, or set tracking.promotion.allow_contract_change"
    )
    return {"check": name, "value": None, "bound": None, "passed": True if allow_change else False, "note": note}


def _contract_difference(key: str, ours: str, theirs: str | None) -> str | None:
    if ours == theirs:
        return None
    if key == "contract.inputs":
        mine, champion = set(json.loads(ours)), set(json.loads(theirs or "[]"))
        added, removed = sorted(mine - champion), sorted(champion - mine)
        return f"inputs differ (added {added[:5]}{'...' if len(added) > 5 else ''}, removed {removed[:5]}" + (
            "...)" if len(removed) > 5 else ")"
        )
    return f"{key.removeprefix('contract.')} {ours!r} where the champion's is {theirs!r}"


def decide(checks: list[dict]) -> dict:
    """{promote, reasons}: promote when no check failed; reasons describe every check, the failed ones first, so a
    skipped or not-evaluated check is never hidden."""
    failed = [c for c in checks if c["passed"] is False]
    shown = failed + [c for c in checks if c["passed"] is not False]
    return {"promote": not failed, "reasons": [describe(c) for c in shown]}


def describe(check: dict) -> str:
    if check["passed"] is None:
        return f"{check['check']}: skipped ({check.get('note', 'no bound set')})"
    value = "undefined" if check["value"] is None else f"{check['value']:.4g}"
    if check["passed"] is False and check["value"] is None and check.get("note"):
        return f"{check['check']}: FAILS, {check['note']}"
    bound = "" if check["bound"] is None else f" (bound {check['bound']:.4g})"
    return f"{check['check']}: {value}{bound} {'passes' if check['passed'] else 'FAILS'}" + (
        f" ({check['note']})" if check.get("note") else ""
    )


def _check(name: str, value, bound, op: str) -> dict:
    if bound is None:
        return {"check": name, "value": value, "bound": None, "passed": None}
    if value is None:
        return {"check": name, "value": None, "bound": bound, "passed": False, "note": "the value is undefined"}
    return {"check": name, "value": value, "bound": bound, "passed": value >= bound if op == ">=" else value <= bound}
