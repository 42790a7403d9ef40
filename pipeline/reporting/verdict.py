"""The verdict a person meets first: the promotion gate's decision, each failing check with its value, the end of the
interval it read, its bound and its fix, the headline with its interval, and the largest risks (fairness, leakage,
drift, calibration or interval coverage). One value (`Verdict`), shown twice: as the report's first panel (the
report stage, before the registry's comparison with the best champion: it says what the thresholds decided) and as
the last lines of `dvc repro` (the track stage, with the registry's decision), at most 12 lines of at most 160
characters."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from ..core.evaluation_records import EvaluationReport
from ..core.json_types import JSON
from ..core.records import TrainMetrics
from ..core.task import Target
from ..tracking.promotion import Check
from .page import fmt, note

WIDTH, MAX_LINES = 160, 12
LABELS = (  # a check's short name, by words of its full one (promotion.py names each check by what it reads)
    ("min_headline", "headline"),
    ("max_ece", "calibration"),
    ("coverage shortfall", "interval coverage"),
    ("no-skill", "decisions"),
    ("classes decided", "classes decided"),
    ("single_feature_bound", "leakage"),
    ("fairness gap", "fairness"),
    ("fairness gaps", "fairness evaluated"),
    ("best champion", "no worse than the best champion"),
    ("same target and inputs", "contract"),
)
RISKS = ("fairness", "fairness evaluated", "leakage", "calibration", "interval coverage")


def label(check: Check) -> str:
    return next((short for words, short in LABELS if words in check.check), check.check)


@dataclass(frozen=True)
class Risk:
    """One of the largest risks: its name, what was measured and whether it stays within its bound (None: no bound,
    or not a check of the gate)."""

    risk: str
    reading: str
    within: bool | None
    short: str  # the figure and bound alone (the terminal's summary)


@dataclass(frozen=True)
class Verdict:
    """The decision (status: champion, candidate, ...; why: one sentence), the checks that failed, the headline with
    its interval and the risks."""

    status: str
    why: str
    failed: list[Check]
    headline: str
    model: str
    risks: list[Risk]


def figure(check: Check) -> str:
    """A check's figure and its bound, short: '0.5134 (bound 0.4000)'."""
    if check.value is None:
        return "not evaluated"
    return fmt(check.value) + ("" if check.bound is None else f" (bound {fmt(check.bound)})")


def reading(check: Check) -> str:
    """What a check read, its figure and bound, and its note: "upper end of the largest fairness gap's interval
    0.5134 (<= max_fairness_gap 0.4000): female x black.demographic_parity_gap 0.4155, ..."."""
    if check.value is None:
        return check.note or "not evaluated"
    what, op, bound_name = (re.split(r" (<=|>=|>) ", check.check, maxsplit=1) + ["", ""])[:3]
    bound_name = "" if re.fullmatch(r"[\d.]+", bound_name) else f"{bound_name} "
    bound = "" if check.bound is None else f" ({op} {bound_name}{fmt(check.bound)})"
    return f"{what} {fmt(check.value)}{bound}" + (f": {check.note}" if check.note else "")


def why(checks: list[Check], kind: str = "checks") -> str:
    """The decision's reason in a few words: which checks fail, or that every one evaluated passes. kind: "threshold
    checks" where the comparison with the best champion is not among them (the report), so the report's count and
    the terminal's (track: every check) do not read as two counts of one thing."""
    failed, skipped = [c for c in checks if c.passed is False], sum(c.passed is None for c in checks)
    if failed:
        return f"{len(failed)} of {len(checks)} {kind} fail: " + ", ".join(label(c) for c in failed)
    return f"every {kind.removesuffix('s')} passes ({len(checks) - skipped} evaluated, {skipped} skipped)"


def build(
    checks: list[Check], figures: JSON, target: Target, test: EvaluationReport, model: str, status: str | None = None
) -> Verdict:
    """The verdict of the gate's checks. status: the registry's decision (the track stage), or None: what the
    thresholds decide (the report stage, whose checks do not include the comparison with the best champion)."""
    failed = [c for c in checks if c.passed is False]
    kind = "checks" if status is not None else "threshold checks"
    if status is None:
        status = "candidate, cannot become champion" if failed else "champion if no worse than the best champion"
    metric = target.headline_metric
    bounds = test.bootstrap.figures[metric].interval if metric in test.bootstrap.figures else None
    value = figures.get(f"test.{metric}")
    headline = f"test {metric} {fmt(value)}" + (f" [{fmt(bounds[0])}, {fmt(bounds[1])}]" if bounds else "")
    headline += f" on {fmt(test.n)} rows (the no-skill model's {fmt(figures.get(f'test_no_skill.{metric}'))})"
    risks = [Risk(label(c), reading(c), c.passed, figure(c)) for c in checks if label(c) in RISKS]
    risks = [r for r in risks if r.within is not None]  # a skipped check (no bound) is no risk read
    drift = test.drift
    flagged, auc = len(drift.flagged), drift.domain_classifier
    short = f"{flagged} of {len(drift.columns)} columns shifted"
    shift = f"{flagged} of {len(drift.columns)} columns differ between training and test rows beyond chance"
    if getattr(auc, "auc", None) is not None:
        band = f" [{fmt(auc.interval[0])}, {fmt(auc.interval[1])}]" if auc.interval else ""
        shift += f"; a classifier tells them apart with AUC {fmt(auc.auc)}{band}"
        short += f", domain AUC {fmt(auc.auc)}{band}"
    risks.append(Risk("drift", shift, None if not (flagged or getattr(auc, "flagged", False)) else False, short))
    return Verdict(status, why(checks, kind), failed, headline, model, risks)


def model_line(train: TrainMetrics) -> str:
    """The model and why, short: what model.name auto chose and what it gained over the simplest on the folds."""
    c = train.comparison
    if c is None:
        return f"model {train.model} (model.name)"
    line = f"model {c.chosen} ({c.rule} of {len(c.models)} compared"
    g = c.gain_over_simplest
    if g is not None and c.chosen != c.simplest:
        line += f"; {train.scoring} over {c.simplest} on the folds {fmt(g.gain)} [{fmt(g.interval[0])}, "
        line += f"{fmt(g.interval[1])}]"
    return line + ")"


def summary_lines(v: Verdict, where: list[str]) -> list[str]:
    """The end of `dvc repro`: at most MAX_LINES lines of at most WIDTH characters, the decision first; where: the
    report, the runs and how to serve the model (a line or two each)."""
    lines = [f"== verdict: {v.status}: {v.why}"]
    for check in v.failed:
        lines += _wrap(f"FAILS {label(check)}: {figure(check)}" + (f"; {check.note}" if check.note else ""), "  ", 2)
        if check.fix:
            lines += _wrap(f"  fix: {check.fix}", "    ", 2)
    lines += _wrap(f"headline: {v.headline}", "  ", 1) + _wrap(v.model, "  ", 1)
    risks = [f"{r.risk} {'FAILS' if r.within is False else 'ok'} {r.short}" for r in v.risks if r.within is not None]
    risks += [f"{r.risk}: {r.short}" for r in v.risks if r.within is None]
    lines += _wrap("risks: " + " | ".join(risks), "  ", 2)
    tail = [line for text in where for line in _wrap(text, "  ", 2)]
    if len(lines) + len(tail) > MAX_LINES:  # the failures first: what does not fit is in the report's first panel
        lines = lines[: MAX_LINES - len(tail) - 1] + ["  ... and more: the report's first panel"]
    return lines + tail


def _wrap(text: str, indent: str, max_lines: int) -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, max_lines=max_lines, placeholder=" ...")


def panel(v: Verdict) -> JSON:
    """The report's first block: the verdict, the failing checks with their fixes, the headline and the risks."""
    return {
        "kind": "verdict",
        "passed": not v.failed,
        "status": v.status,
        "why": v.why,
        "failed": [{"check": label(c), "reading": reading(c), "fix": c.fix or ""} for c in v.failed],
        "headline": v.headline,
        "model": v.model,
        "risks": [
            {"risk": r.risk, "state": {True: "within", False: "FAILS", None: ""}[r.within], "reading": r.reading}
            for r in v.risks
        ],
    }


def fairness_gate(checks: list[Check], figures: JSON) -> JSON | None:
    """The fairness section's first note: what the gate read (each gap at its interval's upper end against
    tracking.promotion.max_fairness_gap), every gap whose upper end passes that bound, and the fix; None without a
    fairness check."""
    read = [c for c in checks if label(c) in ("fairness", "fairness evaluated") and c.passed is not None]
    if not read:
        return None
    bound = next((c.bound for c in read if c.bound is not None), None)
    ends = {k.removeprefix("fairness.").removesuffix("_high"): v for k, v in figures.items() if k.endswith("_gap_high")}
    over = {k: v for k, v in ends.items() if bound is not None and v is not None and v > bound}
    over = dict(sorted(over.items(), key=lambda kv: -kv[1]))
    failed = [c for c in read if c.passed is False]
    text = f"Promotion gate: {'FAILS' if failed else 'passes'}. " + "; ".join(reading(c) for c in read) + "."
    if over:
        text += f" Gaps whose interval reaches past the bound {fmt(bound)}: " + ", ".join(
            f"{name} {fmt(figures.get(f'fairness.{name}'))} (upper end {fmt(high)})" for name, high in over.items()
        )
        text += "."
    fixes = dict.fromkeys(c.fix for c in failed if c.fix)
    return note(text + "".join(f" Fix: {fix}." for fix in fixes))


def summary(name: str, version: str | int | None, status: str, checks: list[Check], uri: str) -> list[str]:
    """The track stage's last lines: the verdict of the registry's decision on the workspace's files, with where to
    look and how to serve the version (an experiment's version holds no alias: it is served by its number)."""
    from ..core import paths
    from ..core.io import read_json
    from .headline import flat

    target = Target.read(paths.TARGET)
    figures = flat(read_json(paths.HEADLINE, "report"))
    v = build(checks, figures, target, target.test_record.read(), model_line(TrainMetrics.read()), status)
    alias = "champion" if status == "champion" else "candidate"
    model_uri = f"{name}/{version}" if "no alias moved" in status else f"{name}@{alias}"
    where = [
        f"{name} version {version}; report: {paths.REPORT_HTML} (the verdict first); runs: mlflow ui "
        f"--backend-store-uri {uri}",
        f"serve: MLFLOW_TRACKING_URI={uri} mlflow models serve -m models:/{model_uri} --env-manager local",
    ]
    return summary_lines(v, where)
