"""The validate stage: the raw file against its schema. Valid rows go on; rows breaking a domain check are
quarantined with their reasons or stop the stage (validate.on_invalid); fractional values in 0/1 columns
follow validate.fractional_binary, rows without a target validate.missing_target (quarantined by default: nothing
to train or score them on), missing sensitive values validate.missing_sensitive (audited as their own group by
default). Nothing is silently lost: rows in = rows kept + rows quarantined. The task
(data.task, or inferred from the target with the reason) and the classes are reported."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from mllib.base import to_python
from pipeline.core import paths
from pipeline.core.changes import validation_changes
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError, run_stage
from pipeline.core.io import read_dataset, write_parquet
from pipeline.core.records import ValidationReport
from pipeline.core.schema import (
    apply_fractional_policy,
    apply_missing_policy,
    binary_columns,
    build_schema,
    check_columns,
    column_problem,
    describe,
    failure_cases,
    is_column_level,
)
from pipeline.core.task_inference import infer_target


def main() -> None:
    params = load_params()
    data, policy = params["data"], params["validate"]
    source = data["path"]
    raw = read_dataset(source, data["categorical"])
    check_columns(raw, data)
    schema = build_schema(raw, data, policy["extreme_factor"])
    rows_in, n_columns = raw.shape  # raw is changed in place by the fractional policy (round)

    df, reasons, fractional_report = apply_fractional_policy(
        raw, binary_columns(schema), policy["fractional_binary"], source
    )
    missing = {}
    for role, columns in (("target", [data["target"]]), ("sensitive", data["sensitive"])):
        role_reasons, missing[role] = apply_missing_policy(df, columns, role, policy[f"missing_{role}"], source)
        for row, why in role_reasons.items():
            reasons.setdefault(row, []).extend(why)
    validated, cases = failure_cases(df.drop(index=list(reasons)), schema)
    column_level = cases[is_column_level(cases)]
    if len(column_level):
        raise PipelineError(column_problem(column_level.iloc[0], source, data["schema"]))
    row_cases = cases[~is_column_level(cases)]
    if len(row_cases) and policy["on_invalid"] == "fail":
        n_rows = row_cases["index"].nunique()
        raise PipelineError(
            f"{source}: {n_rows} rows break the schema: {describe(row_cases, source)}. "
            "Fix the data or the schema, or set validate.on_invalid: quarantine to move such rows to the "
            "quarantine file"
        )
    for r in row_cases.itertuples():
        reasons.setdefault(int(r.index), []).append(
            f"{r.column}: {r.check} failed for value {to_python(r.failure_case)!r}"
        )

    bad = sorted(reasons)
    kept = validated if validated is not None else schema.validate(df.drop(index=bad))  # valid: checked once
    if kept.empty:
        raise PipelineError(f"{source}: every row was quarantined; see the reasons above or relax the schema")
    target = infer_target(kept[data["target"]], data, source)

    kept.insert(0, paths.ROW_ID, kept.index.to_numpy(dtype=np.int64))
    quarantine = df.loc[bad].copy()
    quarantine.insert(0, paths.ROW_ID, np.asarray(bad, dtype=np.int64))
    quarantine["_reason"] = ["; ".join(reasons[i]) for i in bad]
    changes = validation_changes(df[data["target"]], reasons, fractional_report, missing["sensitive"], target)
    check_counts = (
        row_cases.groupby(["column", "check"]).size().reset_index(name="rows").to_dict("records")
        if len(row_cases)
        else []
    )
    summary = ValidationReport(
        file=source,
        file_md5=hashlib.md5(Path(source).read_bytes()).hexdigest(),  # as dvc.lock records the file
        schema=data["schema"],
        rows_in=int(rows_in),
        rows_kept=int(len(kept)),
        rows_quarantined=int(len(bad)),
        columns=int(n_columns),
        policies=policy,
        fractional_binary=fractional_report,
        missing_target=missing["target"],
        missing_sensitive=missing["sensitive"],
        failed_checks=check_counts,
        task=target.task,
        task_reason=target.reason,
        classes=target.classes,
        target_classes=target.counts(target.encode(kept[data["target"]])),
        changes=changes,
    )
    assert summary.rows_in == summary.rows_kept + summary.rows_quarantined
    write_parquet(kept.reset_index(drop=True), paths.VALIDATED)
    write_parquet(quarantine.reset_index(drop=True), paths.QUARANTINE)
    summary.write()
    print(
        f"validate: {summary.rows_kept} rows kept, {summary.rows_quarantined} quarantined of "
        f"{summary.rows_in}; "
        f"{target.task} target {target.column!r} ({target.reason})"
    )


if __name__ == "__main__":
    run_stage(main)
