"""Stage 1, validate: the raw file against its schema. Valid rows go on; rows breaking a domain check are
quarantined with their reasons or stop the stage (validate.on_invalid); fractional values in 0/1 columns
follow validate.fractional_binary. Nothing is silently lost: rows in = rows kept + rows quarantined. The task
(data.task, or inferred from the target with the reason) and the classes are reported."""
from __future__ import annotations

import numpy as np
import pandas as pd

from mllib.base import to_python
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.io import read_dataset, write_json, write_parquet
from pipeline.schema import binary_columns, build_schema, check_columns, failure_cases, is_column_level
from pipeline.task import infer_target


def file_row(source: str, index: int) -> str:
    """Where row `index` (0-based, as read) sits in the user's file: the data row, and the line of a CSV."""
    line = "" if str(source).lower().endswith((".parquet", ".pq")) else f", line {index + 2} of the file"
    return f"data row {index + 1}{line}"


def _describe(cases: pd.DataFrame, source: str, limit: int = 3) -> str:
    return "; ".join(
        f"column {r.column!r} {r.check} failed for value {to_python(r.failure_case)!r} at {file_row(source, int(r.index))}"
        for r in cases.head(limit).itertuples()
    )


def _column_problem(case, source: str, schema_file) -> str:
    schema_src = schema_file or "the checks inferred from params.yaml"
    if case["check"] == "column_in_dataframe":
        return f"{source}: column {to_python(case['failure_case'])!r} required by {schema_src} is missing; add it or fix the schema"
    at_row = "" if pd.isna(case["index"]) else f" at {file_row(source, int(case['index']))}"  # whole-column checks: no row
    return (
        f"{source}: column {case['column']!r}: {case['check']} failed (e.g. value {to_python(case['failure_case'])!r}{at_row}). "
        f"Fix the data or {schema_src}; a text column belongs in data.categorical or data.drop"
    )


def apply_fractional_policy(df: pd.DataFrame, columns: list[str], policy: str, source: str):
    """Handle values strictly between 0 and 1 in declared 0/1 columns; return (frame, reasons, report)."""
    reasons: dict[int, list[str]] = {}
    report = {}
    for col in columns:
        values = pd.to_numeric(df[col], errors="coerce")
        fractional = (values > 0) & (values < 1)
        if not fractional.any():
            continue
        report[col] = {"rows": int(fractional.sum()), "action": policy}
        if policy == "fail":
            first = df.index[fractional][0]
            raise PipelineError(
                f"{source}: column {col!r} is declared 0/1 but holds {int(fractional.sum())} fractional values "
                f"(e.g. {to_python(values[first])!r} at {file_row(source, first)}); set validate.fractional_binary to "
                "quarantine or round"
            )
        if policy == "round":
            df[col] = np.where(fractional, (values >= 0.5).astype(float), values)
        else:
            for row in df.index[fractional]:
                reasons.setdefault(row, []).append(f"{col}: fractional value {to_python(values[row])!r} in a 0/1 column")
    return df, reasons, report


def target_counts(target, values: pd.Series) -> dict:
    """Rows per class, or a regression target's summary."""
    y = target.encode(values)
    if target.regression:
        return {"mean": float(y.mean()), "std": float(y.std()), "min": float(y.min()), "max": float(y.max())}
    return dict(zip(target.label_names(), np.bincount(y, minlength=target.n_classes).tolist()))


def main() -> None:
    params = load_params()
    data, policy = params["data"], params["validate"]
    source = data["path"]
    raw = read_dataset(source, data["categorical"])
    check_columns(raw, data)
    schema = build_schema(raw, data)
    df = raw.copy()

    df, reasons, fractional_report = apply_fractional_policy(df, binary_columns(schema), policy["fractional_binary"], source)
    cases = failure_cases(df.drop(index=list(reasons)), schema)
    column_level = cases[is_column_level(cases)]
    if len(column_level):
        raise PipelineError(_column_problem(column_level.iloc[0], source, data["schema"]))
    row_cases = cases[~is_column_level(cases)]
    if len(row_cases) and policy["on_invalid"] == "fail":
        n_rows = row_cases["index"].nunique()
        raise PipelineError(
            f"{source}: {n_rows} rows break the schema: {_describe(row_cases, source)}. "
            "Fix the data or the schema, or set validate.on_invalid: quarantine to move such rows to the quarantine file"
        )
    for r in row_cases.itertuples():
        reasons.setdefault(int(r.index), []).append(f"{r.column}: {r.check} failed for value {to_python(r.failure_case)!r}")

    bad = sorted(reasons)
    kept = schema.validate(df.drop(index=bad))
    if kept.empty:
        raise PipelineError(f"{source}: every row was quarantined; see the reasons above or relax the schema")
    target = infer_target(kept[data["target"]], data, source)

    kept.insert(0, paths.ROW_ID, kept.index.to_numpy(dtype=np.int64))
    quarantine = df.loc[bad].copy()
    quarantine.insert(0, paths.ROW_ID, np.asarray(bad, dtype=np.int64))
    quarantine["_reason"] = ["; ".join(reasons[i]) for i in bad]
    check_counts = (
        row_cases.groupby(["column", "check"]).size().reset_index(name="rows").to_dict("records") if len(row_cases) else []
    )
    summary = {
        "file": source,
        "schema": data["schema"],
        "rows_in": int(len(raw)),
        "rows_kept": int(len(kept)),
        "rows_quarantined": int(len(bad)),
        "columns": int(raw.shape[1]),
        "policies": policy,
        "fractional_binary": fractional_report,
        "failed_checks": check_counts,
        "task": target.task,
        "task_reason": target.reason,
        "classes": target.classes,
        "target_classes": target_counts(target, kept[data["target"]]),
    }
    assert summary["rows_in"] == summary["rows_kept"] + summary["rows_quarantined"]
    write_parquet(kept.reset_index(drop=True), paths.VALIDATED)
    write_parquet(quarantine.reset_index(drop=True), paths.QUARANTINE)
    write_json(summary, paths.VALIDATION_REPORT)
    print(f"validate: {summary['rows_kept']} rows kept, {summary['rows_quarantined']} quarantined of {summary['rows_in']}; "
          f"{target.task} target {target.column!r} ({target.reason})")


if __name__ == "__main__":
    run_stage(main)
