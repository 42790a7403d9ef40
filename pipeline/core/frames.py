"""DataFrame <-> numpy at the boundary between the pipeline (pandas) and mllib (numpy arrays).
Also imported by the MLflow pyfunc model, so it depends on numpy, pandas and mllib.base only."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mllib.base import GroupLabels, MixedMatrix

if TYPE_CHECKING:
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

    from .json_types import JSON


def feature_columns(columns: Iterable[str], data: JSON, row_id: str = "_row_id") -> tuple[list[str], list[str]]:
    """(numeric, categorical) model inputs: every column but the row id, target, group, time and data.drop (a
    sensitive attribute listed there stays in the data for the audit, never as a feature), in file order; with
    data.time_feature the time column is the last numeric input (time_input says which and how)."""
    time = time_input(data)
    excluded = {row_id, data["target"], data["group"], data.get("time"), *data["drop"]}
    inputs = [c for c in columns if c not in excluded]
    categorical = [c for c in inputs if c in data["categorical"]]
    numeric = [c for c in inputs if c not in data["categorical"]] + ([time[0]] if time else [])
    return numeric, categorical


def time_input(data: JSON) -> tuple[str, str] | None:
    """(data.time, data.time_feature) when the time is a model feature, else None."""
    kind = data.get("time_feature", "none")
    return (data["time"], kind) if data.get("time") and kind != "none" else None


def date_times(values: pd.Series) -> pd.Series:
    """Text as datetimes (NaT where a value is not a date); numbers are never read as dates here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas warns when it falls back to parsing value by value
        return pd.to_datetime(values.astype("string"), errors="coerce", format="mixed", utc=True)


def time_numbers(values: pd.Series) -> tuple[np.ndarray, str]:
    """(each value's time as float64, its unit): dates and date strings as days since 1970-01-01, numbers as they
    are; NaN where a value is missing or not a time."""
    if pd.api.types.is_datetime64_any_dtype(values):
        stamps, unit = pd.to_datetime(values, utc=True), "days"
    elif pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=np.float64, na_value=np.nan), "as in the file"
    else:
        stamps, unit = date_times(values), "days"
    days = (stamps.dt.tz_localize(None) - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)
    return days.to_numpy(dtype=np.float64, na_value=np.nan), unit


def _spelled(distinct: np.ndarray | pd.Index) -> np.ndarray:
    """Each distinct value of a column as its category string (integral floats without '.0'); missing -> None."""
    spelled = np.empty(len(distinct), dtype=object)
    for i, v in enumerate(distinct.tolist()):
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            continue
        spelled[i] = str(int(v)) if isinstance(v, (float, np.floating)) and float(v).is_integer() else str(v)
    return spelled


def category_labels(series: pd.Series) -> np.ndarray:
    """Categories as strings (integral floats without '.0'); missing stays None for the imputer."""
    codes, distinct = pd.factorize(series)  # each distinct value spelled once, not per row; missing -> -1
    missing = np.array([None], dtype=object)  # the last entry: what code -1 picks
    labels: np.ndarray = np.append(_spelled(distinct), missing)[codes]
    return labels


MISSING_GROUP = "(missing)"


def attribute_labels(
    df: pd.DataFrame, attributes: list[str], rows: Iterable[object] | None = None
) -> dict[str, GroupLabels]:
    """{attribute: its category labels as strings, one per row, held as codes}: the groups of each sensitive
    attribute; a missing value is the group "(missing)" (validate.missing_sensitive: group), audited like any
    other. rows: the row ids (column _row_id) of the rows to label, in that order (default: every row of df)."""
    at = None if rows is None else positions_of(df, rows)
    labels = {}
    for a in attributes:
        codes, distinct = pd.factorize(df[a])
        spelled = np.append(_spelled(distinct), MISSING_GROUP)
        spelled[pd.isna(spelled)] = MISSING_GROUP
        values, merged = np.unique(spelled.astype(str), return_inverse=True)  # 1 and 1.0 spell one group
        labels[a] = GroupLabels(values, merged[codes] if at is None else merged[codes[at]])
    return labels


def positions_of(df: pd.DataFrame, rows: Iterable[object], row_id: str = "_row_id") -> np.ndarray:
    """The positions in df of the rows whose row ids are `rows` (a lookup, not a merge of the tables)."""
    at: np.ndarray = pd.Index(df[row_id]).get_indexer(rows)
    if (at < 0).any():
        raise ValueError(f"{int((at < 0).sum())} of the {len(at)} row ids asked for are not in the table")
    return at


def numbers_or_days(values: pd.Series) -> tuple[np.ndarray, str]:
    """A numeric input as float64 with its unit: numbers as they are ("as in the file"; also numbers held as objects
    or text), dates and date text as days since 1970-01-01 ("days"); NaN where a value is missing or unreadable. How
    raw_matrix, the served contract and the time feature's unit read data.time as a feature."""
    if not pd.api.types.is_datetime64_any_dtype(values):
        try:
            return values.to_numpy(dtype=np.float64, na_value=np.nan), "as in the file"
        except (TypeError, ValueError):
            pass
    return time_numbers(values)


def raw_matrix(df: pd.DataFrame, numeric: list[str], categorical: list[str]) -> MixedMatrix:
    """The model inputs of the rows: numeric columns as float64 (NaN = missing) first, then categorical columns as
    strings (None = missing), as one mllib MixedMatrix (no number boxed in a Python object). A numeric input that
    holds dates (data.time as a feature) is its days since 1970-01-01 (numbers_or_days)."""
    X_numeric = np.empty((len(df), len(numeric)))
    other = [j for j, c in enumerate(numeric) if not pd.api.types.is_numeric_dtype(df[c])]
    if len(other) < len(numeric):
        plain = [j for j in range(len(numeric)) if j not in other]
        X_numeric[:, plain] = df[[numeric[j] for j in plain]].to_numpy(dtype=np.float64, na_value=np.nan)
    for j in other:  # numbers held as objects, or dates
        X_numeric[:, j] = numbers_or_days(df[numeric[j]])[0]
    labels = np.empty((len(df), len(categorical)), dtype=object)
    for j, col in enumerate(categorical):
        labels[:, j] = category_labels(df[col])
    return MixedMatrix(X_numeric, labels)


def score_columns(scores: np.ndarray) -> dict[str, np.ndarray]:
    """Model scores as frame columns: `score` for binary (n,) scores, `score_0` .. `score_{K-1}` for (n, K)."""
    if scores.ndim == 1:
        return {"score": scores}
    return {f"score_{k}": scores[:, k] for k in range(scores.shape[1])}


def read_scores(frame: pd.DataFrame) -> np.ndarray:
    """The scores written by score_columns, back as (n,) or (n, K)."""
    if "score" in frame.columns:
        scores: np.ndarray = frame["score"].to_numpy()
        return scores
    k = sum(c.startswith("score_") for c in frame.columns)
    columns: np.ndarray = frame[[f"score_{j}" for j in range(k)]].to_numpy()
    return columns


def proba_columns(P: np.ndarray) -> dict[str, np.ndarray]:
    """Class probabilities (n, K) as `proba_0` .. `proba_{K-1}` (code order, pipeline/core/task.py)."""
    return {f"proba_{k}": P[:, k] for k in range(P.shape[1])}


def read_proba(frame: pd.DataFrame) -> np.ndarray:
    k = sum(c.startswith("proba_") for c in frame.columns)
    P: np.ndarray = frame[[f"proba_{j}" for j in range(k)]].to_numpy()
    return P


def served_predictions(
    predictor: DeployedPredictor | DeployedRegressor, frame: pd.DataFrame, numeric: list[str], categorical: list[str]
) -> pd.DataFrame:
    """What the served model returns for raw rows: `probability_<class>` per class, the decided class `prediction`,
    `accepted` (the reject option lets the decision be made) and `prediction_set` (the class labels of the conformal
    set, which holds the true class with probability calibration.set_coverage); for a regressor the `prediction`
    and its conformal interval `lower`, `upper` (calibration.interval_coverage). A missing feature column is named."""
    missing = [c for c in numeric + categorical if c not in frame.columns]
    if missing:
        raise ValueError(f"input is missing feature columns {missing}")
    X = raw_matrix(frame, numeric, categorical)
    if hasattr(predictor, "predict_interval"):
        prediction = predictor.predict(X)
        lower, upper = predictor.predict_interval(X)
        return pd.DataFrame({"prediction": prediction, "lower": lower, "upper": upper})
    P = predictor.predict_proba(X)
    decided = predictor.decide(P)
    out: dict[str, object] = {f"probability_{c}": P[:, k] for k, c in enumerate(predictor.classes)}
    labels = pd.Series(predictor.labels(decided["decision"])).infer_objects()
    out |= {"prediction": labels.to_numpy(), "accepted": decided["accepted"]}
    if predictor.conformal is not None:  # the classes whose set holds the true one at calibration.set_coverage
        sets = predictor.conformal.predict_set(P)
        classes = np.asarray(predictor.labels(np.arange(len(predictor.classes))), dtype=object)
        out["prediction_set"] = [classes[row].tolist() for row in sets]
    return pd.DataFrame(out)


HASH_KEYS = ("defensible-ml-01", "defensible-ml-02")  # pandas' hash_pandas_object keys: 16 characters each


def row_hashes(values: pd.DataFrame) -> np.ndarray:
    """(n, 2) uint64: two independent 64-bit hashes of each row's values (-0.0 read as 0.0, as DataFrame.duplicated
    reads it): 128 bits, so a false match among 10^8 rows has a probability below 10^-22."""
    values = values.apply(lambda c: c + 0.0 if pd.api.types.is_float_dtype(c) else c)
    return np.column_stack(
        [pd.util.hash_pandas_object(values, index=False, hash_key=key).to_numpy() for key in HASH_KEYS]
    )
