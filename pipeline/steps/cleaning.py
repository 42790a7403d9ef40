"""The clean stage's work (pipeline/stages/clean.py): deterministic row-wise fixes that need no fitting (seed 004,
D4:810-845), each recorded for the model card (pipeline/core/changes.py) with its count and, for removed rows, the
target's distribution before and after.

Duplicates (clean.drop_duplicate_rows): identical rows of one id (data.group) are one record entered twice; identical
rows of a file without an id may be different people who gave the same answers (a survey, a file of categories), and
removing them changes the question the model answers. So `auto` removes them only when data.group is set, and
otherwise counts them and keeps them.

Sections cited: Ghent ML notes (seed 004): 5.1 DP: Cleaning (810)"""

from __future__ import annotations

import pandas as pd

from ..core import paths
from ..core.changes import change, removal
from ..core.errors import PipelineError
from ..core.task import Target


def _check_numeric(df: pd.DataFrame, columns, key: str) -> None:
    for col in columns:
        if col not in df.columns:
            raise PipelineError(f"params.yaml: {key} names column {col!r}, which is not in the validated data")
        if not pd.api.types.is_numeric_dtype(df[col]):
            raise PipelineError(f"params.yaml: {key}.{col}: column {col!r} is not numeric, so it has no range")


def _outside(values: pd.Series, low, high) -> pd.Series:
    """Below low or above high; a null bound is an open end (both null: nothing is outside), NaN is never outside."""
    outside = pd.Series(False, index=values.index)
    if low is not None:
        outside |= values < low
    if high is not None:
        outside |= values > high
    return outside


def duplicate_rows(df: pd.DataFrame, setting, group: str | None) -> tuple[pd.Series, str]:
    """(rows repeating an earlier row in every column, whether they are removed: "removed" | "kept") under
    clean.drop_duplicate_rows (auto: removed only when the rows carry an id, data.group, that makes them one
    record)."""
    duplicated = df.drop(columns=[paths.ROW_ID]).duplicated(keep="first")
    remove = setting is True or (setting == "auto" and group is not None)
    return duplicated, "removed" if remove else "kept"


def make_impossible_missing(df: pd.DataFrame, ranges: dict) -> dict:
    _check_numeric(df, ranges, "clean.valid_ranges")
    report = {}
    for col, (low, high) in ranges.items():
        outside = _outside(df[col], low, high)
        report[col] = int(outside.sum())
        df.loc[outside, col] = float("nan")
    return report


def handle_outliers(df: pd.DataFrame, policy: str, bounds: dict) -> tuple[pd.DataFrame, dict]:
    _check_numeric(df, bounds, "clean.outliers.bounds")
    report = {}
    remove = pd.Series(False, index=df.index)
    for col, (low, high) in bounds.items():
        is_outlier = _outside(df[col], low, high)
        report[col] = int(is_outlier.sum())
        if policy == "flag":
            df[f"{col}_outlier"] = is_outlier.astype(float)
        elif policy == "clip":
            df[col] = df[col].clip(lower=low, upper=high)
        elif policy == "remove":
            remove |= is_outlier
    return df.loc[~remove], report


def duplicate_columns(df: pd.DataFrame, protected: set[str]) -> dict[str, str]:
    """Columns equal to an earlier column (NaN equal to NaN) -> the column they repeat."""
    repeats = {}
    columns = [c for c in df.columns if c != paths.ROW_ID]
    for i, col in enumerate(columns):
        if col in protected:
            continue
        for earlier in columns[:i]:
            if earlier not in repeats and df[col].equals(df[earlier]):
                repeats[col] = earlier
                break
    return repeats


def clean(df: pd.DataFrame, data: dict, cfg: dict, target: Target) -> tuple[pd.DataFrame, dict]:
    """The cleaned rows and reports/cleaning.json: data.drop's columns out (sensitive ones stay for the audit),
    values outside clean.valid_ranges made missing, duplicate rows and columns, the outlier policy."""
    dropped = [c for c in data["drop"] if c not in data["sensitive"]]
    report = {"rows_in": len(df), "dropped_columns": dropped}
    changes = [change("clean", "columns dropped (data.drop)", columns=dropped)] if dropped else []
    df = df.drop(columns=dropped)
    report["made_missing"] = make_impossible_missing(df, cfg["valid_ranges"])
    changes += [
        change("clean", f"values of {col} outside clean.valid_ranges made missing", values=n, columns=[col])
        for col, n in report["made_missing"].items()
        if n
    ]
    duplicated, action = duplicate_rows(df, cfg["drop_duplicate_rows"], data["group"])
    report["duplicate_rows"] = {"rows": int(duplicated.sum()), "action": action, "setting": cfg["drop_duplicate_rows"]}
    if action == "removed":
        report["duplicate_rows_removed"] = df.loc[duplicated, paths.ROW_ID].tolist()
        if duplicated.any():
            of = f"identical rows of one {data['group']}" if data["group"] else "clean.drop_duplicate_rows: true"
            changes.append(removal("clean", f"duplicate rows removed ({of})", df[target.column], duplicated, target))
        df = df.loc[~duplicated]
    if cfg["drop_duplicate_columns"]:
        repeats = duplicate_columns(df, {target.column, data["group"], *data["sensitive"], *data["categorical"]})
        report["duplicate_columns_removed"] = repeats
        df = df.drop(columns=list(repeats))
        changes += [change("clean", f"column {c} removed: a copy of {of}", columns=[c]) for c, of in repeats.items()]
    policy, before = cfg["outliers"]["policy"], df[target.column]
    df, report["outliers"] = handle_outliers(df, policy, cfg["outliers"]["bounds"])
    counts = {col: n for col, n in report["outliers"].items() if n}
    if counts and policy == "remove":
        what = "outlier rows removed (" + ", ".join(f"{c}: {n}" for c, n in counts.items()) + ")"
        changes.append(removal("clean", what, before, ~before.index.isin(df.index), target))
    elif counts and policy in ("clip", "flag"):
        verb = "clipped to clean.outliers.bounds" if policy == "clip" else "flagged in a <column>_outlier column"
        changes += [change("clean", f"outliers of {c} {verb}", values=n, columns=[c]) for c, n in counts.items()]
    report.update(outlier_policy=policy, rows_out=len(df), changes=changes)
    report["missing_values"] = {c: int(n) for c, n in df.isna().sum().items() if n}
    return df, report
