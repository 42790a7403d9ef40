"""The pandas -> numpy boundary (pipeline/core/frames.py): which columns are model inputs, the raw object matrix
(numeric floats with NaN first, then categories as strings with None), and the 0/1 target."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from mllib.base import group_index
from pipeline.core.frames import attribute_labels, category_labels, feature_columns, raw_matrix

DATA = {"target": "y", "group": "pid", "categorical": ["plan", "site"], "drop": ["sex"]}


def test_feature_columns_excludes_row_id_target_group_in_file_order():
    columns = ["_row_id", "site", "age", "y", "pid", "plan", "income", "sex"]
    numeric, categorical = feature_columns(columns, DATA)
    assert numeric == ["age", "income"]  # sex: a sensitive attribute kept for the audit (data.drop), not a feature
    assert categorical == ["site", "plan"]  # file order, not params order


def test_feature_columns_without_group():
    numeric, categorical = feature_columns(["_row_id", "pid", "y", "x"], {**DATA, "group": None})
    assert numeric == ["pid", "x"] and categorical == []


def test_raw_matrix_numeric_first_then_categorical_strings():
    df = pd.DataFrame(
        {
            "plan": [3.0, np.nan, 11.0],  # integral floats (as after a NaN made the column float)
            "age": [30, 41, 52],
            "site": ["a", "b", None],
            "income": [1.5, np.nan, 2.5],
        }
    )
    X = raw_matrix(df, ["age", "income"], ["plan", "site"])
    assert X.shape == (3, 4) and X.dtype == object
    assert X[:, 0].tolist() == [30.0, 41.0, 52.0]
    assert all(isinstance(v, float) for v in X[:, 0])
    assert X[0, 1] == 1.5 and math.isnan(X[1, 1]) and X[2, 1] == 2.5
    assert X[:, 2].tolist() == ["3", None, "11"]  # "3", not "3.0"; missing is None, not "nan"
    assert X[:, 3].tolist() == ["a", "b", None]


def test_raw_matrix_nullable_integers_become_nan():
    df = pd.DataFrame({"n": pd.array([1, None, 3], dtype="Int64"), "c": pd.array([1, None, 2], dtype="Int64")})
    X = raw_matrix(df, ["n"], ["c"])
    assert X[0, 0] == 1.0 and math.isnan(X[1, 0])
    assert X[:, 1].tolist() == ["1", None, "2"]


def test_raw_matrix_only_categorical_or_only_numeric():
    df = pd.DataFrame({"c": [1, 2], "x": [0.5, 0.25]})
    assert np.asarray(raw_matrix(df, [], ["c"])).tolist() == [["1"], ["2"]]
    assert np.asarray(raw_matrix(df, ["x"], [])).tolist() == [[0.5], [0.25]]


def test_category_labels_keeps_fractional_and_text_values():
    s = pd.Series([2.5, 1.0, np.nan, -4.0], dtype=float)
    assert category_labels(s).tolist() == ["2.5", "1", None, "-4"]
    obj = pd.Series(["x", 7, None, float("nan"), pd.NA], dtype=object)
    assert category_labels(obj).tolist() == ["x", "7", None, None, None]


def test_attribute_labels_are_the_spelled_categories_as_codes():
    frame = pd.DataFrame(
        {"sex": pd.Series([1.0, 0.0, np.nan, 1.0, 10.0]), "race": pd.Series(["b", None, "w", "b", 1], dtype=object)}
    )
    labels = attribute_labels(frame, ["sex", "race"])
    assert np.asarray(labels["sex"]).tolist() == ["1", "0", "(missing)", "1", "10"]
    assert np.asarray(labels["race"]).tolist() == ["b", "(missing)", "w", "b", "1"]
    values, inverse = group_index(labels["sex"], 5)
    assert values.tolist() == ["(missing)", "0", "1", "10"] and inverse.tolist() == [2, 1, 0, 2, 3]
    assert group_index(labels["race"], 5)[0].tolist() == ["(missing)", "1", "b", "w"]


def test_attribute_labels_of_rows_named_by_id_follow_the_ids_order():
    frame = pd.DataFrame({"_row_id": [10, 11, 12, 13], "sex": ["f", "m", None, "f"]})
    labels = attribute_labels(frame, ["sex"], rows=pd.Series([13, 12, 10]))
    assert np.asarray(labels["sex"]).tolist() == ["f", "(missing)", "f"]
    with pytest.raises(ValueError, match="1 of the 2 row ids"):
        attribute_labels(frame, ["sex"], rows=[10, 99])
