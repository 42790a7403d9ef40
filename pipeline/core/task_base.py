"""The target column and its task, and the contract every task kind fulfils (pipeline/core/task.py holds the
classification kinds, pipeline/core/task_regression.py the regression one, imported with them): `Target(task=...)`
gives the kind's class. Also the two spellings every kind shares: a label's key and a figure that is a finite number
or None.

The contract has two parts. The members below marked `required` (attributes) or `@requires` (methods), grouped by
role, are what every kind provides (Classification adds what its kinds provide): a kind defined without one of them
fails at once with a message naming each missing member. The functions marked `@per_kind` (pipeline/core/dispatch.py)
are what a stage, a step or the report does differently by kind: `unregistered(kind)` names those with no
registration for a kind, and tests/pipeline/test_task_contract.py holds every kind to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
import pandas as pd

from mllib.base import to_python

from .dispatch import dispatched_over

if TYPE_CHECKING:
    from .evaluation_records import CalibrationReport, EvaluationReport
    from .fairness_records import FairnessReport
from .errors import PipelineError

TASKS = ("auto", "binary", "multiclass", "regression")
F = TypeVar("F", bound=Callable)


class _Required:
    """The placeholder of a member every kind must set (`required`)."""

    def __init__(self, role: str):
        self.role = role


def required(role: str) -> Any:
    """An attribute every kind sets; `role` groups it in the message when a kind lacks it."""
    return _Required(role)


def requires(role: str) -> Callable[[F], F]:
    """A method every kind defines (the decorated one is its signature and documentation only)."""

    def mark(method: F) -> F:
        method.__required_role__ = role  # type: ignore[attr-defined]
        return method

    return mark


def _role(member) -> str | None:
    """The role of a member still at its placeholder, None once a kind provides it."""
    member = getattr(member, "__func__", member)  # staticmethod and classmethod objects
    return member.role if isinstance(member, _Required) else getattr(member, "__required_role__", None)


def missing_members(kind: type) -> dict[str, list[str]]:
    """{role: [member, ...]} of what `kind` does not provide, in the contract's order: Target's, then what a base
    between (Classification) adds for its kinds."""
    missing: dict[str, list[str]] = {}
    declared = dict.fromkeys(name for base in reversed(kind.__mro__) for name in vars(base))
    for name in declared:
        role = _role(getattr(kind, name))
        if role is not None:
            missing.setdefault(role, []).append(name)
    return missing


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
    kinds: ClassVar[dict[str, type[Target]]] = {}

    def __init_subclass__(cls, kind: str | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if kind is not None:
            missing = missing_members(cls)
            if missing:
                lines = "; ".join(f"{role}: {', '.join(names)}" for role, names in missing.items())
                raise TypeError(f"task kind {kind!r} ({cls.__name__}) does not provide {lines}")
            Target.kinds[kind] = cls

    def __new__(cls, task: str, *args, **kwargs):
        if cls is Target:
            if task not in Target.kinds:
                raise PipelineError(f"data/processed/target.json: unknown task {task!r}; rerun `dvc repro split`")
            cls = Target.kinds[task]
        return super().__new__(cls)

    def __getnewargs__(self):  # copies and the Dask workers' copies call __new__ with the task
        return (self.task,)

    # -- the contract: what every kind provides, by role --
    # reading the target's values
    @requires("the target")
    def encode(self, series: pd.Series) -> np.ndarray:
        """The target values as codes (classes 0..K-1) or float64; an unknown or non-finite value is an error."""

    @requires("the target")
    def describe(self) -> str:
        """One line: the task and its classes."""

    @requires("the target")
    def distribution(self, values: pd.Series) -> dict:
        """What the target's values look like (class shares, or quantiles): what a removal of rows did to them."""

    @requires("the target")
    def class_counts(self, y: np.ndarray) -> np.ndarray:
        """Rows per class code (per quantile bin without classes)."""

    @requires("the target")
    def counts(self, y: np.ndarray) -> dict:
        """Rows per class of the codes, by label."""

    @requires("the target")
    def shares(self, y: np.ndarray) -> dict:
        """Shares per class of the codes, by label."""

    @staticmethod
    @requires("the target")
    def check_fits(observed, inferred: type[Target]) -> None:
        """Refuse a data.task set in params.yaml that the target's values do not fit."""

    @classmethod
    @requires("the target")
    def from_values(cls, observed, positive, reason: str) -> Target:
        """The Target of the observed values."""

    # the split
    @requires("the split")
    def split_strategy(self, group) -> str:
        """split.strategy auto, given data.group."""

    @requires("the split")
    def strata(self, y: np.ndarray) -> np.ndarray:
        """What stratified splits balance."""

    # the models
    classifies: ClassVar[bool] = required("the models")  # decisions are classes
    estimators: ClassVar[Any] = required("the models")  # the registry family that can fit it
    default_models: ClassVar[tuple[str, ...]] = required("the models")  # model.name auto: compared, simplest first
    tree: ClassVar[str] = required("the models")  # the single-feature leakage check's model
    no_skill_name: ClassVar[str] = required("the models")
    refused_projections: ClassVar[tuple[str, ...]] = required("the models")  # features.projection it cannot use

    @requires("the models")
    def no_skill(self) -> Any:
        """The no-skill model the chosen one is compared with."""

    @requires("the models")
    def fold_scores(self, model, X) -> np.ndarray:
        """A fold model's out-of-fold output."""

    # the metrics
    headline_metric: ClassVar[str] = required("the metrics")  # the metric the gate and the headline lead with
    headline_label: ClassVar[str] = required("the metrics")
    test_metrics: ClassVar[tuple[str, ...]] = required("the metrics")  # the headline's test figures
    test_record: ClassVar[type[EvaluationReport]] = required("the metrics")  # test.json (core/evaluation_records.py)
    calibration_record: ClassVar[type[CalibrationReport]] = required("the metrics")  # calibration.json
    per_class: ClassVar[str] = required("the metrics")  # how the report says a figure is per class

    @requires("the metrics")
    def response(self, predictor, response: str) -> Callable:
        """Raw matrix -> what a scorer or an explainer needs from the deployed predictor."""

    @requires("the metrics")
    def scorer_input(self, scorer, P: np.ndarray | None, decision: np.ndarray) -> np.ndarray:
        """What a scorer reads of the deployed outputs."""

    # the explanations
    explained: ClassVar[dict[str, str]] = required("the explanations")  # what attributions add up to, by source

    @requires("the explanations")
    def explained_outputs(self) -> list[str]:
        """The outputs the explanations explain."""

    @requires("the explanations")
    def output_name(self) -> str:
        """What partial dependence plots."""

    # fairness
    fairness_record: ClassVar[type[FairnessReport]] = required("fairness")  # fairness.json (core/fairness_records.py)
    fairness_gaps: ClassVar[tuple[str, ...]] = required("fairness")  # what the gate's fairness bound reads

    @staticmethod
    @requires("fairness")
    def group_gaps(audit: Any) -> dict:
        """The headline's gaps of one audited attribute: {name: its record, with difference and difference_interval}."""

    # the promotion gate
    @staticmethod
    @requires("the gate")
    def quality_figures(test: Any, calibration: Any) -> dict:  # the kind's test_record and calibration_record
        """The headline sections on how far the deployed output can be trusted."""

    @staticmethod
    @requires("the gate")
    def quality_check(figures: dict, cfg: dict) -> tuple[str, float | None, float | None, str]:
        """(name, value, bound, fix when it fails) of the calibration or coverage check."""

    @staticmethod
    @requires("the gate")
    def decision_checks(figures: dict, cfg: dict, costs_set: bool) -> list[tuple]:
        """(name, value, bound, op, fix) of the checks on the deployed decisions."""

    # -- shared by every kind --
    def min_headline(self, cfg: dict) -> float | None:
        """tracking.promotion.min_headline for this task."""
        return cfg["min_headline"][self.task]

    @property
    def default_scoring(self) -> str:
        """search.scoring auto: the headline metric's scorer."""
        from mllib.metrics import DEFAULT_SCORING

        return DEFAULT_SCORING[self.task]

    def fits_scorer(self, scorer) -> bool:
        """Whether a scorer from mllib.metrics applies to this task."""
        return self.task in scorer.tasks

    def scorers(self) -> list[str]:
        """The names of the scorers that apply to this task."""
        from mllib.metrics import scorers_for

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


def per_kind(over: type | Callable = Target):
    """A function that differs by task kind (pipeline/core/dispatch.py, on its first argument, the target): every
    kind derived from `over` (default: every kind) must register one. Used bare (`@per_kind`) or with the base whose
    kinds it serves (`@per_kind(Classification)`)."""
    if isinstance(over, type):
        return dispatched_over(over)
    return dispatched_over(Target)(over)
