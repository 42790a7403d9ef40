"""The report page's sections every task has: how much to trust the number, explainability, and the test metrics
beside the no-skill baseline with the validation-vs-test gap (read by each task's test section).

Sections cited: Ghent ML notes (seed 004): 3.2 Bias and Variance (419)"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.evaluation_records import EvaluationReport
from ..core.json_types import JSON
from ..core.report_inputs import ReportInputs
from . import page as html
from .headline import test_gains


def trust_section(r: ReportInputs, figs: dict[str, bytes]) -> JSON:
    """How much to trust the number: the baseline, the leakage estimate, nested CV, the gaps, the learning and
    validation curves and the model comparison."""
    train, test, assessment = r.train, r.test, r.assessment
    gap, curve = test.cv_vs_test, assessment.learning_curve
    items = {
        f"CV {train.scoring} of the model ({r.split.strategy} splits)": f"{html.fmt(train.cv_mean)} ± "
        f"{html.fmt(train.cv_std)} (mean over the splits); pooled out-of-fold {html.fmt(train.cv_pooled)}"
        + (f". Note: {train.cv_note}" if train.cv_note else ""),
        f"the same folds, no-skill baseline ({train.baseline.model})": train.baseline.cv_mean,
        "leakage estimate": assessment.leakage.statement,
        "temporal leakage estimate (data.time)": assessment.temporal_leakage.statement,
        "single features (leakage beyond groups)": assessment.single_feature.statement,
        "train - validation gap (CV)": train.train_valid_gap,
        "validation vs test": f"test {html.fmt(gap.test)}, gap {html.fmt(gap.gap)}: {gap.diagnosis}",
        "test rows vs training rows (drift)": test.drift.statement,
    }
    if assessment.sample:  # leakage, single features and the learning curve ran on a sample
        items["rows assessed"] = assessment.sample
    nested = assessment.nested
    models = nested.models or []
    whole = f"the whole selection among {', '.join(models)} with their grids" if len(models) > 1 else "the whole search"
    items[f"nested CV ({whole} inside each split)"] = (
        nested.statement
        if nested.statement is not None
        else f"{html.fmt(nested.outer_mean)} ± {html.fmt(nested.outer_std)} on the outer validation parts; the inner "
        f"best scores averaged {html.fmt(nested.inner_best_mean)}, so the selection's optimism is "
        f"{html.fmt(nested.optimism)}"
    )
    if assessment.validation_curve.statement is not None:
        items["validation curve"] = assessment.validation_curve.statement
    if curve:
        items["learning curve"] = curve.diagnosis.verdict  # with its figures and 95% intervals over the splits
    comparison = []
    if train.comparison:
        c = train.comparison
        rows = [
            {
                "model": m.model,
                "rank": m.rank,
                "params": m.params,
                f"mean {train.scoring}": m.mean,
                "std": m.std,
                "difference from the best": m.versus_best.mean_difference if m.versus_best else None,
                "its standard error": m.versus_best.standard_error if m.versus_best else None,
                "corrected t-test p": m.versus_best.p_value if m.versus_best else None,
            }
            for m in c.models
        ]
        on_test = test.comparison
        gains = "; ".join(f"{name} {html.interval(g.gain, g.interval)}" for name, g in test_gains(test).items())
        comparison = [
            html.heading(
                f"Models compared on the same folds (selection: {html.fmt(c.rule)}; chosen: {html.fmt(c.chosen)})"
            ),
            html.table(rows),
            html.muted(
                "Corrected resampled t-test (Nadeau and Bengio): the plain paired t-test on fold "
                "scores overstates the evidence because the folds' training parts overlap; selection one_se takes the "
                "first model listed (simplest first) within one standard error of their difference."
                + (
                    f" On test, {on_test.chosen}'s {on_test.scoring} minus each other model's (refitted on every "
                    f"training row; {on_test.method}): {gains}."
                    if on_test
                    else ""
                )
            ),
        ]
    return html.section(
        "How much to trust this number",
        html.key_values(items),
        *comparison,
        html.muted(
            "Leakage estimate (with data.group): the chosen configuration scored again by a row-level k-fold of the "
            "same training rows (features refitted per fold), beside the grouped CV; a positive inflation is what "
            f"ignoring the groups would have claimed. Learning curve: each of the {r.split.strategy} splits' "
            "models fitted on shares of its training rows. Model bias and variance themselves cannot be measured "
            "without the true distribution (the Ghent notes' section 3.2, Bias and Variance; Hastie, Tibshirani & "
            "Friedman, The Elements of Statistical Learning, 7.3; docs/references.md); these are the notes' "
            "diagnostics."
        ),
        html.figures(*(name for name in ("learning_curve.png", "hyperparameter_curve.png") if name in figs)),
    )


def explain_section(r: ReportInputs, figs: dict[str, bytes]) -> JSON:
    a = r.attributions
    parts = []
    if a.shape_functions:
        shapes = a.shape_functions
        drawn = [name for name in sorted(figs) if name.startswith("shape_")]
        parts += [
            html.heading("The additive model's shape functions"),
            html.muted(
                f"The deployed model is {shapes.statement}. Intercept {html.fmt(shapes.intercept)}. A column's "
                "addition is exact for every row: the prediction is the intercept plus the column additions plus the "
                f"pairwise terms. The {len(drawn)} strongest columns are drawn (all {len(shapes.terms)} are in "
                "reports/attributions.json)."
            ),
            html.table(
                [{"column": t.feature, "mean |addition|": t.importance, "kind": t.kind} for t in shapes.terms[:15]]
            ),
            *(
                [html.table([{"pair": " x ".join(p.features), "mean |value|": p.importance} for p in shapes.pairs])]
                if shapes.pairs
                else []
            ),
            html.figures(*drawn),
        ]
    if a.shapley:
        s = a.shapley
        parts += [
            html.muted(
                f"{len(a.rows)} test rows; method {html.fmt(s.method)}, values add up to the "
                f"{html.fmt(s.output)} (expected value {html.fmt(s.expected_value)}); largest additivity error "
                f"{html.fmt(s.additivity_error_max)} ({html.fmt(s.additivity_error_max_relative)} relative). "
                f"{html.fmt(s.raw_columns)}"
            ),
            html.table(
                [
                    {k: f[k] for k in ("feature", "mean_abs", "mean")} | f.get("mean_abs_per_class", {})
                    for f in s.features[:15]
                ]
            ),
            html.figures("shapley.png"),
        ]
    if a.relevance:
        rel = a.relevance
        parts += [
            html.heading(f"Relevance ({html.fmt(rel.method)}, {html.fmt(rel.output)})"),
            html.muted(f"median conservation error {html.fmt(rel.conservation_error_median)}"),
            html.table([{k: f[k] for k in ("feature", "mean_abs", "mean")} for f in rel.features[:15]]),
        ]
    if a.surrogate:
        sur = a.surrogate
        parts += [
            html.heading(f"Global surrogate tree (depth {html.fmt(sur.depth)}, {html.fmt(sur.n_leaves)} leaves)"),
            html.muted(
                "A tree fitted to the deployed predictor's own outputs on the training rows in the model's input "
                "features (imputed, scaled, encoded), its rules read back in the file's own units and category "
                "names (a feature no single column makes says model units). Fidelity on test "
                f"({html.fmt(sur.fidelity_metric)}): {html.fmt(sur.fidelity)}; the rules explain the model only "
                "as far as they agree with it."
            ),
            html.table(
                [
                    {
                        "rule": " and ".join(rule.conditions) or "(all rows)",
                        "predicts": rule.prediction,
                        "training rows": rule.rows,
                    }
                    for rule in sur.rules
                ]
            ),
        ]
    pdp = [name for name in sorted(figs) if name.startswith("pdp_")]
    if pdp:
        parts += [
            html.heading(f"Partial dependence and ICE ({html.fmt(r.partial_dependence.output)})"),
            html.figures(*pdp),
        ]
    return html.section(
        "Explainability: shape functions, Shapley values, relevance, surrogate tree, partial dependence", *parts
    )


def with_baseline(test: EvaluationReport, metrics: Iterable[str]) -> list[JSON]:
    """Each test metric of the model with its bootstrap interval (where one was drawn) beside the no-skill
    baseline's (undefined where the baseline has none), and how the intervals were drawn."""
    baseline, boot = test.baseline, test.bootstrap
    level = f"{boot.confidence_level:.0%} interval"
    rows = [
        {
            "metric": m,
            "model": test.figure(m),
            level: "[{}, {}]".format(*map(html.fmt, boot.figures[m].interval)) if m in boot.figures else "",
            f"no-skill baseline ({baseline['model']})": baseline.get(m),
        }
        for m in metrics
    ]
    return [html.table(rows), html.muted(intervals_note(test))]


def intervals_note(test: EvaluationReport) -> str:
    """How the test figures' intervals were drawn, on how many rows."""
    boot = test.bootstrap
    units = f" ({boot.n_units} clusters)" if boot.unit == "cluster" else ""
    return (
        f"n = {boot.n} test rows{units}. Intervals: {boot.confidence_level:.0%} {boot.method} "
        "(evaluate.n_boot, evaluate.confidence_level); the promotion gate reads their conservative ends."
    )


def with_interval(test: EvaluationReport, metric: str) -> str:
    """'0.7542 [0.7351, 0.7730]': a test figure with its bootstrap interval."""
    return html.interval(test.figure(metric), test.bootstrap.figures[metric].interval)


def gap_note(test: EvaluationReport) -> JSON:
    gap = test.cv_vs_test
    return html.note(
        f"Validation vs test ({html.fmt(gap.scoring)}): CV {html.fmt(gap.cv_mean)} ± "
        f"{html.fmt(gap.cv_std)}, test {html.fmt(gap.test)}, gap {html.fmt(gap.gap)}: "
        f"{html.fmt(gap.diagnosis)}"
    )
