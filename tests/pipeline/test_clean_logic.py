"""The clean stage's row-wise fixes: impossible values -> missing (counted), outlier policies flag / clip /
remove at fixed bounds, and duplicate-column detection that keeps the first copy and never removes a
column with a role (target, group, sensitive, categorical)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipeline.core.errors import PipelineError
from pipeline.steps.cleaning import column_fingerprints, duplicate_columns, handle_outliers, make_impossible_missing


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "_row_id": [10, 11, 12, 13, 14],
            "age": [25.0, -3.0, 40.0, 130.0, np.nan],
            "income": [1.0, 5.0, 9.0, 2.0, 100.0],
            "cat": ["a", "b", "a", "b", "a"],
        }
    )


# ---- impossible values ------------------------------------------------------------------------------------


def test_impossible_values_become_missing_and_are_counted():
    df = frame()
    report = make_impossible_missing(df, {"age": [0, 120], "income": [0, 50]})
    assert report == {"age": 2, "income": 1}
    np.testing.assert_array_equal(df["age"].to_numpy(), [25.0, np.nan, 40.0, np.nan, np.nan])
    np.testing.assert_array_equal(df["income"].to_numpy(), [1.0, 5.0, 9.0, 2.0, np.nan])
    assert df["_row_id"].tolist() == [10, 11, 12, 13, 14]  # no row removed


def test_range_bounds_are_inclusive_and_open_ends():
    df = frame()
    report = make_impossible_missing(df, {"age": [25, None], "income": [None, 9]})
    assert report == {"age": 1, "income": 1}  # -3 below 25; 100 above 9; 25 and 9 themselves stay
    assert df["age"].tolist()[0] == 25.0 and df["income"].tolist()[2] == 9.0


def test_fully_open_range_changes_nothing():
    df = frame()
    assert make_impossible_missing(df, {"age": [None, None]}) == {"age": 0}
    pd.testing.assert_frame_equal(df, frame())


def test_impossible_values_in_integer_column():
    df = pd.DataFrame({"n": [1, 2, 300]})
    assert make_impossible_missing(df, {"n": [0, 100]}) == {"n": 1}
    assert df["n"].isna().tolist() == [False, False, True] and df["n"].iloc[1] == 2


def test_no_ranges_no_change():
    df = frame()
    assert make_impossible_missing(df, {}) == {}
    pd.testing.assert_frame_equal(df, frame())


@pytest.mark.parametrize("ranges, text", [({"nothere": [0, 1]}, "'nothere'"), ({"cat": [0, 1]}, "not numeric")])
def test_range_on_unknown_or_text_column(ranges, text):
    with pytest.raises(PipelineError) as info:
        make_impossible_missing(frame(), ranges)
    assert "clean.valid_ranges" in str(info.value) and text in str(info.value)


# ---- outliers ---------------------------------------------------------------------------------------------

BOUNDS = {"income": [2, 9]}  # 1.0 below, 100.0 above


def test_outliers_flag_adds_indicator_and_keeps_values():
    out, report = handle_outliers(frame(), "flag", BOUNDS)
    assert report == {"income": 2}
    assert out["income_outlier"].tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert out["income"].tolist() == frame()["income"].tolist()
    assert len(out) == 5


def test_outliers_clip_to_bounds():
    out, report = handle_outliers(frame(), "clip", BOUNDS)
    assert report == {"income": 2}
    assert out["income"].tolist() == [2.0, 5.0, 9.0, 2.0, 9.0]
    assert "income_outlier" not in out.columns and len(out) == 5


def test_outliers_remove_rows_beyond_any_bound():
    out, report = handle_outliers(frame(), "remove", {"income": [2, 9], "age": [0, None]})
    assert report == {"income": 2, "age": 1}
    assert out["_row_id"].tolist() == [12, 13]  # 10 and 14 (income), 11 (age); NaN age is not an outlier


def test_outliers_none_policy_changes_nothing_but_counts():
    out, report = handle_outliers(frame(), "none", BOUNDS)
    assert report == {"income": 2}
    pd.testing.assert_frame_equal(out, frame())


def test_outliers_open_bounds():
    out, report = handle_outliers(frame(), "clip", {"income": [None, 5], "age": [None, None]})
    assert report == {"income": 2, "age": 0}
    assert out["income"].tolist() == [1.0, 5.0, 5.0, 2.0, 5.0]
    assert out["age"].equals(frame()["age"])


def test_outlier_bounds_on_text_column():
    with pytest.raises(PipelineError, match="clean.outliers.bounds"):
        handle_outliers(frame(), "clip", {"cat": [0, 1]})


# ---- duplicate columns ------------------------------------------------------------------------------------


def dup_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "_row_id": [0, 1, 2],
            "lfam": [1.0, np.nan, 2.0],
            "lnum": [1.0, np.nan, 2.0],  # repeats lfam (NaN equal to NaN)
            "lnum2": [1.0, np.nan, 2.0],  # repeats lfam too (not lnum, which is removed)
            "other": [1.0, 0.0, 2.0],
            "y": [1.0, np.nan, 2.0],  # the target: protected
            "site": [1.0, np.nan, 2.0],  # categorical: protected
            "y_copy": [1.0, np.nan, 2.0],
        }
    )


def test_duplicate_columns_keep_the_first_and_protect_roles():
    repeats = duplicate_columns(column_fingerprints(dup_frame()), protected={"y", "site", None})
    assert repeats == {"lnum": "lfam", "lnum2": "lfam", "y_copy": "lfam"}


def test_duplicate_of_a_protected_column_points_to_it():
    df = pd.DataFrame({"_row_id": [0, 1], "female": [0, 1], "f2": [0, 1], "x": [0, 1]})
    assert duplicate_columns(column_fingerprints(df), protected={"female"}) == {"f2": "female", "x": "female"}


def test_protected_column_after_its_copy_is_kept():
    df = pd.DataFrame({"_row_id": [0, 1], "a": [3.0, 4.0], "target": [3.0, 4.0]})
    assert duplicate_columns(column_fingerprints(df), protected={"target"}) == {}


def test_row_id_is_never_compared():
    df = pd.DataFrame({"_row_id": [0, 1, 2], "idx": [0, 1, 2]})
    assert duplicate_columns(column_fingerprints(df), protected=set()) == {}


def test_near_duplicates_are_not_duplicates():
    df = pd.DataFrame({"_row_id": [0, 1], "a": [1.0, 2.0], "b": [1.0, 2.0000001], "c": [1.0, np.nan]})
    assert duplicate_columns(column_fingerprints(df), protected=set()) == {}


# ---- duplicate rows: removed only where an id says they are one record -----------------------------------


def _run_clean(tmp_path, monkeypatch, frame: pd.DataFrame, group, setting, task="binary"):
    """clean.main in a scratch project on `frame` as validate's output; returns (clean frame, cleaning report)."""
    import json
    from pathlib import Path

    import yaml

    from pipeline.core.records import ValidationReport
    from pipeline.stages import clean

    monkeypatch.chdir(tmp_path)
    params = yaml.safe_load((Path(__file__).resolve().parents[2] / "params.yaml").read_text())
    params["data"].update(target="y", group=group, sensitive=[], drop=[], categorical=["answer"])
    params["clean"]["drop_duplicate_rows"] = setting
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    (tmp_path / "data/interim").mkdir(parents=True)
    (tmp_path / "reports").mkdir()
    frame.to_parquet(tmp_path / "data/interim/validated.parquet")
    classes = [] if task == "regression" else [0, 1]
    written = {"task": task, "classes": classes, "task_reason": "as validate wrote it"}  # what clean reads
    ValidationReport(**{name: written.get(name) for name in ValidationReport.field_names()}).write()
    clean.main()
    return (
        pd.read_parquet(tmp_path / "data/interim/clean.parquet"),
        json.loads((tmp_path / "reports/cleaning.json").read_text()),
    )


def survey(with_id: bool) -> pd.DataFrame:
    """Six respondents, four of whom gave the same answer and the same target (a survey without an id column)."""
    df = pd.DataFrame(
        {
            "_row_id": range(6),
            "answer": ["yes", "yes", "yes", "yes", "no", "no"],
            "score": [1.0, 1.0, 1.0, 1.0, 2.0, 3.0],
            "y": [0, 0, 0, 0, 1, 1],
        }
    )
    if with_id:
        df.insert(1, "pid", [7, 7, 8, 8, 9, 9])  # rows 0-1 and 2-3: one person's record entered twice
    return df


def test_auto_keeps_identical_rows_of_a_file_without_an_id(tmp_path, monkeypatch):
    out, report = _run_clean(tmp_path, monkeypatch, survey(with_id=False), group=None, setting="auto")
    assert len(out) == 6 and report["rows_out"] == 6
    assert report["duplicate_rows"] == {"rows": 3, "action": "kept", "setting": "auto"}
    assert report["changes"] == []  # nothing changed, so nothing to list


def test_auto_removes_identical_rows_of_one_id_and_records_the_targets_shift(tmp_path, monkeypatch):
    out, report = _run_clean(tmp_path, monkeypatch, survey(with_id=True), group="pid", setting="auto")
    assert out["_row_id"].tolist() == [0, 2, 4, 5]
    assert report["duplicate_rows"] == {"rows": 2, "action": "removed", "setting": "auto"}
    (change,) = report["changes"]
    assert change["rows"] == 2 and "identical rows of one pid" in change["change"]
    assert change["target_before"] == {"0": 4 / 6, "1": 2 / 6} and change["target_after"] == {"0": 0.5, "1": 0.5}


def test_true_removes_identical_rows_even_without_an_id_and_says_so(tmp_path, monkeypatch):
    out, report = _run_clean(tmp_path, monkeypatch, survey(with_id=False), group=None, setting=True)
    assert out["_row_id"].tolist() == [0, 4, 5]
    (change,) = report["changes"]
    assert change["rows"] == 3 and change["target_after"] == {"0": 1 / 3, "1": 2 / 3}


def test_regression_removal_records_the_mean_shift(tmp_path, monkeypatch):
    df = survey(with_id=False).assign(y=[1.0, 1.0, 1.0, 1.0, 5.0, 7.0])
    _, report = _run_clean(tmp_path, monkeypatch, df, group=None, setting=True, task="regression")
    (change,) = report["changes"]
    assert change["target_before"]["mean"] == pytest.approx(16 / 6) and change["target_after"]["mean"] == 13 / 3
