"""The clean stage's work (pipeline/stages/clean.py): deterministic row-wise fixes that need no fitting (seed 004,
D4:810-845), each recorded for the model card (pipeline/core/changes.py) with its count and, for removed rows, the
target's distribution before and after.

Duplicates (clean.drop_duplicate_rows): identical rows of one id (data.group) are one record entered twice; identical
rows of a file without an id may be different people who gave the same answers (a survey, a file of categories), and
removing them changes the question the model answers. So `auto` removes them only when data.group is set, and
otherwise counts them and keeps them.

Sections cited: Ghent ML notes (seed 004): 5.1 DP: Cleaning (810)"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mllib.base import to_python

from ..core import paths
from ..core.changes import change, removal
from ..core.errors import PipelineError
from ..core.frames import HASH_KEYS
from ..core.json_types import JSON
from ..core.records import CleaningReport, DuplicateRows
from ..core.task import Target

if TYPE_CHECKING:
    from .partitioned_cleaning import TableFacts

Ranges = dict[str, list[float | None]]  # {column: [low, high]}, null for an open end (params.Range)


def _check_numeric(df: pd.DataFrame, columns: Iterable[str], key: str) -> None:
    for col in columns:
        if col not in df.columns:
            raise PipelineError(f"params.yaml: {key} names column {col!r}, which is not in the validated data")
        if not pd.api.types.is_numeric_dtype(df[col]):
            raise PipelineError(f"params.yaml: {key}.{col}: column {col!r} is not numeric, so it has no range")


def _outside(values: pd.Series, low: float | None, high: float | None) -> pd.Series:
    """Below low or above high; a null bound is an open end (both null: nothing is outside), NaN is never outside."""
    outside = pd.Series(False, index=values.index)
    if low is not None:
        outside |= values < low
    if high is not None:
        outside |= values > high
    return outside


def duplicate_rows(
    df: pd.DataFrame, setting: bool | str, group: str | None, facts: TableFacts | None = None
) -> tuple[pd.Series, str]:
    """(rows repeating an earlier row in every column, whether they are removed: "removed" | "kept") under
    clean.drop_duplicate_rows (auto: removed only when the rows carry an id, data.group, that makes them one
    record). facts: the rows of a partitioned table repeating an earlier row of any part (facts.duplicate_ids)."""
    if facts is None:
        duplicated = df.drop(columns=[paths.ROW_ID]).duplicated(keep="first")
    else:
        duplicated = df[paths.ROW_ID].isin(facts.duplicate_ids)
    remove = setting is True or (setting == "auto" and group is not None)
    return duplicated, "removed" if remove else "kept"


def make_impossible_missing(df: pd.DataFrame, ranges: Ranges) -> dict[str, int]:
    _check_numeric(df, ranges, "clean.valid_ranges")
    report = {}
    for col, (low, high) in ranges.items():
        outside = _outside(df[col], low, high)
        report[col] = int(outside.sum())
        df.loc[outside, col] = float("nan")
    return report


def handle_outliers(df: pd.DataFrame, policy: str, bounds: Ranges) -> tuple[pd.DataFrame, dict[str, int]]:
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


def column_fingerprints(df: pd.DataFrame) -> dict[str, bytes]:
    """{column: a digest of its dtype and values in row order} for every column but the row id: two independent
    64-bit hashes per value (NaN equal to NaN, -0.0 to 0.0, as Series.equals reads them), so two columns share a
    digest when they are equal, and two different columns with a probability below 10^-30. Linear in the cells."""
    out = {}
    for col in df.columns:
        if col == paths.ROW_ID:
            continue
        values = df[col] + 0.0 if pd.api.types.is_float_dtype(df[col]) else df[col]
        digest = hashlib.blake2b(str(values.dtype).encode(), digest_size=32)
        for key in HASH_KEYS:
            digest.update(pd.util.hash_pandas_object(values, index=False, hash_key=key).to_numpy().tobytes())
        out[col] = digest.digest()
    return out


def duplicate_columns(fingerprints: dict[str, bytes], protected: set[str]) -> dict[str, str]:
    """Columns equal to an earlier column -> the first column (in the file's order) they equal, from their
    fingerprints in column order (column_fingerprints; a partitioned table's: every part's digests joined). One pass:
    linear in the columns."""
    first: dict[bytes, str] = {}
    repeats = {}
    for col, fingerprint in fingerprints.items():
        if fingerprint in first and col not in protected:
            repeats[col] = first[fingerprint]
        else:
            first.setdefault(fingerprint, col)
    return repeats


def protected_columns(data: JSON, target: Target) -> set[str]:
    """Columns never removed as a copy of another: the target, the group, the audited and the categorical ones."""
    return {target.column, data["group"], *data["sensitive"], *data["categorical"]}


def fixed_values(df: pd.DataFrame, data: JSON, cfg: JSON) -> tuple[pd.DataFrame, list[str], dict[str, int]]:
    """data.drop's columns out (sensitive ones stay for the audit) and values outside clean.valid_ranges made
    missing: (the frame, the dropped columns, {column: values made missing})."""
    dropped = [c for c in data["drop"] if c not in data["sensitive"]]
    df = df.drop(columns=dropped)
    return df, dropped, make_impossible_missing(df, cfg["valid_ranges"])


@dataclass
class Cleaned:
    """What clean did to some rows (all of them, or one part), kept so that parts merge into the whole's report:
    the target around each row removal comes along (the report shows its distribution before and after)."""

    rows_in: int
    dropped: list[str]
    made_missing: dict[str, int]
    duplicated: pd.Series  # the target of the rows after fixed_values
    is_duplicate: np.ndarray  # of those rows, the ones repeating an earlier row
    duplicate_ids: list[int]  # their row ids
    duplicate_action: str
    repeats: dict[str, str] | None  # None: clean.drop_duplicate_columns is off
    outlier_counts: dict[str, int]
    before_outliers: pd.Series  # the target of the rows the outlier policy saw
    outlier_removed: np.ndarray
    rows_out: int
    columns_out: int  # besides the row id
    missing_values: dict[str, int]
    levels: dict[str, list[object]]  # up to two distinct values of each column (a single-valued column carries nothing)

    @classmethod
    def merge(cls, parts: list[Cleaned]) -> Cleaned:
        def total(dicts: Iterable[dict[str, int]]) -> dict[str, int]:
            out: dict[str, int] = {}
            for d in dicts:
                for key, n in d.items():
                    out[key] = out.get(key, 0) + n
            return out

        first = parts[0]
        return cls(
            rows_in=sum(p.rows_in for p in parts),
            dropped=first.dropped,
            made_missing=total(p.made_missing for p in parts),
            duplicated=pd.concat([p.duplicated for p in parts]),
            is_duplicate=np.concatenate([p.is_duplicate for p in parts]),
            duplicate_ids=[i for p in parts for i in p.duplicate_ids],
            duplicate_action=first.duplicate_action,
            repeats=first.repeats,
            outlier_counts=total(p.outlier_counts for p in parts),
            before_outliers=pd.concat([p.before_outliers for p in parts]),
            outlier_removed=np.concatenate([p.outlier_removed for p in parts]),
            rows_out=sum(p.rows_out for p in parts),
            columns_out=first.columns_out,
            missing_values=total(p.missing_values for p in parts),
            levels={c: distinct([v for p in parts for v in p.levels[c]]) for c in first.levels},
        )


def clean(
    df: pd.DataFrame, data: JSON, cfg: JSON, target: Target, facts: TableFacts | None = None
) -> tuple[pd.DataFrame, Cleaned]:
    """The cleaned rows and what was done (cleaning_report makes reports/cleaning.json of it): data.drop's columns
    out (sensitive ones stay for the audit), values outside clean.valid_ranges made missing, duplicate rows and
    columns, the outlier policy. facts: what needs every row when df is one part of a partitioned table
    (pipeline/steps/partitioned_cleaning.py): the rows repeating an earlier row of the table, the columns repeating
    an earlier column."""
    rows_in = len(df)
    df, dropped, made_missing = fixed_values(df, data, cfg)
    duplicated, action = duplicate_rows(df, cfg["drop_duplicate_rows"], data["group"], facts)
    # copies: a column taken from a frame holds all of its block (every column of its type) while it lives
    target_values, is_duplicate = df[target.column].copy(), duplicated.to_numpy(dtype=bool)
    duplicate_ids = df.loc[duplicated, paths.ROW_ID].tolist()
    if action == "removed":
        df = df.loc[~duplicated]
    repeats: dict[str, str] | None = None
    if cfg["drop_duplicate_columns"]:
        protected = protected_columns(data, target)
        repeats = facts.repeats if facts else duplicate_columns(column_fingerprints(df), protected)
        df = df.drop(columns=list(repeats))
    before = df[target.column].copy()
    df, outlier_counts = handle_outliers(df, cfg["outliers"]["policy"], cfg["outliers"]["bounds"])
    removed = ~before.index.isin(df.index)
    missing = {c: int(n) for c, n in df.isna().sum().items() if n}
    kept = [c for c in df.columns if c not in (paths.ROW_ID, target.column, data["group"])]
    levels = {c: distinct(df[c].dropna().unique()[:2].tolist()) for c in kept}
    done = Cleaned(
        rows_in,
        dropped,
        made_missing,
        target_values,
        is_duplicate,
        duplicate_ids,
        action,
        repeats,
        outlier_counts,
        before,
        removed,
        len(df),
        df.shape[1] - 1,
        missing,
        levels,
    )
    return df, done


def distinct(values: list[object]) -> list[object]:
    """The first two distinct values of `values`, in order (a column's levels as far as single-valued goes)."""
    out = []
    for v in values:
        v = to_python(v)
        if v not in out:
            out.append(v)
    return out[:2]


def cleaning_report(done: Cleaned, data: JSON, cfg: JSON, target: Target) -> CleaningReport:
    """reports/cleaning.json: every change with its count (pipeline/core/changes.py)."""
    changes = [change("clean", "columns dropped (data.drop)", columns=done.dropped)] if done.dropped else []
    changes += [
        change("clean", f"values of {col} outside clean.valid_ranges made missing", values=n, columns=[col])
        for col, n in done.made_missing.items()
        if n
    ]
    duplicated, action = done.is_duplicate, done.duplicate_action
    if action == "removed" and duplicated.any():
        of = f"identical rows of one {data['group']}" if data["group"] else "clean.drop_duplicate_rows: true"
        changes.append(removal("clean", f"duplicate rows removed ({of})", done.duplicated, duplicated, target))
    if done.repeats is not None:
        changes += [
            change("clean", f"column {c} removed: a copy of {of}", columns=[c]) for c, of in done.repeats.items()
        ]
    policy = cfg["outliers"]["policy"]
    counts = {col: n for col, n in done.outlier_counts.items() if n}
    if counts and policy == "remove":
        what = "outlier rows removed (" + ", ".join(f"{c}: {n}" for c, n in counts.items()) + ")"
        changes.append(removal("clean", what, done.before_outliers, done.outlier_removed, target))
    elif counts and policy in ("clip", "flag"):
        verb = "clipped to clean.outliers.bounds" if policy == "clip" else "flagged in a <column>_outlier column"
        changes += [change("clean", f"outliers of {c} {verb}", values=n, columns=[c]) for c, n in counts.items()]
    return CleaningReport(
        rows_in=done.rows_in,
        rows_out=done.rows_out,
        dropped_columns=done.dropped,
        made_missing=done.made_missing,
        duplicate_rows=DuplicateRows(int(duplicated.sum()), action, cfg["drop_duplicate_rows"]),
        duplicate_rows_removed=done.duplicate_ids if action == "removed" else None,
        duplicate_columns_removed=done.repeats,
        outliers=done.outlier_counts,
        outlier_policy=policy,
        changes=changes,
        missing_values=done.missing_values,
        # kept as they are (no column changes without a record), named so the card can say they carry nothing
        single_valued={c: (v[0] if v else None) for c, v in done.levels.items() if len(v) < 2},
    )
