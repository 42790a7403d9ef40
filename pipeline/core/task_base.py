"""The target column and its task, and what every task kind is (pipeline/core/task.py holds the classification kinds,
pipeline/core/task_regression.py the regression one, imported with them): `Target(task=...)` gives the kind's class.
Also the two spellings every kind shares: a label's key and a figure that is a finite number or None.

A kind encodes and describes the target and holds its defaults: the abstract members below, which abc holds every
kind to (a kind without one cannot be instantiated). What a stage, a step or the report does differently by task
lives beside that code, in a table keyed by the task's name (`WORDING[target.task]`): one dispatch mechanism, chosen
over methods on the kind because a table keeps each task's wording and computation next to its only reader, and
tests/pipeline/test_task_contract.py checks that every table covers every task.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np
import pandas as pd

from mllib.base import to_python

if TYPE_CHECKING:
    from mllib.base import MixedMatrix
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor
    from mllib.metrics.scorers import Scorer

    from .evaluation_records import CalibrationReport, EvaluationReport
    from .fairness_records import FairnessReport

    Predictor = DeployedPredictor | DeployedRegressor  # the deployed model (mllib.deploy)
    Response = Callable[[MixedMatrix], np.ndarray]  # raw matrix -> what a scorer or an explainer needs
from .errors import PipelineError

TASKS = ("auto", "binary", "multiclass", "regression")


class Observed(Protocol):
    """The target's values as validate and split see them (pipeline/core/task_inference.Observed)."""

    @property
    def column(self) -> str: ...
    @property
    def values(self) -> pd.Series: ...
    @property
    def distinct(self) -> list[Any]: ...
    @property
    def numeric(self) -> bool: ...
    @property
    def source(self) -> str: ...
    @property
    def shown(self) -> list[Any]: ...
    @property
    def found(self) -> str: ...
    def forced(self, task: str, why: str, alternative: str = "") -> PipelineError: ...
    def refuse_positive_label(self, positive: object, what: str) -> None: ...


@dataclass(frozen=True)
class Target(ABC):
    """The target column and its task. `Target(task=...)` (and `Target.read`) give the kind's class: Binary,
    Multiclass or Regression, which encode and describe the target and hold the task's defaults."""

    task: str  # "binary" | "multiclass" | "regression"
    column: str
    classes: list[Any]  # labels in code order, as the data spells them (binary: [negative, positive]; regression: [])
    reason: str  # why this task (auto) or "set by data.task"

    # task name -> kind, filled as each kind is defined (`class Binary(Classification, kind="binary")`)
    kinds: ClassVar[dict[str, type[Target]]] = {}

    def __init_subclass__(cls, kind: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if kind is not None:
            Target.kinds[kind] = cls

    def __new__(cls, task: str, *args: Any, **kwargs: Any) -> Target:
        if cls is Target:
            if task not in Target.kinds:
                raise PipelineError(f"data/processed/target.json: unknown task {task!r}; rerun `dvc repro split`")
            cls = Target.kinds[task]
        return super().__new__(cls)

    def __getnewargs__(self) -> tuple[str]:  # copies and the Dask workers' copies call __new__ with the task
        return (self.task,)

    # -- encoding and describing the target --
    @abstractmethod
    def encode(self, series: pd.Series) -> np.ndarray:
        """The target values as codes (classes 0..K-1) or float64; an unknown or non-finite value is an error."""

    @abstractmethod
    def describe(self) -> str:
        """One line: the task and its classes."""

    @abstractmethod
    def distribution(self, values: pd.Series) -> dict[str, float]:
        """What the target's values look like (class shares, or quantiles): what a removal of rows did to them."""

    @abstractmethod
    def class_counts(self, y: np.ndarray) -> np.ndarray:
        """Rows per class code (per quantile bin without classes)."""

    @abstractmethod
    def counts(self, y: np.ndarray) -> dict[str, float]:
        """Rows per class of the codes, by label."""

    @abstractmethod
    def shares(self, y: np.ndarray) -> dict[str, float]:
        """Shares per class of the codes, by label."""

    @abstractmethod
    def strata(self, y: np.ndarray) -> np.ndarray:
        """What stratified splits balance."""

    @staticmethod
    @abstractmethod
    def check_fits(observed: Observed, inferred: type[Target]) -> None:
        """Refuse a data.task set in params.yaml that the target's values do not fit."""

    @classmethod
    @abstractmethod
    def from_values(cls, observed: Observed, positive: object, reason: str) -> Target:
        """The Target of the observed values."""

    @abstractmethod
    def response(self, predictor: Predictor, response: str) -> Response:
        """Raw matrix -> what a scorer or an explainer needs from the deployed predictor."""

    # -- the task's defaults --
    @abstractmethod
    def split_strategy(self, group: str | None) -> str:
        """split.strategy auto, given data.group."""

    @property
    @abstractmethod
    def classifies(self) -> bool:
        """Whether decisions are classes."""

    @property
    @abstractmethod
    def estimators(self) -> Any:
        """The registry family that can fit it."""

    @property
    @abstractmethod
    def default_models(self) -> tuple[str, ...]:
        """model.name auto: the models compared, simplest first."""

    @property
    @abstractmethod
    def headline_metric(self) -> str:
        """The metric the gate and the headline lead with."""

    @property
    @abstractmethod
    def test_metrics(self) -> tuple[str, ...]:
        """The headline's test figures."""

    @property
    @abstractmethod
    def test_record(self) -> type[EvaluationReport]:
        """test.json's record (pipeline/core/evaluation_records.py)."""

    @property
    @abstractmethod
    def calibration_record(self) -> type[CalibrationReport]:
        """calibration.json's record."""

    @property
    @abstractmethod
    def fairness_record(self) -> type[FairnessReport]:
        """fairness.json's record (pipeline/core/fairness_records.py)."""

    # -- shared by every kind --
    @property
    def default_scoring(self) -> str:
        """search.scoring auto: the headline metric's scorer."""
        from mllib.metrics.scorers import DEFAULT_SCORING

        return DEFAULT_SCORING[self.task]

    def fits_scorer(self, scorer: Scorer) -> bool:
        """Whether a scorer from mllib.metrics applies to this task."""
        return self.task in scorer.tasks

    def scorers(self) -> list[str]:
        """The names of the scorers that apply to this task."""
        from mllib.metrics.scorers import scorers_for

        return scorers_for(self.task)

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

        return Target(**read_json(path, "split"))  # type: ignore[abstract]  # __new__ picks the kind


def finite(value: object) -> float | None:
    """A finite number as it is, anything else (None, NaN, a flag) as None: the headline's and the gate's figures."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def label_key(value: object) -> str:
    """One spelling per label: 1, 1.0 and "1" read from CSV or Parquet are the same class."""
    value = to_python(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)
