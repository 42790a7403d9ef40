"""Time in the data: data.time as numbers the splitters can order (dates as days), and the columns that look like
time when data.time is unset, so validate can say that a random split of time-ordered rows may flatter the score."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from mllib import registry

from .errors import PipelineError
from .frames import date_times, time_numbers
from .json_types import JSON

DAY = np.timedelta64(1, "D")
# a name of a point in time (year, date, month, ...); a plural unit names an amount of time, a duration such as
# months_at_address or years_employed, "times" a count, and a unit after "per" a rate (hours_per_week): none of
# them orders the rows
TIME_NAME = re.compile(
    r"(?<![a-z])(?<!per[^a-z])(year|yr|month|week|day|quarter|time|period|(date|timestamp|datetime)s?)(?![a-z])"
)
DATE_SHARE = 0.9  # a text column whose sampled values parse as dates at least this often holds dates
SAMPLE = 1000


def chains_forward(split: JSON, data: JSON) -> bool:
    """Whether split's folds chain forward in time: split.strategy forward_chaining, or auto with data.time set (what
    split chooses; later stages read it from the params, not from split's report)."""
    return split["strategy"] in registry.TIME_SPLITTERS or (split["strategy"] == "auto" and bool(data["time"]))


def time_axis(values: pd.Series, column: str, source: str) -> tuple[np.ndarray, str]:
    """(each row's time as float64, its unit): dates and date strings as days since 1970-01-01, numbers as they
    are (frames.time_numbers). A missing or unreadable time stops the run naming the column, the first such row and
    the fix."""
    t, unit = time_numbers(values)
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        row, value = bad[0], values.iloc[bad[0]]
        value = value.item() if hasattr(value, "item") else value  # a numpy scalar shown as the number
        raise PipelineError(
            f"{source}: data.time column {column!r} has {bad.size} row(s) without a readable time (the first, row "
            f"{row}, holds {value!r}); a row must have a date, a date string or a number to be ordered: "
            "fill or remove those rows, or set data.time: null"
        )
    return t, unit


def shown(value: float, unit: str) -> str:
    """A time as the report shows it: days as an ISO date (a time of day when there is one), numbers as %g."""
    if unit != "days":
        return f"{value:g}"
    stamp = pd.Timestamp("1970-01-01") + pd.Timedelta(days=value)
    text: str = stamp.isoformat() if stamp != stamp.normalize() else stamp.date().isoformat()
    return text


def looks_like_time(frame: pd.DataFrame, data: JSON) -> list[dict[str, str]]:
    """Columns that look like time when data.time is unset: [{column, reason}], in file order. Dates, text that
    parses as dates, a number whose name says time (year, date, month, ...), or a number the rows are sorted by (a
    column of data.categorical, data.drop or data.group is not taken as the order)."""
    if data.get("time"):
        return []
    skip = {data["target"], data["group"]}
    found: list[dict[str, str]] = []
    for column in frame.columns:
        if column in skip:
            continue
        values = frame[column]
        numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
        if pd.api.types.is_datetime64_any_dtype(values):
            found.append({"column": column, "reason": "it holds dates"})
        elif not numeric and column not in data["categorical"] and _holds_date_strings(values):
            found.append({"column": column, "reason": "its text values are dates"})
        elif numeric and TIME_NAME.search(str(column).lower()) and values.nunique() > 1:
            found.append({"column": column, "reason": "its name says time and it holds ordered numbers"})
        elif numeric and column not in data["categorical"] and column not in data["drop"] and _sorted(values):
            found.append({"column": column, "reason": "the rows are sorted by it"})
    return found


def _holds_date_strings(values: pd.Series) -> bool:
    sample = values.dropna().head(SAMPLE)
    if sample.empty or pd.to_numeric(sample, errors="coerce").notna().mean() > 0.5:
        return False
    return bool(date_times(sample).notna().mean() >= DATE_SHARE)


def _sorted(values: pd.Series) -> bool:
    x = values.to_numpy(dtype=np.float64, na_value=np.nan)
    x = x[np.isfinite(x)]
    return x.size > 2 and np.unique(x).size > 2 and bool(np.all(np.diff(x) >= 0))


def time_like_note(found: list[dict[str, str]]) -> str | None:
    """The sentence validate prints and records: which column looks like time and the key that fixes it."""
    if not found:
        return None
    first, others = found[0], [f["column"] for f in found[1:]]
    more = f" (also {', '.join(map(repr, others))})" if others else ""
    return (
        f"column {first['column']!r} looks like time ({first['reason']}){more}: if the rows are ordered in time, a "
        "random split lets the model learn the period and can flatter the score; set data.time: "
        f"{first['column']} to test on the latest period with forward-chaining folds"
    )


def time_report(frame: pd.DataFrame, data: JSON, source: str) -> JSON:
    """validation.json's "time": data.time's unit, span and distinct times (every value read as a time, or the run
    stops), or, with data.time unset, the columns that look like time and the sentence saying so."""
    column = data["time"]
    if column:
        t, unit = time_axis(frame[column], column, source)
        return {"column": column, "unit": unit, "first": str(frame[column].iloc[int(np.argmin(t))]),
                "last": str(frame[column].iloc[int(np.argmax(t))]), "distinct": int(np.unique(t).size)}  # fmt: skip
    found = looks_like_time(frame, data)
    return {"column": None, "looks_like": found, "note": time_like_note(found)}
