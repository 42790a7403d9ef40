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

from .data_files import DataSource
from .errors import PipelineError
from .extremes import MACHINE_LIMITS, OVERFLOW, typical_magnitude
from .frames import MISSING_GROUP
from .json_types import JSON
from .paths import ROW_ID

NUL = "\x00"


def check_columns(df: pd.DataFrame, data: JSON) -> None:
    """Every column named in params.yaml `data` exists in the file (one error naming the key and the column)."""
    if ROW_ID in df.columns:
        raise PipelineError(
            f"data file {data['path']} has a column named {ROW_ID!r}, which the pipeline reserves; rename it"
        )
    named = [("data.target", data["target"]), ("data.group", data["group"]), ("data.time", data["time"])]
    named += [(f"data.{role}", col) for role in ("sensitive", "categorical", "drop") for col in data[role]]
    for key, col in named:
        if col is not None and col not in df.columns:
            close = difflib.get_close_matches(col, list(map(str, df.columns)), n=3)
            hint = f" Did you mean {close}?" if close else f" Columns are: {list(df.columns)}"
            raise PipelineError(f"params.yaml: {key} names column {col!r}, which is not in {data['path']}.{hint}")


def check_no_nul_bytes(df: pd.DataFrame, source: str) -> None:
    """No text value holds a NUL byte: no text does, a damaged file or a binary field does, and each such spelling
    would become a level of its own ('a' and 'a\\x00' two categories). One error naming the column, the count and the
    first row."""
    for column in df.columns:
        values = df[column]
        if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
            continue
        try:
            spoilt = values.str.contains(NUL, regex=False, na=False).to_numpy(dtype=bool)
        except AttributeError:  # an object column without text (numbers, booleans from a Parquet file)
            spoilt = values.map(lambda v: isinstance(v, str) and NUL in v).to_numpy(dtype=bool)
        if spoilt.any():
            row = df.index[spoilt][0]
            raise PipelineError(
                f"{source}: column {column!r} holds a NUL byte (\\x00) in {int(spoilt.sum())} values (the first "
                f"{values[row]!r} at {file_row(source, row)}); text holds none (a damaged file or a binary field), "
                "and each spelling would become a level of its own: remove the bytes (e.g. `tr -d '\\000' < file.csv "
                "> fixed.csv`) and point data.path at the result"
            )


SCHEMAS = Path("data/schemas")  # the validate stage's dependency (dvc.yaml): a schema elsewhere would go unwatched


def check_schema_location(data: JSON) -> None:
    """data.schema is a file under data/schemas/, so DVC reruns validate when the schema changes and not when another
    file lands in data/raw/ (bringing your own data, then restoring the committed params, leaves `dvc status`
    clean)."""
    schema = data["schema"]
    if schema and not Path(schema).resolve().is_relative_to(SCHEMAS.resolve()):
        raise PipelineError(
            f"params.yaml: data.schema {schema} is outside {SCHEMAS}/, the directory the validate stage depends on "
            f"(dvc.yaml), so a change to it would not rerun validate; move it to {SCHEMAS}/ and point data.schema "
            "there"
        )


def build_schema(df: pd.DataFrame, data: JSON, extreme_factor: float | None = None) -> pa.DataFrameSchema:
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
    required = {data["target"], *(data[key] for key in ("group", "time") if data[key])}
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
    checks = {
        name: {
            "checks": [
                *column.checks,
                finite,
                *(extreme_checks(df[name], extreme_factor) if name in df.columns else []),
            ]
        }  # fmt: skip
        for name, column in ((name, schema.columns[name]) for name in extreme_checked(schema, data))
    }
    # one update of every column: updating them one by one copies the whole schema each time (quadratic in columns)
    return schema.update_columns(checks) if checks else schema


def extreme_checks(values: pd.Series, factor: float | None) -> list[pa.Check]:
    """The checks of one numeric column for values that are not measurements, each named by the rule that catches
    it (validate.extreme_factor; None: none):
    - a machine limit: int32 / int64 / uint32 / uint64 max or min, float32 max, or |value| >= 1e100 (an overflow);
    - beyond `factor` times the column's typical magnitude (the median of its non-zero |values|): a unit slip or a
      sentinel orders of magnitude away. Scale-free and indifferent to how many values are zero, so a 0/1 or count
      column with rare non-zeros has nothing to flag, and heavy tails stay far inside it (a Pareto(1.1) column's
      largest of 10^7 values is ~10^6.5 times its median);
    - a sentinel spelled with nines (999, -9999, ..., 999999999): a value whose digits are all 9 that lies outside
      the range of the column's other values by more than their span (income -999999999 beside values 0..10^6),
      unless it is the column's top code (top_code: kept, and validate says so).
    Each such value stops validate naming the rows, or is quarantined (validate.on_invalid)."""
    if factor is None:
        return []
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
    x = x[np.isfinite(x)]
    checks = [
        pa.Check(
            lambda s: ~s.astype(np.float64).isin(MACHINE_LIMITS) & ~(s.astype(np.float64).abs() >= OVERFLOW),
            name="extreme (a machine limit: int32 / int64 / uint32 / uint64 max or min, float32 max, or |value| >= "
            "1e100)",
        )
    ]
    typical = typical_magnitude(x)
    if typical is not None:
        bound = factor * typical
        checks.append(
            pa.Check(
                lambda s: ~(s.astype(np.float64).abs() > bound),
                name=f"extreme (|value| beyond {factor:g} x the column's typical magnitude {typical:.4g}: > "
                f"{bound:.4g})",
            )
        )
    sentinels = np.array([v for v in nines_apart(x) if not top_code(x, v)])
    if sentinels.size:
        checks.append(
            pa.Check(
                lambda s: ~s.astype(np.float64).isin(sentinels),  # a Series: pandera reads the rows from it
                name=f"extreme (a sentinel spelled with nines, {', '.join(f'{v:.0f}' for v in sentinels)}, outside the "
                "range of the column's other values by more than their span)",
            )
        )
    return checks


def nines_apart(x: np.ndarray) -> np.ndarray:
    """The distinct values of x whose digits are all 9 (at least three: 999, -99999, ...) that lie outside the range
    of the other values by more than that range's span."""
    distinct = np.unique(x)
    magnitude = np.abs(distinct)
    candidate = (magnitude >= 999) & (magnitude < 1e18)  # three to eighteen nines
    digits = np.floor(np.log10(np.where(candidate, magnitude, 1.0))) + 1
    nines: np.ndarray = distinct[candidate & (magnitude == 10.0**digits - 1)]
    if not nines.size:
        return nines
    rest: np.ndarray = distinct[~np.isin(distinct, nines)]
    if not rest.size:
        return rest
    low, high = rest.min(), rest.max()
    span = high - low
    apart: np.ndarray = nines[(nines > high + span) | (nines < low - span)]
    return apart


def top_code(x: np.ndarray, value: float) -> bool:
    """Whether `value`, a value of nines apart from the column's others (nines_apart), is the column's top code (its
    largest values recorded as one value, "this much or more") rather than a code for a missing value: it is above
    every other value, held by at least two rows, and has as many digits as the largest other value, so it fills the
    column's field width (UCI Adult's capital_gain: 99999 for 244 rows whose other gains reach 41310). A missing-value
    code adds digits no recorded value has (999 beside ages up to 90) or lies below the values (-999): a sentinel.
    Quarantining a top code would remove the column's highest rows, and bias the target with them."""
    rest = x[x != value]
    if value <= 0 or not rest.size or np.count_nonzero(x == value) < 2:
        return False
    largest = float(rest.max())
    return 1 <= largest < value and _digits(largest) == _digits(value)


def _digits(value: float) -> int:
    return int(np.floor(np.log10(value))) + 1


def extreme_checked(schema: pa.DataFrameSchema, data: JSON) -> list[str]:
    """The columns build_schema gives the extreme checks: the schema's numeric columns, not declared categorical."""
    return [
        name
        for name, column in schema.columns.items()
        if name not in data["categorical"] and column.dtype is not None and _numeric(column.dtype)
    ]


def top_codes(df: pd.DataFrame, schema: pa.DataFrameSchema, data: JSON, factor: float | None) -> dict[str, JSON]:
    """The extreme-checked columns whose value of nines apart from the rest is kept as a top code (top_code), with
    validate.extreme_factor set: {column: {"value", "largest_other", "lowest", "rows" (positions)}}."""
    if factor is None:
        return {}
    found: dict[str, JSON] = {}
    for name in extreme_checked(schema, data):
        if name not in df.columns:
            continue
        values = pd.to_numeric(df[name], errors="coerce").to_numpy(dtype=np.float64)
        x = values[np.isfinite(values)]
        for value in (v for v in nines_apart(x) if top_code(x, v)):
            rest = x[x != value]
            found[name] = {
                "value": float(value),
                "largest_other": float(rest.max()),
                "lowest": float(rest.min()),
                "rows": np.flatnonzero(values == value),
            }
    return found


def _numeric(dtype: object) -> bool:
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


def column_problem(case: pd.Series, source: str, schema_file: str | None) -> str:
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
        f"Fix the data or {schema_src}; a text column belongs in data.categorical or data.drop (dates in data.time)"
    )


def apply_fractional_policy(
    df: pd.DataFrame, columns: list[str], policy: str, source: str
) -> tuple[pd.DataFrame, dict[int, list[str]], dict[str, JSON]]:
    """Handle values strictly between 0 and 1 in declared 0/1 columns; return (frame, reasons, report)."""
    reasons: dict[int, list[str]] = {}
    report: dict[str, JSON] = {}
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


def apply_missing_policy(
    df: pd.DataFrame, columns: list[str], role: str, policy: str, source: str
) -> tuple[dict[int, list[str]], dict[str, JSON]]:
    """Rows whose `role` column (target, sensitive) is missing: quarantined with the reason per row, a stop naming
    the column and the first row, or (sensitive only, policy group) kept and audited as the group "(missing)".
    Returns (reasons, report {column: {rows, action}})."""
    what, instead = MISSING[role]
    reasons: dict[int, list[str]] = {}
    report: dict[str, JSON] = {}
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
