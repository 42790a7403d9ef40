"""DataFrame <-> numpy at the boundary between the pipeline (pandas) and mllib (numpy arrays).
Also imported by the MLflow pyfunc model, so it depends on numpy and pandas only."""
from __future__ import annotations

import numpy as np
import pandas as pd


def feature_columns(columns, data: dict, row_id: str = "_row_id") -> tuple[list[str], list[str]]:
    """(numeric, categorical) model inputs: every column but the row id, target and group, in file order."""
    excluded = {row_id, data["target"], data["group"]}
    inputs = [c for c in columns if c not in excluded]
    categorical = [c for c in inputs if c in data["categorical"]]
    numeric = [c for c in inputs if c not in data["categorical"]]
    return numeric, categorical


def category_labels(series: pd.Series) -> np.ndarray:
    """Categories as strings (integral floats without '.0'); missing stays None for the imputer."""
    values = series.to_numpy(dtype=object)
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            out[i] = None
        elif isinstance(v, (float, np.floating)) and float(v).is_integer():
            out[i] = str(int(v))
        else:
            out[i] = str(v)
    return out


def attribute_labels(df: pd.DataFrame, attributes: list[str]) -> dict[str, np.ndarray]:
    """{attribute: its category labels as strings, one per row}: the groups of each sensitive attribute."""
    return {a: category_labels(df[a]).astype(str) for a in attributes}


def raw_matrix(df: pd.DataFrame, numeric: list[str], categorical: list[str]) -> np.ndarray:
    """Object matrix: numeric columns as float (NaN = missing) first, then categorical columns as strings."""
    X = np.empty((len(df), len(numeric) + len(categorical)), dtype=object)
    if numeric:
        X[:, : len(numeric)] = df[numeric].to_numpy(dtype=np.float64, na_value=np.nan)
    for j, col in enumerate(categorical, start=len(numeric)):
        X[:, j] = category_labels(df[col])
    return X


def binary_target(series: pd.Series, positive_label) -> np.ndarray:
    """1 where the target equals the positive label (the larger of the two values when it is null)."""
    if positive_label is None:
        positive_label = max(series.unique().tolist())
    return (series.to_numpy() == positive_label).astype(np.int64)
