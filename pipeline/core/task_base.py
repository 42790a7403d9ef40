"""The target column and its task, the kinds' common base (pipeline/core/task.py holds the classification kinds,
pipeline/core/task_regression.py the regression one, imported with them): `Target(task=...)` gives the kind's
class. Also the two
spellings every kind shares: a label's key and a figure that is a finite number or None.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import ClassVar

from mllib.base import to_python

from .errors import PipelineError

TASKS = ("auto", "binary", "multiclass", "regression")


@dataclass(frozen=True)
class Target:
    """The target column and its task. `Target(task=...)` (and `Target.read`) give the kind's class: Binary,
    Multiclass or Regression, which own what differs by task, so the stages ask the target and do not branch on its
    name."""

    task: str  # "binary" | "multiclass" | "regression"
    column: str
    classes: list  # labels in code order (binary: [negative, positive]; regression: [])
    reason: str  # why this task (auto) or "set by data.task"

    # task name -> kind, filled as each kind is defined (`class Binary(Classification, kind="binary")`)
    kinds: ClassVar[dict[str, type]] = {}

    def __init_subclass__(cls, kind: str | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if kind is not None:
            Target.kinds[kind] = cls

    def __new__(cls, task: str, *args, **kwargs):
        if cls is Target:
            if task not in Target.kinds:
                raise PipelineError(f"data/processed/target.json: unknown task {task!r}; rerun `dvc repro split`")
            cls = Target.kinds[task]
        return super().__new__(cls)

    def __getnewargs__(self):  # copies and the Dask workers' copies call __new__ with the task
        return (self.task,)

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def label_names(self) -> list[str]:
        """The classes as strings, for report keys and column names."""
        return [label_key(c) for c in self.classes]

    def write(self, path: Path) -> None:
        from .io import write_json

        write_json(asdict(self), path)

    @classmethod
    def read(cls, path: Path) -> Target:
        from .io import read_json

        return Target(**read_json(path, "split"))


def finite(value):
    """A finite number as it is, anything else (None, NaN, a flag) as None: the headline's and the gate's figures."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def label_key(value) -> str:
    """One spelling per label: 1, 1.0 and "1" read from CSV or Parquet are the same class."""
    value = to_python(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)
