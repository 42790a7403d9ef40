"""The model card: what the model is for, how it was chosen and judged, what the pipeline changed in the data,
its warnings, the promotion gate and where it came from; the task's own lines (use, performance, calibration or
intervals, fairness) come from its page (pipeline/reporting/task_pages.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.changes import change, describe
from ..core.evaluation_records import CalibrationReport, EvaluationReport
from ..core.json_types import JSON
from ..core.records import Change, CopiesAcrossSplit, TrainMetrics, ValidationReport
from ..core.report_inputs import ReportInputs
from .headline import model_choice
from .page import fmt, interval, key_values
from .task_pages import PAGES

if TYPE_CHECKING:
    from ..tracking.promotion import Check


def data_changes(params: JSON, r: ReportInputs) -> list[Change]:
    """Every change the pipeline made to the user's data, in stage order: validate's, clean's and the features stage's
    records (pipeline/core/changes.py: imputed values, pooled rare levels, as features.json states them)."""
    data = params["data"]
    records = [*r.validation.changes, *r.cleaning.changes, *r.features.changes]
    time = r.split.time
    if time and time.note:
        records.append(change("split", time.note, rows=left_out_by_time(r)))
    hidden = [a for a in data["sensitive"] if a in data["drop"]]
    if hidden:
        records.append(change("features", "sensitive attributes kept for the audit, never features", columns=hidden))
    return records


def left_out_by_time(r: ReportInputs) -> int:
    """Rows a time-ordered split left in neither part (within split.gap of the test period, or of a group that
    reappears in it)."""
    time = r.split.time
    return time.rows_in_gap + time.rows_purged if time else 0


def time_order(data: JSON, r: ReportInputs) -> str:
    """The evaluation data's period with data.time; empty without it."""
    time = r.split.time
    if not time:
        return ""
    return (
        f", the latest period: {data['time']} from {time.cut} on (training {time.train_span[0]} to "
        f"{time.train_span[1]}, split.gap {time.gap:g}); the folds chain forward in time"
    )


# what a model predicts at times beyond every training time, by its kind (registry names): a split on the time feature
# keeps the last period's side, a linear function extends the slope it learned, the nearest rows are the latest ones
LEVEL_MODELS = {"decision_tree", "random_forest", "bagging", "adaboost", "gradient_boosting", "decision_tree_regressor",
                "random_forest_regressor", "bagging_regressor", "gradient_boosting_regressor"}  # fmt: skip
TREND_MODELS = {"logistic_regression", "linear_svm", "perceptron", "fisher_lda", "linear_regression", "ridge", "lasso",
                "bayesian_linear_regression", "pls"}  # fmt: skip
NEAREST_MODELS = {"knn", "knn_regressor", "nearest_centroid"}


def extrapolation(model: str) -> str:
    """What the model `model` (a registry name) does at a time beyond every training time, in words."""
    if model in LEVEL_MODELS:
        return (
            f"{model} is a tree model: beyond the last training time it predicts what it predicts at the last "
            "training period (a level, no trend)"
        )
    if model in TREND_MODELS:
        return f"{model} is linear in the feature: it extends the trend it learned beyond the last training time"
    if model in NEAREST_MODELS:
        return f"{model} looks at the nearest training rows, the latest ones: it stays near the last period's level"
    return (
        f"{model} extrapolates as its form does (a kernel's prediction returns towards the training mean far from the "
        "training times, a network extends piecewise linearly): see the partial dependence on the time"
    )


def time_feature(r: ReportInputs) -> dict[str, str]:
    """The card's line on data.time as a feature (data.time_feature), or none when it is not one: what the feature
    is and what the deployed model does at the test period's times, all beyond the training times."""
    time = r.features.time
    if not time:
        return {}
    test = r.split.time
    period = f"the test period ({test.test_span[0]} to {test.test_span[1]})" if test else "every test time"
    return {
        "Time as a feature": f"{time.column} (data.time_feature {time.kind}): {time.feature}, fitted on each split's "
        f"training times. {period[0].upper()}{period[1:]} lies beyond every training time (the last "
        f"{time.last}), so the model extrapolates there, as it will for every row it scores when deployed: "
        f"{extrapolation(r.train.model)}"
    }


def changes_summary(records: list[Change]) -> str:
    """The model card's line: each change with its count, and the target's shift where rows were removed."""
    parts = []
    for c in records:
        counts = [f"{n} {k}" for k, n in (("rows", c.rows), ("values", c.values)) if n] + (
            [", ".join(c.columns)] if c.columns else []
        )
        shift = (
            f"; target {describe(c.target_before)} -> {describe(c.target_after or {})}"
            if c.target_before is not None
            else ""
        )
        parts.append(f"{c.stage}: {c.change} [{'; '.join(counts)}]{shift}")
    return "; ".join(parts) if parts else "none: every row, column and value of the file reached the model as it was"


def model_card(params: JSON, r: ReportInputs, promotion: str) -> JSON:
    """The model card; promotion: the promotion gate's line (promotion_summary)."""
    data, test, train = params["data"], r.test, r.train
    seen = r.split.rows.train + r.split.rows.test
    if seen + left_out_by_time(r) != r.cleaning.rows_out:  # every row that left the data is a change record
        raise ValueError(f"the split holds {seen} rows but clean wrote {r.cleaning.rows_out}")
    task_items = PAGES[r.target.task]().card(params, r)
    items = {
        "Model": f"{train.model} with {fmt(train.best_params) or 'its defaults'}, chosen by"
        f" {train.scoring} over "
        f"{train.n_candidates} candidate{'s' if train.n_candidates != 1 else ''} and {train.n_folds} "
        f"{r.split.strategy} folds",
        "Model choice": model_choice(train, test),
        "Task": f"{test.task}: {r.validation.task_reason}",
        "Intended use": f"{task_items.pop('Intended use')}. Not validated for other populations.",
        "Training data": training_data(data, r, seen),
        "Data changes": changes_summary(data_changes(params, r)),
        "Evaluation data": f"{r.split.rows.test} held-out rows"
        + (f", grouped by {data['group']} (no group in both sets)" if data["group"] else "")
        + time_order(data, r)
        + ", used once"
        + copies_note(r.split.copies_across_split)
        + (f". WARNING: {r.split.test_fraction_note}" if r.split.test_fraction_note else ""),
        **time_feature(r),
        "Performance": f"{task_items.pop('Performance')}; CV {train.scoring} {fmt(train.cv_mean)} ± "
        f"{fmt(train.cv_std)} (mean of {train.n_folds} splits; pooled out-of-fold {fmt(train.cv_pooled)})"
        + (f". Note: {train.cv_note}" if train.cv_note else ""),
        "Test figures": test_figures(test),
        **task_items,
        "Solver warnings": solver_summary(train, r.calibration),
        "Single-feature leakage": r.assessment.single_feature.statement,
        "Temporal leakage": r.assessment.temporal_leakage.statement,
        "Drift, test vs training rows": test.drift.statement,
        "Excluded as features": (
            ", ".join(data["drop"]) + " (data.drop: leakage, identifiers, free text or attributes audited only)"
            if data["drop"]
            else "none (data.drop is empty)"
        ),
        "Sensitive attributes": sensitive_roles(data, r.validation),
        "Promotion gate": promotion,
        "Provenance": f"{data['path']} md5 {r.validation.file_md5} (as in dvc.lock); params sha256 "
        f"{r.params_sha256[:16]} (every section but tracking and compute); {code_provenance(r.code_trees)}",
        "Caveats": "Permutation importance is misleading for correlated features; fairness gaps come from one test set "
        "(bootstrap intervals in the fairness section); groups below the minimum size are flagged in the "
        "fairness table and left out of the parity criteria.",
    }
    return key_values(items)


def test_figures(test: EvaluationReport) -> str:
    """Every test figure the evaluate stage gave an interval, with it, and the rows and draws behind them (the
    decisions' figures are the Decisions line's)."""
    boot = test.bootstrap
    shown = [m for m in boot.figures if "decision" not in m and "_fifth_" not in m]  # fifths: the intervals' line
    return (
        ", ".join(f"{m} {interval(boot.figures[m].value, boot.figures[m].interval)}" for m in shown)
        + f" ({boot.confidence_level:.0%} intervals, n = {boot.n} test rows)"
    )


def training_data(data: JSON, r: ReportInputs, seen: int) -> str:
    """The file's rows, how many the model saw (all, or the rest removed as Data changes lists), the values kept as
    a column's top code, and the columns kept as features that hold one value (they carry nothing)."""
    rows_in, split = r.validation.rows_in, r.split.rows
    line = f"{data['path']}: {rows_in} rows; the model saw " + (
        f"all of them ({split.train} training, {split.test} held out)"
        if seen == rows_in
        else f"{seen} of them ({split.train} training, {split.test} held out); the other {rows_in - seen} were "
        "removed as listed under Data changes"
    )
    for top in r.validation.top_codes or []:  # a value validate kept that a reader might take for missing
        line += (
            f"; {top.column} {top.value:.0f} in {top.rows} rows kept as the column's top code (its highest "
            f"values, above {top.largest_other:g}, recorded as one), not as a missing value"
        )
    single = r.cleaning.single_valued
    if single:
        shown = ", ".join(f"{c} ({'no value' if v is None else f'always {v}'})" for c, v in list(single.items())[:10])
        more = f" and {len(single) - 10} more" if len(single) > 10 else ""
        line += f"; kept as features though they hold one value in every row, so carry nothing: {shown}{more}"
    return line


def copies_note(copies: CopiesAcrossSplit | None) -> str:
    """How many test rows copy a training row (pipeline/steps/folds.copies_across_split), with its warning."""
    if copies is None:
        return ""
    if not copies.test_rows:
        return "; no test row copies a training row"
    line = f"; {copies.test_rows} of {copies.of} test rows ({copies.share:.1%}) copy a training row in {copies.columns}"
    return line + (f". WARNING: {copies.warning}" if copies.warning else "")


def solver_summary(train: TrainMetrics, calibration: CalibrationReport) -> str:
    """Fits of the chosen model (its search folds and the refit) and of the calibration map that stopped at their
    iteration caps (mllib.base.ConvergenceWarning), or that none did."""
    stopped = train.not_converged
    parts = []
    if stopped.folds or stopped.refit:
        where = [f"{len(stopped.folds)} of {train.n_folds} search folds"] if stopped.folds else []
        where += ["the refit on all training rows"] if stopped.refit else []
        parts.append(f"the chosen model stopped at its iteration cap in {' and '.join(where)}: "
                     + "; ".join(stopped.messages))  # fmt: skip
    if calibration.not_converged:
        parts.append("the calibration map stopped at its iteration cap: " + "; ".join(calibration.not_converged))
    return "; ".join(parts) if parts else "none: every fit of the chosen model and the map met its tolerance"


def sensitive_roles(data: JSON, validation: ValidationReport) -> str:
    """Which sensitive attributes the model uses as features and which it only audits, and their missing values."""
    if not data["sensitive"]:
        return "none declared (data.sensitive is empty): no fairness audit"
    parts = []
    for a in data["sensitive"]:
        role = "audited, not a model feature (data.drop)" if a in data["drop"] else "audited and a model feature"
        missing = validation.missing_sensitive.get(a)
        if missing:
            role += f"; {missing['rows']} missing values ({missing['action']})"
        parts.append(f"{a}: {role}")
    return "; ".join(parts)


def code_provenance(trees: dict[str, str | None]) -> str:
    """The code as git tree ids (pipeline/core/provenance.py): equal to `git rev-parse <commit>:<dir>` of the commit it
    came from; the commit itself and the dirty flag are MLflow tags (a byte-reproducible page cannot name the commit
    that records it)."""
    if None in trees.values():
        return "code: not a git checkout, so the code is not identified"
    ids = ", ".join(f"{directory}/ {tree}" for directory, tree in trees.items())
    return (
        f"code as git tree ids {ids} (`git rev-parse <commit>:mllib` gives the same id for the commit the code "
        "came from; no commit has it if the code was uncommitted); the commit and dirty flag are the MLflow run's "
        "tags git.commit and git.dirty"
    )


def gate_checks(params: JSON, r: ReportInputs) -> tuple[list[Check], dict[str, float]]:
    """The gate's threshold checks (tracking.promotion) on this run's headline figures, and the figures."""
    from ..tracking.promotion import threshold_checks
    from .headline import flat, headline, undefined_gaps

    figures = flat(headline(r.target, r.train, r.calibration, r.test, r.fairness, r.assessment))
    costs_set = params["decision"]["cost_matrix"] is not None
    checks = threshold_checks(figures, r.target, params["tracking"]["promotion"], costs_set,
                              undefined_gaps(r.target, r.fairness))  # fmt: skip
    return checks, figures


def promotion_summary(checks: list[Check]) -> str:
    """The gate's threshold checks; the comparison with the best champion so far happens when the track stage
    registers the version (its description gives the decision and every check)."""
    from ..tracking.promotion import decide

    decision = decide(checks)
    verdict = "the thresholds pass" if decision.promote else "the thresholds FAIL: this version cannot become champion"
    return (
        f"{verdict} ({'; '.join(decision.reasons)}); the track stage registers the model as `candidate` and "
        "moves `champion` to it if it is also no worse than the best champion so far (tracking.promotion.tolerance); "
        "the version's description states the decision and every check. The comparison reads test figures: each "
        "version's test set is used once, by its own run, but choosing among many versions by test score makes the "
        "test set a selection set, so the gate only asks that a version be no worse than the best champion, and the "
        "cross-validated and nested-CV scores in this report are the evidence for ranking configurations"
    )
