"""The promotion gate: which registered model version may become the `champion` (the one to deploy).

Every pipeline state is registered as a new version with the alias `candidate`; `champion` moves to it only when
every check of params.yaml `tracking.promotion` passes: the task's headline test metric (ROC AUC, macro one-vs-rest
ROC AUC or R^2) is at least `min_headline`, calibration (classification: test ECE after calibration) or interval
coverage (regression: target minus test coverage) is within bounds, the largest parity gap (classification) or interval
coverage gap (regression) of the sensitive attributes is within `max_fairness_gap`, and the headline metric is no
worse than the current champion's beyond `tolerance`, and no feature column alone predicts the target beyond
assess.single_feature_bound unless assess.legitimate_features declares its column (leakage). A check with a null
bound is skipped and says so.
"""

from __future__ import annotations

from .headline import HEADLINE_METRIC


def threshold_checks(figures: dict[str, float], task: str, cfg: dict) -> list[dict]:
    """The checks that need no registry: {check, value, bound, passed} each (passed None: skipped, bound null)."""
    metric = f"test.{HEADLINE_METRIC[task]}"
    checks = [_check(f"{metric} >= min_headline.{task}", figures.get(metric), cfg["min_headline"][task], ">=")]
    if task != "regression":
        checks.append(
            _check(
                "calibration.test_ece_after <= max_ece", figures.get("calibration.test_ece_after"), cfg["max_ece"], "<="
            )
        )
    else:
        coverage, target = figures.get("intervals.coverage"), figures.get("intervals.target_coverage")
        checks.append(
            _check(
                "interval coverage shortfall (target - test coverage) <= max_coverage_shortfall",
                None if coverage is None else target - coverage,
                cfg["max_coverage_shortfall"],
                "<=",
            )
        )
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
    gap_kind = "interval_coverage_gap" if task == "regression" else ("demographic_parity_gap", "equal_opportunity_gap")
    gaps = [v for k, v in figures.items() if k.startswith("fairness.") and k.endswith(gap_kind)]
    if gaps:
        checks.append(_check("largest fairness gap <= max_fairness_gap", max(gaps), cfg["max_fairness_gap"], "<="))
    else:
        checks.append(
            {
                "check": "largest fairness gap <= max_fairness_gap",
                "value": None,
                "bound": None,
                "passed": None,
                "note": "no sensitive attribute with a defined gap",
            }
        )
    return checks


def champion_check(figures: dict[str, float], task: str, champion: dict[str, float] | None, tolerance: float) -> dict:
    """The candidate's headline metric against the current champion's (passes when there is no champion)."""
    metric = f"test.{HEADLINE_METRIC[task]}"
    if not champion or metric not in champion:
        return {
            "check": f"{metric} no worse than the champion's - tolerance",
            "value": figures.get(metric),
            "bound": None,
            "passed": True,
            "note": "no champion yet",
        }
    return _check(
        f"{metric} >= champion's {metric} - tolerance", figures.get(metric), champion[metric] - tolerance, ">="
    )


def decide(checks: list[dict]) -> dict:
    """{promote, reasons}: promote when no check failed; reasons name every failed check, else the passed ones."""
    failed = [c for c in checks if c["passed"] is False]
    shown = failed or [c for c in checks if c["passed"]]
    return {"promote": not failed, "reasons": [describe(c) for c in shown]}


def describe(check: dict) -> str:
    if check["passed"] is None:
        return f"{check['check']}: skipped ({check.get('note', 'no bound set')})"
    value = "undefined" if check["value"] is None else f"{check['value']:.4g}"
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
