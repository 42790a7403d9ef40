"""data.task inferred from the target column when it is auto, with the reason, and checked against the values when
it is set: two distinct values are binary; numbers that are not all whole, or whole numbers with more than
MAX_AUTO_CLASSES distinct values, are a regression target; other values are classes. The kinds themselves (what
each task does) are pipeline/core/task.py's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from mllib.base import to_python

from .errors import PipelineError
from .json_types import JSON
from .task import KINDS, Target

# A numeric target of whole numbers is read as classes up to this many distinct values (grades, counts of few
# levels); with more it is a quantity (regression). data.task overrides the rule.
MAX_AUTO_CLASSES = 20


@dataclass(frozen=True)
class Observed:
    """The target column's non-missing values as validate and split see them (sorted distinct values, whether they
    are numbers), for the kinds to check a forced task and build the Target (pipeline/core/task_inference.py)."""

    column: str
    values: pd.Series
    distinct: list[Any]  # labels as the data spells them
    numeric: bool
    source: str  # the file, for messages

    @property
    def shown(self) -> list[Any]:
        return [to_python(v) for v in self.distinct[:10]] + (["..."] if len(self.distinct) > 10 else [])

    @property
    def found(self) -> str:
        return f"{len(self.distinct)} distinct values {self.shown}"

    def forced(self, task: str, why: str, alternative: str = "") -> PipelineError:
        """The error of a data.task the values do not fit."""
        return PipelineError(
            f"params.yaml: data.task is {task}, but target column {self.column!r} {why}; {alternative}set data.task "
            "to auto, or fix data.target"
        )

    def refuse_positive_label(self, positive: object, what: str) -> None:
        if positive is not None:
            raise PipelineError(
                f"params.yaml: data.positive_label is {positive!r}, but target {self.column!r} is {what}; "
                "positive_label is for binary targets only: set it to null"
            )


def _integral(values: pd.Series) -> bool:
    numbers = values.to_numpy(dtype=np.float64)
    return bool(np.all(np.isfinite(numbers)) and np.all(numbers == np.round(numbers)))


def infer_target(series: pd.Series, data: JSON, source: str) -> Target:
    """The task of data.target from its values (non-missing), checked against data.task and data.positive_label."""
    column, requested = data["target"], data["task"]
    values = series.dropna()
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    distinct = sorted(values.unique().tolist(), key=_sort_key)
    observed = Observed(column, values, distinct, numeric, source)
    shown, found = observed.shown, observed.found
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

    kind = KINDS[inferred if requested == "auto" else requested]
    if requested != "auto":
        kind.check_fits(observed, KINDS[inferred])
        reason = f"set by data.task (the values alone suggest {inferred}: {reason})"
    return kind.from_values(observed, data["positive_label"], reason)


def _refuse_label_variants(distinct: list[Any], numeric: bool, column: str, source: str) -> None:
    """Text labels that differ only by case or surrounding spaces ("yes", "Yes", "yes ") are almost always one class
    typed several ways; as they are they would become separate classes and change the question, so they are refused,
    named with their spellings (merging them is the data's owner's call)."""
    if numeric:
        return
    spellings: dict[str, list[Any]] = {}
    for value in distinct:
        spellings.setdefault(str(value).strip().casefold(), []).append(to_python(value))
    variants = [v for v in spellings.values() if len(v) > 1]
    if variants:
        shown = "; ".join(" / ".join(repr(s) for s in group) for group in variants[:5])
        raise PipelineError(
            f"{source}: target column {column!r} (data.target) has labels that differ only by case or surrounding "
            f"spaces ({shown}); they would become separate classes. Write each class one way in the file"
        )


def _sort_key(value: object) -> tuple[int, float, str]:
    """Numbers by value, everything else by its text (a column read from CSV never mixes the two)."""
    return (
        (0, float(value), "")
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
        else (1, 0.0, str(value))
    )
