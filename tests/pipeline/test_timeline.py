"""Time in the data (pipeline/core/timeline.py): data.time read as numbers the splitters order (dates as days), one
message for a time that cannot be read, and the columns validate names when data.time is unset."""

import numpy as np
import pandas as pd
import pytest

from pipeline.core.errors import PipelineError
from pipeline.core.timeline import looks_like_time, shown, time_axis, time_like_note

DATA = {"target": "y", "group": None, "time": None, "categorical": ["colour"], "drop": []}


def test_dates_and_date_strings_are_days_and_numbers_stay():
    t, unit = time_axis(pd.Series(["2001-01-01", "2001-01-03", "2000-12-31"]), "d", "f.csv")
    np.testing.assert_array_equal(t, [11323.0, 11325.0, 11322.0])
    assert unit == "days" and shown(t[1], unit) == "2001-01-03"
    stamps = pd.Series(pd.to_datetime(["2001-01-01 12:00", "2001-01-02"], format="mixed"))
    t, _ = time_axis(stamps, "d", "f.csv")
    np.testing.assert_array_equal(t, [11323.5, 11324.0])
    assert shown(11323.5, "days") == "2001-01-01T12:00:00"
    t, unit = time_axis(pd.Series([2003, 2001, 2002]), "Year", "f.csv")
    np.testing.assert_array_equal(t, [2003.0, 2001.0, 2002.0])
    assert unit == "as in the file" and shown(2003.0, unit) == "2003"


@pytest.mark.parametrize("values, shown_value", [(["2001-01-01", "soon"], "'soon'"), ([2001.0, np.nan], "nan")])
def test_an_unreadable_time_names_the_column_the_row_and_the_fix(values, shown_value):
    with pytest.raises(PipelineError) as error:
        time_axis(pd.Series(values), "when", "data/raw/x.csv")
    message = str(error.value)
    assert "data/raw/x.csv: data.time column 'when'" in message and f"row 1, holds {shown_value}" in message
    assert "set data.time: null" in message


def test_columns_that_look_like_time():
    n = 40
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "x": rng.normal(size=n),  # an ordinary feature
            "when": pd.date_range("2020-01-01", periods=n).strftime("%d/%m/%Y"),  # date strings
            "fiscal_year": rng.integers(2000, 2005, n),  # a name that says time
            "seq": np.arange(n) * 3.0,  # the rows are sorted by it
            "colour": np.sort(rng.choice(["a", "b", "c"], n)),  # sorted, but a category
            "stamp": pd.date_range("2020-01-01", periods=n),  # datetimes
            "yearly_income": rng.normal(size=n),  # "year" inside a word is not a name of time
        }
    )
    found = looks_like_time(frame, DATA)
    assert [f["column"] for f in found] == ["when", "fiscal_year", "seq", "stamp"]
    assert [f["reason"] for f in found] == [
        "its text values are dates",
        "its name says time and it holds ordered numbers",
        "the rows are sorted by it",
        "it holds dates",
    ]
    note = time_like_note(found)
    assert note.startswith("column 'when' looks like time (its text values are dates) (also 'fiscal_year', 'seq'")
    assert note.endswith("set data.time: when to test on the latest period with forward-chaining folds")
    assert looks_like_time(frame, {**DATA, "time": "when"}) == []
    assert looks_like_time(frame, {**DATA, "drop": ["seq"], "group": "fiscal_year"}) == [found[0], found[3]]
    assert time_like_note([]) is None


def test_the_default_data_names_its_study_year():
    from conftest import sample_frame

    found = looks_like_time(
        sample_frame(), {**DATA, "target": "binexp", "group": "zper", "categorical": ["plan", "site"]}
    )
    assert [f["column"] for f in found] == ["year", "time"]
