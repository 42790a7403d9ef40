"""The validate stage's work on rows (pipeline/stages/validate.py): the policies for fractional 0/1 values and missing
target or sensitive values, then the schema's checks, giving the kept rows and the quarantined ones with their
reasons. check_rows does it for a frame (the whole data in memory, or one part); check_parts runs it on every part
of a partitioned table on the Dask cluster, writing each part's rows as it goes, and gathers what the report needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from mllib.base import to_python

from ..core import paths
from ..core.changes import describe as describe_distribution
from ..core.changes import validation_changes
from ..core.data_files import dataset_md5
from ..core.errors import PipelineError
from ..core.io import write_parquet
from ..core.json_types import JSON
from ..core.partitions import Parts, map_parts
from ..core.records import TopCode, ValidationReport
from ..core.schema import (
    apply_fractional_policy,
    apply_missing_policy,
    binary_columns,
    check_no_nul_bytes,
    column_problem,
    describe,
    failure_cases,
    is_column_level,
)
from ..core.task_inference import infer_target

if TYPE_CHECKING:
    import pandera.pandas as pa
    from distributed import Client


@dataclass
class CheckedRows:
    """What validate learnt of some rows (indexed by their positions in the data). kept / quarantine: None when
    the rows are written already (a part) or when a row breaks the schema under validate.on_invalid: fail."""

    rows_in: int
    reasons: dict[int, list[str]]  # quarantined row -> its reasons
    fractional: dict[str, JSON]  # {column: {rows, action}}
    missing: dict[str, dict[str, JSON]]  # {"target" | "sensitive": {column: {rows, action}}}
    row_cases: pd.DataFrame  # pandera's failures of single rows
    target: pd.Series  # the target of every row read (the quarantine's "before")
    kept_target: pd.Series | None = None
    kept: pd.DataFrame | None = field(default=None, repr=False)
    quarantine: pd.DataFrame | None = field(default=None, repr=False)

    @classmethod
    def merge(cls, parts: list[CheckedRows]) -> CheckedRows:
        """The parts' findings as one (their frames left out: the parts are written)."""
        fractional: dict[str, JSON] = {}
        missing: dict[str, dict[str, JSON]] = {"target": {}, "sensitive": {}}
        for part in parts:
            for total, found in [(fractional, part.fractional), *((missing[r], part.missing[r]) for r in missing)]:
                for column, report in found.items():
                    total.setdefault(column, {"rows": 0, "action": report["action"]})["rows"] += report["rows"]
        kept = [p.kept_target for p in parts if p.kept_target is not None]
        return cls(
            rows_in=sum(p.rows_in for p in parts),
            reasons={row: why for p in parts for row, why in p.reasons.items()},
            fractional=fractional,
            missing=missing,
            row_cases=pd.concat([p.row_cases for p in parts], ignore_index=True),
            target=pd.concat([p.target for p in parts]),
            kept_target=pd.concat(kept) if len(kept) == len(parts) else None,
        )


def check_rows(raw: pd.DataFrame, schema: pa.DataFrameSchema, data: JSON, policy: JSON, source: str) -> CheckedRows:
    """The policies, then the schema's checks (a column-level failure stops the stage, naming the column); rows
    breaking a check are quarantined with their reasons, or (validate.on_invalid: fail) left to the caller to refuse
    once it has every row's failures."""
    check_no_nul_bytes(raw, source)
    rows_in = len(raw)  # raw is changed in place by the fractional policy (round)
    df, reasons, fractional = apply_fractional_policy(raw, binary_columns(schema), policy["fractional_binary"], source)
    missing: dict[str, dict[str, JSON]] = {}
    for role, columns in (("target", [data["target"]]), ("sensitive", data["sensitive"])):
        role_reasons, missing[role] = apply_missing_policy(df, columns, role, policy[f"missing_{role}"], source)
        for row, why in role_reasons.items():
            reasons.setdefault(row, []).extend(why)
    validated, cases = failure_cases(df.drop(index=list(reasons)), schema)
    column_level = cases[is_column_level(cases)]
    if len(column_level):
        raise PipelineError(column_problem(column_level.iloc[0], source, data["schema"]))
    row_cases = cases[~is_column_level(cases)]
    # copies: a column taken from a frame holds all of its block (every column of its type) while it lives
    checked = CheckedRows(rows_in, reasons, fractional, missing, row_cases, df[data["target"]].copy())
    if len(row_cases) and policy["on_invalid"] == "fail":
        return checked
    for r in row_cases.itertuples():
        reasons.setdefault(int(r.index), []).append(
            f"{r.column}: {r.check} failed for value {to_python(r.failure_case)!r}"
        )

    bad = sorted(reasons)
    kept = validated if validated is not None else schema.validate(df.drop(index=bad))  # valid: checked once
    # one new frame, not an insert: pandera's coercion leaves a wide frame in one block per column
    kept = pd.concat(
        [pd.Series(kept.index.to_numpy(dtype=np.int64), index=kept.index, name=paths.ROW_ID), kept], axis=1
    )
    quarantine = df.loc[bad].copy()
    quarantine.insert(0, paths.ROW_ID, np.asarray(bad, dtype=np.int64))
    quarantine["_reason"] = pd.array(["; ".join(reasons[i]) for i in bad], dtype="str")  # text in an empty part too
    checked.kept, checked.quarantine = kept.reset_index(drop=True), quarantine.reset_index(drop=True)
    checked.kept_target = kept[data["target"]].copy()
    return checked


def _check_part(
    k: int, files: dict[str, Path], parts: Parts, schema: pa.DataFrameSchema, data: JSON, policy: JSON, source: str
) -> CheckedRows:
    checked = check_rows(parts.read(k), schema, data, policy, source)
    if checked.kept is not None:
        write_parquet(checked.kept, files["validated"])
        write_parquet(cast(pd.DataFrame, checked.quarantine), files["quarantine"])  # set with kept (check_rows)
        checked.kept = checked.quarantine = None  # written: only the findings go back
    return checked


def check_parts(
    client: Client,
    parts: Parts,
    staged: dict[str, Path],
    schema: pa.DataFrameSchema,
    data: JSON,
    policy: JSON,
    source: str,
) -> CheckedRows:
    """check_rows on every part, on the cluster; each part's kept and quarantined rows written into the staged
    validated and quarantine outputs (staged: {"validated": dir, "quarantine": dir})."""
    found = map_parts(
        client,
        _check_part,
        len(parts.files),
        staged,
        parts=parts,
        schema=schema,
        data=data,
        policy=policy,
        source=source,
    )
    return CheckedRows.merge(found)


def quarantine_effect(target_values: pd.Series, rows: np.ndarray, data: JSON, source: str) -> str:
    """What quarantining `rows` (positions) would do to the question: the target's distribution in them against
    the rest (class shares, or a number's mean and sd)."""
    values = target_values.dropna()
    try:
        target = infer_target(values, data, source)
    except PipelineError:  # a target that cannot be read: the stage says so later, in its own words
        return f"{len(rows)} rows"
    removed = np.isin(np.arange(len(target_values)), rows)
    every = target.distribution(values)  # each class named, with 0 where the rows hold none of it
    inside, rest = (target.distribution(part) for part in (target_values[removed], target_values[~removed]))
    if "mean" not in every:
        inside, rest = ({k: part.get(k, 0.0) for k in every} for part in (inside, rest))
    return (
        f"{len(rows)} rows, target {data['target']!r} {describe_distribution(inside)} in them against "
        f"{describe_distribution(rest)} in the rest"
    )


def top_code_records(top_coded: dict[str, JSON], target_values: pd.Series, data: JSON, source: str) -> list[TopCode]:
    """validation.json's "top_codes": each value kept as a column's top code, its rows, and what quarantining them
    would do, with the sentence validate prints."""
    records = []
    for column, found in top_coded.items():
        value, largest, rows = found["value"], found["largest_other"], found["rows"]
        effect = quarantine_effect(target_values, rows, data, source)
        note = (
            f"column {column!r}: {len(rows)} rows hold {value:.0f}, above every other value (the largest {largest:g}) "
            f"with as many digits: kept as the column's top code (its highest values recorded as one), not taken for "
            f"a missing-value code (quarantine would remove {effect}). If "
            f"{value:.0f} means missing, set clean.valid_ranges: {{{column}: [{found['lowest']:g}, {largest:g}]}} "
            "(made missing; the rows stay)"
        )
        records.append(TopCode(column, value, len(rows), largest, note))
    return records


def validation_report(
    checked: CheckedRows,
    data: JSON,
    policy: JSON,
    source: str,
    n_columns: int,
    time: JSON,
    top_coded: dict[str, JSON] | None = None,
) -> ValidationReport:
    """reports/validation.json from the findings, after the checks that need every row: rows breaking the schema
    under validate.on_invalid: fail (saying what quarantine would remove), every row quarantined, the target's task
    (data.task, or inferred); top_coded: schema.top_codes' finding."""
    row_cases = checked.row_cases
    if len(row_cases) and policy["on_invalid"] == "fail":
        rows = row_cases["index"].astype(np.int64).unique()
        keep = (
            "; a value the extreme check flags that is a real measurement is kept with validate.extreme_factor: null"
            if row_cases["check"].astype(str).str.startswith("extreme").any()
            else ""
        )
        raise PipelineError(
            f"{source}: {len(rows)} rows break the schema: {describe(row_cases, source)}. "
            "Fix the data or the schema, or set validate.on_invalid: quarantine to move such rows to the "
            f"quarantine file (it would remove {quarantine_effect(checked.target, rows, data, source)}){keep}"
        )
    if checked.kept_target is None or checked.kept_target.empty:
        raise PipelineError(f"{source}: every row was quarantined; see the reasons above or relax the schema")
    target = infer_target(checked.kept_target, data, source)
    changes = validation_changes(
        checked.target, checked.reasons, checked.fractional, checked.missing["sensitive"], target
    )
    check_counts = (
        row_cases.groupby(["column", "check"]).size().reset_index(name="rows").to_dict("records")
        if len(row_cases)
        else []
    )
    summary = ValidationReport(
        file=str(source),
        file_md5=dataset_md5(source),  # a file's as dvc.lock records it
        schema=data["schema"],
        rows_in=int(checked.rows_in),
        rows_kept=int(len(checked.kept_target)),
        rows_quarantined=int(len(checked.reasons)),
        columns=int(n_columns),
        policies=policy,
        fractional_binary=checked.fractional,
        missing_target=checked.missing["target"],
        missing_sensitive=checked.missing["sensitive"],
        failed_checks=check_counts,
        task=target.task,
        task_reason=target.reason,
        classes=target.classes,
        target_classes=target.counts(target.encode(checked.kept_target)),
        changes=changes,
        time=time,
        top_codes=top_code_records(top_coded, checked.target, data, source) if top_coded else None,
    )
    assert summary.rows_in == summary.rows_kept + summary.rows_quarantined
    return summary
