"""Stage 2, clean: deterministic row-wise fixes that need no fitting (seed 004, D4:810-845): declared leakage
columns dropped, impossible values made missing, exact duplicates removed, outliers flagged / clipped /
removed at thresholds fixed in params.yaml (never learned from the data, so the test rows cannot leak in).

Sections cited: Ghent ML notes (seed 004): 5.1 DP: Cleaning (810)"""

from __future__ import annotations

import pandas as pd

from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.io import read_parquet, write_json, write_parquet


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


def main() -> None:
    params = load_params()
    data, cfg = params["data"], params["clean"]
    df = read_parquet(paths.VALIDATED, "validate")
    rows_in = len(df)
    report = {"rows_in": rows_in, "dropped_columns": list(data["drop"])}

    df = df.drop(columns=data["drop"])
    report["made_missing"] = make_impossible_missing(df, cfg["valid_ranges"])
    if cfg["drop_duplicate_rows"]:
        duplicated = df.drop(columns=[paths.ROW_ID]).duplicated(keep="first")
        report["duplicate_rows_removed"] = df.loc[duplicated, paths.ROW_ID].tolist()
        df = df.loc[~duplicated]
    if cfg["drop_duplicate_columns"]:
        protected = {data["target"], data["group"], *data["sensitive"], *data["categorical"]}
        repeats = duplicate_columns(df, protected)
        report["duplicate_columns_removed"] = repeats
        df = df.drop(columns=list(repeats))
    df, report["outliers"] = handle_outliers(df, cfg["outliers"]["policy"], cfg["outliers"]["bounds"])
    report["outlier_policy"] = cfg["outliers"]["policy"]
    report["rows_out"] = len(df)
    report["missing_values"] = {c: int(n) for c, n in df.isna().sum().items() if n}

    write_parquet(df.reset_index(drop=True), paths.CLEAN)
    write_json(report, paths.CLEANING_REPORT)
    print(
        f"clean: {report['rows_out']} rows, {df.shape[1] - 1} columns; removed duplicate columns "
        f"{list(report.get('duplicate_columns_removed', {}))}"
    )


if __name__ == "__main__":
    run_stage(main)
