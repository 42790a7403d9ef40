"""reports/monitor.json as typed records: the monitor stage's check of one batch against the served model
(pipeline/steps/batch_check.py), or the line saying the monitor is off. The page and the MLflow run read it by
attribute; the drift part is the one the evaluate stage writes for the test rows (evaluation_records.Drift)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from . import paths
from .evaluation_records import Drift, Figure
from .json_types import JSON
from .records import Part, Record


@dataclass(frozen=True)
class MonitorOff(Record):
    """No batch to check (monitor.batch is null and none was named)."""

    json_file: ClassVar[Path] = paths.MONITOR_REPORT
    written_by: ClassVar[str] = "monitor"

    statement: str


@dataclass(frozen=True)
class ContractFlags(Part):
    """What the served model's input contract said of the batch's rows and columns."""

    ignored_columns: list[str]
    flagged_rows: int
    flags: dict[str, int]  # {flag: rows}


@dataclass(frozen=True)
class LabelledRows(Part):
    """The batch's rows with a known target (one of the model's classes) and their headline figures, with
    intervals; the labels the model was not trained on, with their rows; why the promises were not checked."""

    when_set: ClassVar[tuple[str, ...]] = ("unseen", "statement")

    rows: int
    metrics: dict[str, Figure]  # the headline figures on these rows
    unseen: dict[str, int] | None = None  # {label: rows}
    statement: str | None = None  # "not evaluated: ..." with too few labelled rows


@dataclass(frozen=True)
class PromiseCheck(Part):
    """One promise of the model card checked on the labelled rows (pipeline/steps/monitoring.py): the figure, its
    bound, whether it holds and how it was judged."""

    check: str
    value: float | None
    bound: float | None
    passed: bool
    note: str


@dataclass(frozen=True)
class Estimate(Part):
    """The headline estimated without labels from the calibrated probabilities, or why not."""

    when_set: ClassVar[tuple[str, ...]] = (
        "metric", "estimate", "interval", "confidence_level", "draws", "interval_covers"
    )  # fmt: skip

    statement: str
    metric: str | None = None
    estimate: float | None = None
    interval: list[float] | None = None
    confidence_level: float | None = None
    draws: int | None = None
    interval_covers: str | None = None  # what the interval's spread counts (the label noise only)


@dataclass(frozen=True)
class TrackedState(Record):
    """What track recorded (reports/mlflow_run.json), in terms every clone shares: the pipeline state's key, the
    experiment and registered model it was recorded under, and the store ("default": the workspace's own)."""

    json_file: ClassVar[Path] = paths.MLFLOW_RUN
    written_by: ClassVar[str] = "track"

    pipeline_state: str
    experiment: str
    registered_model: str
    store: str


@dataclass(frozen=True)
class BatchCheck(Record):
    """One batch against the served model: its contract's flags, drift against the training rows (with the shift in
    predictions), the promises checked on labelled rows or the label-free estimate, the failed checks as lines, and
    the MLflow run that records it."""

    json_file: ClassVar[Path] = paths.MONITOR_REPORT
    written_by: ClassVar[str] = "monitor"
    when_set: ClassVar[tuple[str, ...]] = ("estimate",)

    batch: str
    rows: int
    model: TrackedState  # the pipeline state and registered model checked
    contract: ContractFlags
    drift: Drift
    labels: LabelledRows | None
    checks: list[PromiseCheck]  # the promises on labelled rows
    failures: list[str]
    estimate: Estimate | None = None  # without labels
    mlflow: JSON | None = None  # the monitor's MLflow run, once logged


def most_drifted_first(records: dict[str, JSON]) -> list[str]:
    """The keys of records (column name: its test's record) by adjusted p-value then p-value, the untested last
    (p = 0 is the strongest evidence, not a missing value)."""

    def key(name: str) -> tuple[bool, float, float]:
        r = records[name]
        adjusted, p = r.get("adjusted_p_value"), r.get("p_value")
        return (p is None, adjusted if adjusted is not None else 2.0, p if p is not None else 2.0)

    return sorted(records, key=key)
