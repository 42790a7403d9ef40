"""The report page in order: the model card, the trust section, the data, model selection, the task's own sections
(pipeline/reporting/task_pages.py), explainability; and every figure the page shows. The pieces are in
pipeline/reporting/page.py, the HTML in pipeline/reporting/templates/report.html.j2."""

from __future__ import annotations

from ..core.changes import describe
from ..core.json_types import JSON
from ..core.records import CleaningReport
from ..core.report_inputs import ReportInputs
from . import figures, verdict
from . import page as html
from .card import data_changes, gate_checks, model_card, promotion_summary
from .results import explain_section, trust_section
from .task_pages import PAGES

TABLE_ROWS = 30  # a ranked table on the page shows its first rows, and says how many more its file holds
SHAPES = 6  # an additive model's strongest columns drawn (every one is in attributions.json)


def table_head(rows: list[JSON], what: str) -> list[JSON]:
    """The first TABLE_ROWS rows of a ranked table, and a line counting the rest."""
    if len(rows) <= TABLE_ROWS:
        return [html.table(rows)]
    return [html.table(rows[:TABLE_ROWS]), html.muted(f"The first {TABLE_ROWS} of {len(rows)} {what}.")]


def make_figures(r: ReportInputs) -> dict[str, bytes]:
    kind, scoring, splits = PAGES[r.target.task](), r.train.scoring, f"{r.split.strategy} splits"
    figs = {
        "validation_curve.png": figures.validation_curve(r.validation_curve, scoring),
        **(
            {"learning_curve.png": figures.learning_curve(r.learning_curve, scoring, splits)}
            if r.learning_curve
            else {}
        ),
        **(
            {"hyperparameter_curve.png": figures.hyperparameter_curve(r.hyperparameter_curve, scoring, splits)}
            if r.hyperparameter_curve
            else {}
        ),
        "importance.png": figures.importance(r.importance.features, r.importance.scoring),
    }
    figs.update(kind.task_figures(r))
    if r.attributions.shapley:
        figs["shapley.png"] = figures.shapley_summary(r.attributions.shapley, r.attributions.columns)
    shapes = r.attributions.shape_functions
    if shapes is not None:
        for i, shape in enumerate(shapes.terms[:SHAPES]):
            figs[f"shape_{i}.png"] = figures.shape_function(shape, shapes.output, r.attributions.classes)
    pd_ = r.partial_dependence
    for i, curve in enumerate(pd_.one_way):
        figs[f"pdp_{i}.png"] = figures.partial_dependence(curve, pd_.classes, pd_.output)
    if pd_.two_way and kind.two_way_pdp:
        figs["pdp_2d.png"] = figures.partial_dependence_2d(pd_.two_way, pd_.output)
    return figs


def duplicates_line(cleaning: CleaningReport) -> str:
    d = cleaning.duplicate_rows
    return f"{d.rows} ({d.action}; clean.drop_duplicate_rows: {d.setting})"


def missing_line(r: ReportInputs) -> str:
    """Missing values per column after cleaning (the features stage imputes them), and the rows validate set aside
    for a missing target, which no column shows any more."""
    missing = r.cleaning.missing_values
    line = html.fmt(missing) if missing else "none"
    unlabelled = sum(v["rows"] for v in r.validation.missing_target.values())
    if unlabelled:
        line += f"; {unlabelled} rows without a target quarantined by validate (validate.missing_target)"
    return line


def changes_table(params: JSON, r: ReportInputs) -> JSON:
    records = data_changes(params, r)
    if not records:
        return html.muted("None: every row, column and value of the file reached the model as it was.")
    return html.table(
        [
            {
                "stage": c.stage,
                "change": c.change,
                "rows": c.rows or "",
                "values": c.values or "",
                "columns": ", ".join(c.columns),
                "target before": describe(c.target_before) if c.target_before is not None else "",
                "target after": describe(c.target_after) if c.target_after is not None else "",
            }
            for c in records
        ]
    )


def gate_marked(task_sections: list[JSON], gate: JSON | None) -> list[JSON]:
    """The task's sections with the gate's fairness reading first in its fairness section (the failing gaps and the
    bound, where the groups' rates are)."""
    if gate is None:
        return task_sections
    return [{**s, "parts": [gate, *s["parts"]]} if s["anchor"].startswith("fairness") else s for s in task_sections]


def fold_table(data: JSON, folds: list[JSON]) -> JSON:
    """The training rows' fold balance; a count of groups only when data.group names them (rows without one are
    not groups, and the column would read "undefined" in every fold)."""
    group_count = ["n_groups"] if data["group"] else []
    return html.table(folds, ["fold", "n_rows", *group_count, "class_counts", "max_abs_deviation"])


def build_html(params: JSON, r: ReportInputs, figs: dict[str, bytes]) -> str:
    """The page: the sections of the task's results, rendered by the template with the figures inlined."""
    kind = PAGES[r.target.task]()
    candidates = [
        {
            "params": c.params,
            "rank": c.rank,
            "mean validation": c.mean_valid_score,
            "std validation": c.std_valid_score,
            "mean train": c.mean_train_score,
        }
        for c in r.search.candidates
    ]
    checks, headline_figures = gate_checks(params, r)
    first = verdict.build(checks, headline_figures, r.target, r.test, verdict.model_line(r.train))
    sections = [
        html.section("Model card", model_card(params, r, promotion_summary(checks))),
        trust_section(r, figs),
        html.section(
            "Data: validation, cleaning, split",
            html.key_values(
                {
                    "rows in the file": r.validation.rows_in,
                    "rows quarantined by validate": r.validation.rows_quarantined,
                    "rows removed by clean": r.cleaning.rows_in - r.cleaning.rows_out,
                    "rows the model saw (train + test)": r.split.rows.train + r.split.rows.test,
                    "rows repeating an earlier row": duplicates_line(r.cleaning),
                    "missing values after cleaning": missing_line(r),
                    "split": f"{r.split.strategy}, {r.split.n_splits} folds, test size {r.split.test_size}",
                    "rows train / test": f"{r.split.rows.train} / {r.split.rows.test}",
                }
            ),
            html.heading("Data changes: every row, column and value the pipeline changed"),
            changes_table(params, r),
            html.heading("Fold balance (training rows)"),
            fold_table(params["data"], r.split.folds["folds"]),
            *kind.fold_note,
        ),
        html.section("Model selection", html.table(candidates), html.figures("validation_curve.png")),
        *gate_marked(kind.task_sections(r), verdict.fairness_gate(checks, headline_figures)),
        html.section(
            "Explainability: permutation importance (raw features, test set; Student-t interval over repeats)",
            html.muted(r.importance.statement + "."),
            *table_head(
                [
                    {"feature": f.feature, "mean": f.mean, "std": f.std, "ci_low": f.ci_low, "ci_high": f.ci_high}
                    for f in r.importance.features
                ],
                "columns (reports/importance.json lists every one)",
            ),
            *([html.note(f"Computed {r.importance.sample}.")] if r.importance.sample else []),
            html.figures("importance.png"),
        ),
        explain_section(r, figs),
    ]
    return html.document("Pipeline report", sections, figs, verdict.panel(first))
