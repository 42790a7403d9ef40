"""The monitor's page (reports/monitor.html), in the report's template and look: the verdict, the model checked,
the contract's flags, the drift table (each column's test, p-values, effect sizes, flag), the domain classifier, and
the promises checked on labelled rows or the label-free estimate."""

from __future__ import annotations

from pathlib import Path

from ..core.evaluation_records import Drift
from ..core.io import write_text
from ..core.json_types import JSON
from ..core.monitor_records import BatchCheck, MonitorOff, most_drifted_first
from ..core.records import ABSENT, present
from . import page as html


def _drift_rows(found: Drift) -> list[JSON]:
    """One row per column, the most drifted first (the smallest adjusted p-value; p = 0 is the strongest), the
    untested last."""
    rows = []
    for column in most_drifted_first({c: r.to_json() for c, r in found.columns.items()}):
        r = found.columns[column]
        rows.append(
            {
                "column": column,
                "test": r.test,
                "statistic": present(r.statistic),
                "p": r.p_value,
                "adjusted p": present(r.adjusted_p_value),
                "Wasserstein": present(r.wasserstein),
                "PSI": present(r.psi),
                "missing (training, batch)": ", ".join(f"{share:.1%}" for share in present(r.missing_share) or []),
                "missing share p": present(r.missing_p_value),
                "flagged": "yes" if r.flagged else ("not evaluated" if r.p_value is None else "no"),
            }
        )
    return rows


def monitor_sections(record: BatchCheck | MonitorOff) -> list[JSON]:
    if isinstance(record, MonitorOff):
        return [html.section("Monitor", html.note(record.statement))]
    found, model = record.drift, record.model
    verdict = (
        html.note("FAILS: " + "; ".join(record.failures))
        if record.failures
        else html.note("Every check passes (or is within its noise).")
    )
    checked = {
        "batch": f"{record.batch} ({record.rows} rows)",
        "model": f"{model.registered_model}, pipeline state {model.pipeline_state[:16]}"
        + (f", version {version}" if (version := (record.mlflow or {}).get("version")) else ""),
        "rows the served model flags": f"{record.contract.flagged_rows} "
        + (f"({record.contract.flags})" if record.contract.flags else ""),
        "columns the model ignores": ", ".join(record.contract.ignored_columns) or "none",
    }
    sections = [html.section("Verdict", verdict, html.key_values(checked))]
    domain = found.domain_classifier
    shifted = [
        {"of": r.of, "test": r.test, "p": r.p_value, "adjusted p": r.adjusted_p_value,
         "flagged": "yes" if r.flagged else "no"}
        for r in found.extra.values()
    ]  # fmt: skip
    sections.append(
        html.section(
            "Drift against the training rows",
            html.muted(found.statement),
            html.table(_drift_rows(found)),
            html.heading("What the model says"),
            html.table(shifted),
            html.heading("Domain classifier"),
            html.key_values(
                {"AUC": domain.auc, "interval": domain.interval, "adjusted p": present(domain.adjusted_p_value)}
                if domain.auc is not ABSENT
                else {"statement": domain.statement}
            ),
        )
    )
    if record.labels is not None and (record.labels.unseen or record.labels.statement):
        said: JSON = {"labelled rows (of the model's classes)": record.labels.rows}
        said |= {"labels the model was not trained on": record.labels.unseen} if record.labels.unseen else {}
        said |= {"promises": record.labels.statement} if record.labels.statement else {}
        sections.append(html.section("Labels", html.key_values(said)))
    if record.labels is None or record.labels.statement:
        statement = record.estimate.statement if record.estimate else "not evaluated"
        sections.append(html.section("Performance without labels", html.note(statement)))
    else:
        sections.append(
            html.section(
                f"Promises on {record.labels.rows} labelled rows",
                html.table(
                    [
                        {
                            "check": c.check,
                            "value": c.value,
                            "bound": c.bound,
                            "passed": "yes" if c.passed else "NO",
                            "note": c.note,
                        }
                        for c in record.checks
                    ]  # fmt: skip
                ),
            )
        )
    return sections


def write_monitor_page(record: BatchCheck | MonitorOff, path: Path | str) -> None:
    write_text(html.document("Monitor", monitor_sections(record), {}), path)
