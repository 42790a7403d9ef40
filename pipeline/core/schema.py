"""The data contract checked by the validate stage, and the stage's messages and policies: the user's pandera YAML
schema (domain checks), completed
with structural checks inferred from params.yaml (target and group columns present and non-null, sensitive columns
present, with their missing values handled by validate.missing_sensitive, every other feature column numeric unless
declared categorical)."""

from __future__ import annotations

import difflib
from pathlib import Path

import numpy as np
import pandas as pd
import pandera.pandas as pa

from mllib.base import to_python

from .errors import PipelineError
from .frames import MISSING_GROUP
from .io import DataSource
from .paths import ROW_ID


def check_columns(df: pd.DataFrame, data: dict) -> None:
    """Every column named in params.yaml `data` exists in the file (one error naming the key and the column)."""
    if ROW_ID in df.columns:
        raise PipelineError(
            f"data file {data['path']} has a column named {ROW_ID!r}, which the pipeline reserves; rename it"
        )
    named = [("data.target", data["target"]), ("data.group", data["group"])]
    named += [(f"data.{role}", col) for role in ("sensitive", "categorical", "drop") for col in data[role]]
    for key, col in named:
        if col is not None and col not in df.columns:
            close = difflib.get_close_matches(col, list(map(str, df.columns)), n=3)
            hint = f" Did you mean {close}?" if close else f" Columns are: {list(df.columns)}"
            raise PipelineError(f"params.yaml: {key} names column {col!r}, which is not in {data['path']}.{hint}")


def build_schema(df: pd.DataFrame, data: dict, extreme_factor: float | None = None) -> pa.DataFrameSchema:
    """The user's schema (or an empty one) completed with the structural checks; every numeric column checked for
    finite values and, with extreme_factor (validate.extreme_factor), for values beyond the column's bulk."""
    if data["schema"]:
        # checked here: pandera's from_yaml parses a path that does not exist as YAML text instead of raising
        if not Path(data["schema"]).is_file():
            raise PipelineError(
                f"params.yaml: data.schema file {data['schema']} does not exist; fix the path or set null"
            )
        try:
            schema = pa.DataFrameSchema.from_yaml(data["schema"])
        except Exception as exc:  # pandera raises several types for malformed YAML
            raise PipelineError(
                f"schema file {data['schema']} cannot be read ({exc}); check its pandera YAML"
            ) from None
    else:
        schema = pa.DataFrameSchema(strict=False, name="inferred")
    required = {data["target"], *([data["group"]] if data["group"] else [])}
    inferred = {}
    for col in df.columns:
        if col in schema.columns or (col in data["drop"] and col not in data["sensitive"]):
            continue
        if col in required:
            inferred[col] = pa.Column(nullable=False)
        elif col in data["categorical"] or col in data["sensitive"]:
            inferred[col] = pa.Column(nullable=True)
        else:
            inferred[col] = pa.Column("float64", nullable=True, coerce=True)
    schema = schema.add_columns(inferred) if inferred else schema
    finite = pa.Check(lambda s: ~np.isinf(s.astype(np.float64)), name="finite")  # inf / -inf
    for name, column in schema.columns.items():
        if name not in data["categorical"] and column.dtype is not None and _numeric(column.dtype):
            extreme = extreme_check(df[name], extreme_factor) if name in df.columns else None
            schema = schema.update_column(name, checks=[*column.checks, finite, *([extreme] if extreme else [])])
    return schema


def extreme_check(values: pd.Series, factor: float | None):
    """Values farther from the column's median than `factor` interquartile ranges (the mean absolute deviation when
    the IQR is 0): an overflow, a sentinel or a unit slip (int64 max, 1e308) rather than a measurement. Legitimate
    heavy tails of the corpus reach ~1,800 IQRs; such values wreck every scaler and score the model makes, so they
    stop validate naming the rows, or are quarantined (validate.on_invalid). None: off, or no spread to judge by."""
    if factor is None:
        return None
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size < 4:
        return None
    q1, median, q3 = np.percentile(x, [25, 50, 75])
    scale = (q3 - q1) or float(np.mean(np.abs(x - median)))
    if not scale > 0 or not np.isfinite(scale):
        return None
    low, high = median - factor * scale, median + factor * scale
    return pa.Check(
        lambda s: ~(s.astype(np.float64) < low) & ~(s.astype(np.float64) > high),
        name=f"extreme (beyond median +- {factor:g} IQR: [{low:.4g}, {high:.4g}])",
    )


def _numeric(dtype) -> bool:
    return str(dtype).lower().startswith(("float", "int", "uint"))


def binary_columns(schema: pa.DataFrameSchema) -> list[str]:
    """Columns the schema declares as 0/1 codes (an `isin` check allowing exactly {0, 1})."""
    return [
        name
        for name, column in schema.columns.items()
        if any(c.name == "isin" and sorted(c.statistics.get("allowed_values", [])) == [0, 1] for c in column.checks)
    ]


def failure_cases(df: pd.DataFrame, schema: pa.DataFrameSchema) -> tuple[pd.DataFrame | None, pd.DataFrame]:
    """(the validated frame, or None when a check fails; pandera's lazy failure table, empty when the frame is
    valid)."""
    try:
        return schema.validate(df, lazy=True), pd.DataFrame(columns=["column", "check", "failure_case", "index"])
    except pa.errors.SchemaErrors as exc:
        return None, exc.failure_cases


def is_column_level(cases: pd.DataFrame) -> pd.Series:
    """Failures that concern a whole column (missing column, wrong dtype), not individual rows."""
    check = cases["check"].astype(str)
    return cases["index"].isna() | check.str.startswith(("dtype(", "coerce_dtype(", "column_in_"))


def file_row(source: str, index: int) -> str:
    """Where row `index` (0-based, as read) sits in the user's data: the data row, and the line of a CSV; in a
    directory of parts, the part too (source: a DataSource)."""
    return (source if isinstance(source, DataSource) else DataSource.of(source)).row(index)


def describe(cases: pd.DataFrame, source: str, limit: int = 3) -> str:
    return "; ".join(
        f"column {r.column!r} {r.check} failed for value {to_python(r.failure_case)!r} "
        f"at {file_row(source, int(r.index))}"
        for r in cases.head(limit).itertuples()
    )


def column_problem(case, source: str, schema_file) -> str:
    schema_src = schema_file or "the checks inferred from params.yaml"
    if case["check"] == "column_in_dataframe":
        return (
            f"{source}: column {to_python(case['failure_case'])!r} required by {schema_src} is missing; "
            "add it or fix the schema"
        )
    at_row = (
        "" if pd.isna(case["index"]) else f" at {file_row(source, int(case['index']))}"
    )  # whole-column checks: no row
    return (
        f"{source}: column {case['column']!r}: {case['check']} failed "
        f"(e.g. value {to_python(case['failure_case'])!r}{at_row}). "
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
                reasons.setdefault(row, []).append(
                    f"{col}: fractional value {to_python(values[row])!r} in a 0/1 column"
                )
    return df, reasons, report


# what a missing value of a role's column is, and how to keep it instead (validate.missing_<role>)
MISSING = {
    "sensitive": ("missing sensitive value", f"group (audit them as the group {MISSING_GROUP!r}) or quarantine"),
    "target": ("missing target (an unlabelled row: nothing to train or score it on)", "quarantine"),
}


def apply_missing_policy(df: pd.DataFrame, columns: list[str], role: str, policy: str, source: str):
    """Rows whose `role` column (target, sensitive) is missing: quarantined with the reason per row, a stop naming
    the column and the first row, or (sensitive only, policy group) kept and audited as the group "(missing)".
    Returns (reasons, report {column: {rows, action}})."""
    what, instead = MISSING[role]
    reasons: dict[int, list[str]] = {}
    report = {}
    for col in columns:
        missing = df[col].isna()
        if not missing.any():
            continue
        report[col] = {"rows": int(missing.sum()), "action": policy}
        if policy == "fail":
            raise PipelineError(
                f"{source}: {role} column {col!r} has {int(missing.sum())} missing values (first at "
                f"{file_row(source, df.index[missing][0])}); set validate.missing_{role} to {instead}, or fill them in "
                "the file"
            )
        if policy == "quarantine":
            for row in df.index[missing]:
                reasons.setdefault(row, []).append(f"{col}: {what}")
    return reasons, report
