"""The report page of a classification target: its test evaluation, calibration, decisions (costs, the reject
option, conformal sets) and fairness sections (pipeline/reporting/classification_fairness.py), its figures and
model-card lines. Binary and multiclass targets
differ in a few readings (the positive class against every class one against the rest), which their page classes
hold.

Sections cited: none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.evaluation_records import (
    BinaryEvaluation,
    CalibrationQuality,
    ClassificationCalibration,
    ClassificationEvaluation,
    MulticlassEvaluation,
    RankingChange,
)
from ..core.fairness_records import FairnessReport
from ..core.json_types import JSON
from ..core.records import ABSENT, present
from ..core.report_inputs import ReportInputs
from . import figures
from . import page as html
from .classification_fairness import binary_fairness, fairness_section, mitigation_summary, multiclass_fairness
from .page import audited, fmt, ranking_note
from .results import gap_note, intervals_note, with_baseline, with_interval

CurveSummaries = tuple[dict[str, float], dict[str, float], dict[str, float]]  # {class: a figure} each


def fitted_rows(cal: ClassificationCalibration) -> str:
    """The rows the map was fitted on, and with time-ordered folds which of them the figures are measured on."""
    if cal.rows_only_fitted is ABSENT:
        return f"{cal.n_rows} out-of-fold rows"
    return (
        f"{cal.n_rows + cal.rows_only_fitted} out-of-fold rows; with time-ordered folds each period's map is fitted on "
        f"the earlier periods only, so the figures are of the {cal.n_rows} rows after the first validated period "
        f"(its {cal.rows_only_fitted} rows only fit maps)"
    )


def classification_figures(r: ReportInputs, kind: ClassificationPage) -> dict[str, bytes]:
    test = r.test_as(ClassificationEvaluation)
    auc, ap, prevalence = kind.curve_summaries(test)
    figs = {
        "roc.png": figures.roc(r.roc, auc),
        "precision_recall.png": figures.precision_recall(r.pr, ap, prevalence),
        "reliability_oof.png": figures.reliability(r.reliability_oof, "Reliability, out-of-fold (cross-fitted)"),
        "reliability_test.png": figures.reliability(r.reliability_test, "Reliability, test"),
        "risk_coverage.png": figures.risk_coverage(r.risk_coverage, test.selective),
    }
    for i, (attribute, result) in enumerate(r.fairness.attributes.items()):
        figs[f"fairness_{i}.png"] = kind.group_rates(attribute, result.groups)
    return figs


def calibration_section(r: ReportInputs, kind: ClassificationPage) -> JSON:
    test, cal = r.test_as(ClassificationEvaluation), r.calibration_as(ClassificationCalibration)

    def row(label: str, q: CalibrationQuality) -> JSON:
        return {
            "data": label,
            **{k: getattr(q, k) for k in ("ece", "mce", "brier", "log_loss")},
            **kind.calibration_detail(q),
            "non-empty bins": q.n_nonempty_bins,
        }

    groups = [
        {
            "data": data,
            "grouping": name,
            "group": g,
            "n": m.n,
            "base rate": m.base_rate,
            "ECE before": m.before.ece,
            "ECE after": m.after.ece,
            "MCE before": m.before.mce,
            "MCE after": m.after.mce,
        }
        for data, by_group in (
            ("out-of-fold (after: cross-fitted)", cal.groups),
            ("test", test.calibration.groups),
        )
        for name, per_group in by_group.items()
        for g, m in per_group.items()
    ]
    settings = ", ".join(f"{k}={v}" for k, v in cal.settings.items())
    of = kind.calibrated_of
    return html.section(
        "Calibration",
        html.table(
            [
                row("out-of-fold, before", cal.oof_before),
                row("out-of-fold, after (cross-fitted)", cal.oof_after_crossfitted),
                row("test, before", test.calibration.before),
                row("test, after", test.calibration.after),
            ]
        ),
        html.muted(
            f"Method {html.fmt(cal.method)}{' one-vs-rest, renormalised' if cal.one_vs_rest else ''}"
            f"{' (' + html.fmt(settings) + ')' if settings else ''}, fitted "
            f"on {fitted_rows(cal)}; ECE/MCE of {html.fmt(of)} with "
            f"{cal.binning['n_bins']} {html.fmt(cal.binning['strategy'])} bins "
            f"({html.fmt(cal.binning['edges'])}), "
            "empty bins skipped; the Brier decomposition (Brier = reliability - resolution + uncertainty + "
            f"within-bin, two classes) uses {cal.binning['n_bins']} equal-width bins. Points below the diagonal "
            "mean the model is "
            "over-confident; the bars below each diagram count the rows per bin."
        ),
        html.figures("reliability_oof.png", "reliability_test.png"),
        html.heading("Which map: every map cross-fitted on the out-of-fold scores"),
        *calibration_choice(cal, test.calibration.ranking),
        html.heading("Per sensitive group (bins formed within each group, so small groups are noisy)"),
        html.table(groups),
    )


def calibration_choice(cal: ClassificationCalibration, test_ranking: RankingChange) -> list[JSON]:
    """The comparison of the maps (no map included) by cross-fitted log loss, and why the deployed one was."""
    rows = [
        {
            "map": c.method + (" (deployed)" if c.method == cal.method else ""),
            "log loss": present(c.log_loss),
            "log loss - none's": present(c.log_loss_vs_none),
            "its standard error": present(c.standard_error_vs_none),
            "gain in standard errors": present(c.gain_in_standard_errors),
            "ranking - none's (within folds) ± its standard error": (
                f"{fmt(c.ranking_vs_none.difference)} ± {fmt(c.ranking_vs_none.standard_error)}" if c.defined else None
            ),
            "ECE": present(c.ece),
            "ECE - none's": present(c.ece_vs_none),
            "Brier": present(c.brier),
            "may be deployed (auto)": present(c.qualifies),
            "note": "; ".join([c.why, *c.not_converged]) if c.defined else c.reason or "",
        }
        for c in cal.comparison
    ]
    how = (
        f"calibration.method auto deploys a map only when its cross-fitted log-loss gain over no map exceeds "
        f"calibration.margin = {html.fmt(float(cal.margin))} standard errors of the paired per-row differences, "
        "its ranking metric within the folds does not fall by more than as many DeLong standard errors, and its "
        "cross-fitted ECE is not above no map's; of those, the least log loss (ties: the one listed first), else none. "
        "Platt, temperature and beta calibration are strictly increasing in the score, so they neither reorder nor "
        "tie rows; isotonic regression's steps and histogram binning's bins tie the rows of a step or bin. "
        f"Deployed: {cal.why_deployed}. The figures of the map chosen this way are slightly optimistic; the test "
        "rows above are the check."
        if cal.method_setting == "auto"
        else f"calibration.method names {cal.method}, so it is deployed whatever this table says."
    )
    changed = html.ranking_note(test_ranking).removeprefix(".")  # "" when the map kept the model's ranking
    parts = [html.table(rows), html.muted(how + (changed + "." if changed else ""))]
    if cal.warning:
        parts.append(html.note(cal.warning))
    return parts


def decisions_section(r: ReportInputs) -> JSON:
    test = r.test_as(ClassificationEvaluation)
    d, sel, conformal = test.decision, test.selective, test.conformal
    reject, at = sel.reject_option, sel.at_target_risk
    names = test.classes
    rule: dict[str, object] = {
        "decision rule": {
            "threshold": "p(positive) >= t",
            "argmax": "the class of largest probability",
            "cost_matrix": "least expected cost",
        }[d.rule]
    }
    if d.threshold is not None:
        rule["decision threshold t (positive when p >= t)"] = d.threshold
    if d.cost_matrix:
        rule.update(
            {
                f"cost matrix (rows: decision, columns: true class; classes {', '.join(names)})": str(d.cost_matrix),
                "expected cost per row, posterior (test)": d.expected_cost_posterior,
                "realised cost per row (test)": d.realised_cost,
                "realised cost per row of the rule without costs (test)": d.realised_cost_plain_rule,
            }
        )
    return html.section(
        "Decisions: costs, the reject option and conformal sets (test)",
        html.key_values(rule),
        html.key_values(
            {
                f"reject option: abstain when the largest class probability < {reject.reject_threshold}": "",
                "coverage (fraction decided)": reject.coverage,
                "rows decided": reject.n_accepted,
                "selective risk (error rate among decided)": reject.selective_risk,
                "accuracy among decided": reject.accuracy_accepted,
                "overall error rate (no rejection)": sel.error_rate,
                "AURC (area under risk-coverage)": sel.aurc,
                "optimal AURC (perfect ranking)": sel.optimal_aurc,
                "E-AURC (AURC - optimal)": sel.e_aurc,
                f"largest coverage with selective risk <= {sel.target_risk}": at["coverage"]
                if at["achievable"]
                else "not achievable",
                "confidence threshold there": at["threshold"],
                "selective risk there": at["risk"],
            }
        ),
        html.figures("risk_coverage.png"),
        html.heading(
            f"Conformal prediction sets (split-conformal, target coverage {html.fmt(conformal.set_coverage)})"
        ),
        html.key_values(
            {
                "coverage on test (true class in the set)": conformal.coverage,
                "mean set size": conformal.mean_set_size,
                "empty sets": conformal.empty_rate,
                "single-class sets": conformal.singleton_rate,
                "sets of every class": conformal.full_rate,
            }
        ),
        html.muted(
            "A set holds every class k with 1 - p_k <= q, q fitted on the cross-fitted out-of-fold "
            "probabilities so that the true class is in the set with probability at least the target (exchangeable "
            "rows). Coverage on test varies by about sqrt(c (1 - c) / n) around its expectation."
        ),
    )


def classification_card(params: JSON, r: ReportInputs, kind: ClassificationPage) -> JSON:
    data, test, fairness = params["data"], r.test_as(ClassificationEvaluation), r.fairness
    calibration = r.calibration_as(ClassificationCalibration)
    shown = ("demographic_parity", "equal_opportunity")
    gaps = {  # each attribute and every intersection of them (the promotion gate reads them all)
        a: {c: result.criteria[c].difference for c in shown} for a, result in audited(fairness, data).items()
    }
    decision = test.decision
    rule = (
        f"decisions at p >= {fmt(decision.threshold)}"
        if decision.threshold is not None
        else "decisions of least expected cost"
        if decision.cost_matrix
        else "decisions: the most probable class"
    )
    conformal = test.conformal
    return {
        "Intended use": f"{kind.intended_use(data['target'], test.classes)}; {rule}",
        "Performance": f"{kind.performance(test)} ({intervals_note(test)})",
        "Decisions": decisions_line(test, kind),
        "Calibration": f"{calibration.method} ({calibration.why_deployed}): cross-fitted ECE "
        f"{fmt(calibration.oof_before.ece)} with no map, {fmt(calibration.oof_after_crossfitted.ece)} deployed, on the "
        f"{calibration.n_rows} out-of-fold rows the maps are judged on; test ECE "
        f"{fmt(test.calibration.before.ece)} before, "
        f"{fmt(test.calibration.after.ece)} after"
        + ranking_note(test.calibration.ranking)
        + (f". WARNING: {calibration.warning}" if calibration.warning else ""),
        "Prediction sets": f"conformal sets hold the true class on {fmt(conformal.coverage)} of test rows (target "
        f"{fmt(conformal.set_coverage)}), {fmt(conformal.mean_set_size)} classes on average",
        "Fairness": "; ".join(
            f"by {a}: demographic-parity gap {html.gap(g['demographic_parity'])}, equal-opportunity gap "
            f"{html.gap(g['equal_opportunity'])}" + kind.macro_card
            for a, g in gaps.items()
        )
        or "no sensitive attributes",
        "Fairness mitigation": mitigation_summary(fairness, data["sensitive"]),
    }


def decisions_line(test: ClassificationEvaluation, kind: ClassificationPage) -> str:
    """The deployed rule's test confusion matrix beside the rule that ignores the features, and what to do when
    the two are the same."""
    against = test.decision.against_no_skill
    line = (
        f"{kind.confusion(test)}; {against.metric} {fmt(against.loss)} against {fmt(against.no_skill_loss)} "
        f"for the no-skill rule ({against.no_skill_rule}): gain "
        f"{html.interval(against.gain, against.gain_interval)}"
    )
    if against.same_as_no_skill:
        line += (
            ". WARNING: the rule decides the same class for every test row, as the no-skill rule does: its decisions "
            "carry no information from the features. Set decision.cost_matrix to what each error costs (the "
            "threshold follows from it)"
        )
    elif against.classes_decided < len(test.classes):
        unused = [c for c, n in against.decided.items() if not n]
        line += f". Never decided on test: {', '.join(unused)}"
    return line


class ClassificationPage:
    """What a classification target's page shows: its test section, calibration, decisions and fairness, their
    figures and the model card's lines. The subclasses say how a binary and a multiclass target read them."""

    two_way_pdp = True  # a 2-D partial dependence plot of the deployed output (one surface)
    fold_note: tuple[JSON, ...] = ()
    macro = macro_card = ""  # a fairness gap over classes: the macro mean for more than two (table, model card)

    def task_figures(self, r: ReportInputs) -> dict[str, bytes]:
        return classification_figures(r, self)

    def task_sections(self, r: ReportInputs) -> list[JSON]:
        return [
            self.test_section(r.test_as(ClassificationEvaluation)),
            calibration_section(r, self),
            decisions_section(r),
            fairness_section(r, self),
        ]

    def card(self, params: JSON, r: ReportInputs) -> JSON:
        return classification_card(params, r, self)

    # what BinaryPage and MulticlassPage each say their own way
    calibrated_of: str  # what the calibration figures are of
    criteria_note: str  # how the fairness criteria read
    group_rates: Callable[[str, JSON], bytes]  # the figure of one attribute's group rates
    groupings: Callable[..., list[JSON]]  # the fairness section's tables
    calibration_detail: Callable[[CalibrationQuality], JSON]  # the kind's columns (Brier decomposition, ...)
    decision_rule: Callable[[FairnessReport], str]  # the deployed decision rule in words
    intended_use: Callable[[str, list[Any]], str]  # the model card's intended use
    performance: Callable[..., str]  # of the kind's test record  # the model card's test performance line
    confusion: Callable[..., str]  # the confusion matrix in a line
    curve_summaries: Callable[..., CurveSummaries]  # {class: ROC AUC}, {class: AP}, {class: prevalence}
    test_section: Callable[..., JSON]  # the test evaluation section


class BinaryPage(ClassificationPage):
    group_rates = staticmethod(figures.group_rates)
    calibrated_of = "p(positive)"
    criteria_note = "(0 = parity), ratios min / max (1 = parity); equal opportunity = equal TPR t/p (erratum E4)."
    groupings = staticmethod(binary_fairness)

    @staticmethod
    def calibration_detail(q: CalibrationQuality) -> JSON:
        return {f"Brier {k}": v for k, v in q.brier_decomposition.items()}

    @staticmethod
    def decision_rule(f: FairnessReport) -> str:
        return f"decision threshold {html.fmt(f.decision_threshold)}"

    @staticmethod
    def intended_use(target: str, classes: list[Any]) -> str:
        return f"Scores the probability that {target} = {classes[1]} for rows like the training data"

    @staticmethod
    def performance(test: BinaryEvaluation) -> str:
        return (
            f"test ROC AUC {with_interval(test, 'roc_auc')}, accuracy {with_interval(test, 'accuracy')}, Brier "
            f"{with_interval(test, 'brier')}"
        )

    @staticmethod
    def confusion(test: BinaryEvaluation) -> str:
        c, positive = test.confusion, test.classes[1]
        return f"tp {c.tp}, fp {c.fp}, fn {c.fn}, tn {c.tn} (positive: {positive})"

    @staticmethod
    def curve_summaries(test: BinaryEvaluation) -> CurveSummaries:
        """{class: ROC AUC}, {class: AP}, {class: prevalence} of the curve drawn: the positive class's."""
        positive = test.classes[1]
        prevalence = (test.confusion.tp + test.confusion.fn) / test.n
        return {positive: test.roc_auc}, {positive: test.average_precision}, {positive: prevalence}

    @staticmethod
    def test_section(test: BinaryEvaluation) -> JSON:
        c = test.confusion
        return html.section(
            "Test evaluation (used once)",
            html.key_values({"n": test.n, "threshold": test.threshold}),
            *with_baseline(
                test,
                (
                    "roc_auc",
                    "average_precision",
                    "accuracy",
                    "precision",
                    "recall",
                    "specificity",
                    "f1",
                    "log_loss",
                    "brier",
                ),
            ),
            html.heading("Confusion matrix (rows: actual, columns: predicted)"),
            html.table(
                [
                    {"": "actual 1", "predicted 1": c.tp, "predicted 0": c.fn},
                    {"": "actual 0", "predicted 1": c.fp, "predicted 0": c.tn},
                ]
            ),
            html.heading("Full metric table (corrected formulas; undefined = zero denominator)"),
            html.key_values(test.table),
            gap_note(test),
            html.figures("roc.png", "precision_recall.png"),
        )


class MulticlassPage(ClassificationPage):
    two_way_pdp = False  # one surface per class: the one-way curves show them
    macro, macro_card = " (macro)", " (macro over classes)"
    group_rates = staticmethod(figures.group_class_rates)
    calibrated_of = (
        "the top label (the largest probability against whether its class is right; classwise ECE: the mean over "
        "classes of the ECE of p_k against y = k)"
    )
    criteria_note = (
        "(0 = parity), per class one against the rest, and their mean over classes (macro); demographic parity "
        "= equal selection rate P(decision = k | group), equal opportunity = equal recall P(decision = k | y "
        "= k, group)."
    )
    groupings = staticmethod(multiclass_fairness)

    @staticmethod
    def calibration_detail(q: CalibrationQuality) -> JSON:
        return {"classwise ECE": q.classwise_ece}

    @staticmethod
    def decision_rule(f: FairnessReport) -> str:
        return "the class of largest probability (or of least expected cost)"

    @staticmethod
    def intended_use(target: str, classes: list[Any]) -> str:
        return f"Gives the probability of each class of {target} ({', '.join(classes)}) for rows like the training data"

    @staticmethod
    def performance(test: MulticlassEvaluation) -> str:
        return (
            f"test macro one-vs-rest ROC AUC {with_interval(test, 'roc_auc_ovr')}, accuracy "
            f"{with_interval(test, 'accuracy')}, macro F1 {with_interval(test, 'f1_macro')}, log loss "
            f"{with_interval(test, 'log_loss')}"
        )

    @staticmethod
    def confusion(test: MulticlassEvaluation) -> str:
        names, matrix = test.confusion.labels, test.confusion.matrix
        return "; ".join(
            f"actual {a}: " + ", ".join(f"{matrix[i][j]} decided {b}" for j, b in enumerate(names))
            for i, a in enumerate(names)
        )

    @staticmethod
    def curve_summaries(test: MulticlassEvaluation) -> CurveSummaries:
        """{class: ROC AUC}, {class: AP}, {class: prevalence} of the curves drawn: each class against the rest."""
        per_class = test.per_class
        return (
            {c: m["roc_auc_ovr"] for c, m in per_class.items()},
            {c: m["average_precision"] for c, m in per_class.items()},
            {c: m["support"] / test.n for c, m in per_class.items()},
        )

    @staticmethod
    def test_section(test: MulticlassEvaluation) -> JSON:
        names, matrix = test.confusion.labels, test.confusion.matrix
        return html.section(
            "Test evaluation (used once)",
            html.key_values(
                {
                    "n": test.n,
                    "classes": names,
                    **{f"top-{k} accuracy": v for k, v in test.top_k_accuracy.items()},
                }
            ),
            *with_baseline(
                test,
                (
                    "roc_auc_ovr",
                    "accuracy",
                    "balanced_accuracy",
                    "f1_macro",
                    "precision_macro",
                    "recall_macro",
                    "log_loss",
                    "brier",
                ),
            ),
            html.muted(
                "roc_auc_ovr: the mean over classes of each class's ROC AUC against the rest (macro); "
                "Brier: the mean over rows of sum_k (p_k - [y = k])^2."
            ),
            html.heading("Confusion matrix (rows: actual, columns: decided)"),
            html.table(
                [
                    {"": f"actual {a}", **{f"decided {b}": matrix[i][j] for j, b in enumerate(names)}}
                    for i, a in enumerate(names)
                ]
            ),
            html.heading("Per class (one against the rest) and averages"),
            html.table([{"class": c, **m} for c, m in test.per_class.items()]),
            html.table([{"average": a, **m} for a, m in test.averages.items()]),
            gap_note(test),
            html.figures("roc.png", "precision_recall.png"),
        )
