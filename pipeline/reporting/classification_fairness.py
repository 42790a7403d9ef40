"""The fairness section of a classification target's page: per grouping the rates with their bootstrap intervals and
the parity criteria (binary: differences and ratios, which criteria can hold together; multiclass: per class and
their macro mean), the per-group thresholds and reweighing judged on test; and the model card's mitigation line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..core.fairness_records import BinaryFairness, FairnessReport, Mitigation, MulticlassFairness, widening
from ..core.json_types import JSON
from ..core.records import ABSENT
from ..core.report_inputs import ReportInputs
from . import page as html
from .page import fmt


class FairnessKind(Protocol):
    """What the fairness section reads of the target's page (classification_page.ClassificationPage)."""

    @property
    def decision_rule(self) -> Callable[[FairnessReport], str]: ...
    @property
    def groupings(self) -> Callable[..., list[JSON]]: ...
    @property
    def criteria_note(self) -> str: ...
    @property
    def macro(self) -> str: ...


# `kind` below is the target's page (classification_page.BinaryPage or MulticlassPage): the readings that differ
# between two classes and more (the decision rule, the criteria, the groupings, the macro mean).

GROUP_COLUMNS = ("base_rate", "selection_rate", "tpr", "fpr", "precision", "accuracy", "calibration_error")


def fairness_section(r: ReportInputs, kind: FairnessKind) -> JSON:
    f = r.fairness
    boot = f.bootstrap
    resampling = f", resampling whole {boot.cluster} clusters" if boot.cluster else ", rows"
    parts = [
        html.muted(
            f"Test set, the deployed decisions ({kind.decision_rule(f)}). Intervals: "
            f"{html.fmt(boot.confidence_level)} percentile bootstrap, {boot.n_boot} replicates "
            f"(seed {boot.seed}{resampling}). "
            f"Groups below {f.min_group_size} rows are flagged and left out of the criteria. Differences are "
            "max - min over groups " + kind.criteria_note
        )
    ]
    if f.favourable_label is not None:
        parts.append(
            html.note(
                f"The favourable outcome is {html.fmt(f.favourable_label)} (fairness.favourable_label): every rate, "
                "criterion and mitigation here compares it (a selection rate is how often a group gets it, equal "
                "opportunity how often those who deserve it get it), whatever the target's positive label."
            )
        )
    parts += kind.groupings(f)
    parts += mitigation_parts(f.mitigation)
    if f.reweighing:
        parts += reweighing_part(f, kind)
    return html.section("Fairness", *parts)


def binary_fairness(f: BinaryFairness) -> list[JSON]:
    """Per grouping: per group the rates with intervals, the criteria's differences and ratios, which can hold."""
    parts = []
    for i, (attribute, result) in enumerate(f.attributes.items()):
        rows = [
            {
                "group": g,
                "n": m.n,
                **{
                    k: html.interval(getattr(m, k), m.intervals.get(k))
                    for k in GROUP_COLUMNS
                    if getattr(m, k) is not ABSENT
                },
                "flag": "below min size" if m.small else "",
            }
            for g, m in result.groups.items()
        ]
        criteria = [
            {
                "criterion": k,
                "rates": ", ".join(v.metrics),
                "difference": html.gap(v.difference, v.difference_interval),
                "ratio": html.interval(v.ratio, v.ratio_interval),
                "note": v.reason or (f"excludes {', '.join(map(str, v.excluded_groups))}" if v.excluded_groups else ""),
            }
            for k, v in result.criteria.items()
        ]
        parts += html.grouping(
            i,
            html.fmt(attribute),
            html.table(rows),
            html.table(criteria),
            html.note(f"Which criteria can hold together: {html.fmt(result.compatibility.statement)}"),
        )
    return parts


def mitigation_parts(mitigation: Mitigation) -> list[JSON]:
    """The per-group thresholds: fitted where, each grouping's thresholds and gaps before and after, on test."""
    parts = []
    if mitigation.criterion == "none":
        parts += [html.heading("Mitigation"), html.muted("fairness.mitigation.criterion is none.")]
    elif mitigation.applied is False:
        parts += [html.heading("Mitigation: per-group thresholds"), html.note(html.fmt(mitigation.reason))]
    elif mitigation.attributes:
        rows: list[JSON] = []
        for attribute, m in mitigation.attributes.items():
            if not m.applied:
                rows.append({"attribute": attribute, "thresholds": f"not applied: {m.reason}"})
                continue
            o, t = m.fitted_oof, m.test
            rows.append(
                {
                    "attribute": attribute,
                    "thresholds": ", ".join(
                        f"{g}: {'never positive' if v is None else f'{v:.4f}'}" for g, v in m.thresholds.items()
                    ),
                    "gap before (out-of-fold)": o.gap_before,
                    "gap after (out-of-fold)": o.gap_after,
                    "gap before (test)": t.gap_before,
                    "gap after (test)": t.gap_after,
                    "on test": widening(t.gap_before, t.gap_after).strip(" ()") or "narrows or keeps the gap",
                    "accuracy before (test)": t.accuracy_before,
                    "accuracy after (test)": t.accuracy_after,
                    "accuracy cost (test)": t.accuracy_cost,
                }
            )
        every = [
            {"attribute": attribute, "criterion": c, "test gap before": v.gap_before, "test gap after": v.gap_after}
            for attribute, m in mitigation.attributes.items()
            if m.applied
            for c, v in m.test_every_criterion.items()
        ]
        parts += [
            html.heading(f"Mitigation: per-group thresholds for {html.fmt(mitigation.criterion)}"),
            html.muted(
                f"Fitted on the {html.fmt(mitigation.fitted_on)} (tolerance "
                f"{html.fmt(mitigation.tolerance)}), "
                "judged on test; before = one threshold for everyone. The group must be known at decision time."
            ),
            html.table(rows),
            html.muted("Every criterion's test gap with the same thresholds:"),
            html.table(every),
        ]
    return parts


def multiclass_fairness(f: MulticlassFairness) -> list[JSON]:
    """Per grouping: per group and class the selection rate and recall with intervals, the macro gaps."""
    parts = []
    for i, (attribute, result) in enumerate(f.attributes.items()):
        rows = []
        for g, m in result.groups.items():
            intervals = m.intervals or {}  # none without bootstrap replicates
            rates = {
                f"{c}: {k.replace('_', ' ')}": html.interval(getattr(v, k), intervals.get(c, {}).get(k))
                for c, v in m.classes.items()
                for k in ("selection_rate", "recall")
            }
            accuracy = html.interval(m.accuracy, intervals.get("accuracy"))
            rows.append(
                {"group": g, "n": m.n, "accuracy": accuracy, **rates, "flag": "below min size" if m.small else ""}
            )
        criteria = [
            {
                "criterion": k,
                "rate": v.metric,
                "macro gap (mean over classes)": html.gap(v.difference, v.difference_interval),
                **{f"gap {c}": d for c, d in (v.per_class or {}).items()},
                "note": v.reason or "",
            }
            for k, v in result.criteria.items()
        ]
        parts += html.grouping(i, html.fmt(attribute), html.table(rows), html.table(criteria))
    return parts


def reweighing_part(f: FairnessReport, kind: FairnessKind) -> list[JSON]:
    """The weights, and when the refit ran, its test gaps next to those of the per-group thresholds."""
    rw, thresholds = f.reweighing, f.mitigation.attributes or {}
    assert rw is not None  # fairness_section shows reweighing only when there is one
    weights = [
        {"group": g, **{f"weight y={label}": w for label, w in labels.items()}} for g, labels in rw.weights.items()
    ]
    parts = [
        html.heading("Reweighing (pre-processing, Kamiran-Calders)"),
        html.muted(
            f"w(g, y) = P(g) P(y) / P(g, y) on the training rows, g = {html.fmt(rw.groups)}: "
            f"under these "
            "weights the label is independent of every sensitive attribute and of their intersection."
        ),
        html.table(weights),
    ]
    if not rw.refit:
        return parts + [html.muted("fairness.reweighing is false: weights only, no refit.")]
    if not rw.applied:
        return parts + [html.note(f"Reweighed refit of {html.fmt(rw.model)}: {html.fmt(rw.reason)}")]
    t = rw.test
    rows = [
        {
            "grouping": name,
            "criterion": c + (kind.macro if c != "accuracy" else ""),
            "test gap before": v.gap_before,
            "after reweighing": v.gap_after,
            "after per-group thresholds": thresholds[name].test_every_criterion[c].gap_after
            if name in thresholds and thresholds[name].applied
            else "",
        }
        for name, gaps in t.attributes.items()
        for c, v in gaps.items()
    ]
    return parts + [
        html.muted(
            f"{html.fmt(rw.model)} with {html.fmt(rw.params)} refitted on all training rows "
            f"with these "
            f"sample weights, scored through {html.fmt(rw.scored_through)}; before = the deployed model. Test "
            f"accuracy {html.fmt(t.accuracy_before)} "
            f"before, {html.fmt(t.accuracy_after)} after reweighing (cost {html.fmt(t.accuracy_cost)})."
        ),
        html.table(rows),
    ]


def mitigation_summary(fairness: FairnessReport, sensitive: list[str]) -> str:
    """Each attribute's test gap of the mitigated criterion before -> after, with the accuracy cost, for the
    per-group thresholds and for reweighing (demographic parity when no criterion is mitigated)."""
    thresholds, reweighed = fairness.mitigation, fairness.reweighing
    criterion = thresholds.criterion if thresholds.criterion != "none" else "demographic_parity"
    refitted = reweighed.test if reweighed and reweighed.applied else None
    if refitted and criterion not in next(iter(refitted.attributes.values())):
        criterion = "demographic_parity"
    sentences = []
    for a in sensitive:
        items = []
        m = (thresholds.attributes or {}).get(a)
        if m and m.applied:
            t = m.test
            items.append(
                f"per-group thresholds {fmt(t.gap_before)} -> {fmt(t.gap_after)}{widening(t.gap_before, t.gap_after)} "
                f"(accuracy cost {fmt(t.accuracy_cost)})"
            )
        if refitted:
            g = refitted.attributes[a][criterion]
            items.append(
                f"reweighing {fmt(g.gap_before)} -> {fmt(g.gap_after)}{widening(g.gap_before, g.gap_after)} (accuracy "
                f"cost {fmt(refitted.accuracy_cost)})"
            )
        if items:
            sentences.append(f"By {a}, test {criterion} gap: {', '.join(items)}.")
    return " ".join(sentences) or "none applied"
