"""data.task inferred from the target column when it is auto, with the reason, and checked against the values when
it is set: two distinct values are binary; numbers that are not all whole, or whole numbers with more than
MAX_AUTO_CLASSES distinct values, are a regression target; other values are classes. The kinds themselves (what
each task does) are pipeline/core/task.py's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mllib.base import to_python

from .errors import PipelineError
from .task import Target, label_key

# A numeric target of whole numbers is read as classes up to this many distinct values (grades, counts of few
# levels); with more it is a quantity (regression). data.task overrides the rule.
MAX_AUTO_CLASSES = 20


def _integral(values: pd.Series) -> bool:
    numbers = values.to_numpy(dtype=np.float64)
    return bool(np.all(np.isfinite(numbers)) and np.all(numbers == np.round(numbers)))


def infer_target(series: pd.Series, data: dict, source: str) -> Target:
    """The task of data.target from its values (non-missing), checked against data.task and data.positive_label."""
    column, requested = data["target"], data["task"]
    values = series.dropna()
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    distinct = sorted(values.unique().tolist(), key=_sort_key)
    shown = [to_python(v) for v in distinct[:10]] + (["..."] if len(distinct) > 10 else [])
    found = f"{len(distinct)} distinct values {shown}"
    _refuse_label_variants(distinct, numeric, column, source)
    if len(distinct) < 2:
        raise PipelineError(
            f"{source}: target column {column!r} (data.target) has a single value {shown} in the valid "
            "rows; a model needs at least two classes or a varying quantity"
        )
    if len(distinct) == 2:
        inferred, reason = "binary", f"two classes {shown}"
    elif numeric and not _integral(values):
        inferred, reason = "regression", f"numeric with non-integer values ({found})"
    elif numeric and len(distinct) > MAX_AUTO_CLASSES:
        inferred, reason = "regression", f"whole numbers with more than {MAX_AUTO_CLASSES} distinct values ({found})"
    else:
        inferred, reason = "multiclass", f"{len(distinct)} classes {shown}"

    task = inferred if requested == "auto" else requested
    if requested != "auto":
        _check_requested(requested, inferred, numeric, distinct, column, found)
        reason = f"set by data.task (the values alone suggest {inferred}: {reason})"
    if task == "regression":
        return _regression_target(values, data, column, reason, source)
    positive = data["positive_label"]
    if task == "multiclass" and positive is not None:
        raise PipelineError(
            f"params.yaml: data.positive_label is {positive!r}, but target {column!r} is multiclass "
            f"({found}); positive_label is for binary targets only: set it to null"
        )
    if task == "binary":
        if positive is None:
            positive = distinct[-1]
        matches = [v for v in distinct if label_key(v) == label_key(positive)]
        if not matches:
            raise PipelineError(
                f"params.yaml: data.positive_label {positive!r} is not a value of {column!r} {shown}; "
                "set it to one of them (or null for the larger value)"
            )
        negative = next(v for v in distinct if label_key(v) != label_key(positive))
        classes = [to_python(negative), to_python(matches[0])]
    else:
        classes = [to_python(v) for v in distinct]
    return Target(task=task, column=column, classes=classes, reason=reason)


def _refuse_label_variants(distinct: list, numeric: bool, column: str, source: str) -> None:
    """Text labels that differ only by case or surrounding spaces ("yes", "Yes", "yes ") are almost always one class
    typed several ways; as they are they would become separate classes and change the question, so they are refused,
    named with their spellings (merging them is the data's owner's call)."""
    if numeric:
        return
    spellings: dict[str, list] = {}
    for value in distinct:
        spellings.setdefault(str(value).strip().casefold(), []).append(to_python(value))
    variants = [v for v in spellings.values() if len(v) > 1]
    if variants:
        shown = "; ".join(" / ".join(repr(s) for s in group) for group in variants[:5])
        raise PipelineError(
            f"{source}: target column {column!r} (data.target) has labels that differ only by case or surrounding "
            f"spaces ({shown}); they would become separate classes. Write each class one way in the file"
        )


def _regression_target(values: pd.Series, data: dict, column: str, reason: str, source: str) -> Target:
    """A numeric target whose every value is finite; positive_label has no meaning for it."""
    if data["positive_label"] is not None:
        raise PipelineError(
            f"params.yaml: data.positive_label is {data['positive_label']!r}, but target {column!r} is a "
            f"regression target ({reason}); positive_label is for binary targets only: set it to null"
        )
    numbers = values.to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(numbers))
    if bad.size:
        row = values.index[bad[0]]
        raise PipelineError(
            f"{source}: target column {column!r} holds {bad.size} non-finite values (e.g. "
            f"{numbers[bad[0]]!r} at data row {row + 1}); a regression target needs finite numbers: "
            "fix or remove those rows"
        )
    return Target(task="regression", column=column, classes=[], reason=reason)


def _check_requested(requested: str, inferred: str, numeric: bool, distinct: list, column: str, found: str) -> None:
    """A forced task must fit the values (one message naming the column and the classes found)."""
    fix = "set data.task to auto, or fix data.target"
    if requested == "binary" and len(distinct) != 2:
        raise PipelineError(f"params.yaml: data.task is binary, but target column {column!r} has {found}; {fix}")
    if requested == "multiclass" and len(distinct) < 3:
        raise PipelineError(
            f"params.yaml: data.task is multiclass, but target column {column!r} has only {found}; use binary, or {fix}"
        )
    if requested == "multiclass" and numeric and inferred == "regression" and not _whole(distinct):
        raise PipelineError(
            f"params.yaml: data.task is multiclass, but target column {column!r} holds non-integer "
            f"numbers ({found}), a quantity rather than classes; {fix}"
        )
    if requested == "regression" and not numeric:
        raise PipelineError(
            f"params.yaml: data.task is regression, but target column {column!r} is not numeric ({found}); {fix}"
        )


def _whole(values: list) -> bool:
    return all(float(v).is_integer() for v in values)


def _sort_key(value):
    """Numbers by value, everything else by its text (a column read from CSV never mixes the two)."""
    return (
        (0, float(value), "")
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
        else (1, 0.0, str(value))
    )
