"""The report files a stage writes and later stages, the report and tracking read, as typed records defined once
(validate's, split's, features', train's, assess's, fairness' and explain's partial dependence; the others, whose
content differs by task or holds optional parts, are still read by key).

A writer builds the record (a frozen dataclass), so a field renamed here fails in the writer's test (an unexpected
or missing keyword); a reader loads it with `Record.read`, which checks that the file holds exactly the record's
fields, so a file from older code fails with a message naming the fields and the stage to rerun, not a KeyError
deep in the report. tests/pipeline/test_records.py checks that every key the report and tracking read of a record
is one of its fields. Nested values (per-class counts, fold tables) stay plain mappings: their keys are data."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

from . import paths
from .errors import PipelineError
from .io import read_json, write_json


@dataclass(frozen=True)
class Record:
    """A report file as a typed record: its fields are the file's keys."""

    json_file: ClassVar[Path]  # where the stage writes it (pipeline/core/paths.py)
    written_by: ClassVar[str]  # the stage
    when_set: ClassVar[tuple[str, ...]] = ()  # fields written only when not None (a remark most runs do not make)

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def write(self) -> None:
        written = [n for n in self.field_names() if n not in self.when_set or getattr(self, n) is not None]
        write_json({name: getattr(self, name) for name in written}, self.json_file)

    @classmethod
    def read(cls) -> dict:
        """The file's content, checked to hold exactly the record's fields."""
        content = read_json(cls.json_file, cls.written_by)
        missing = [k for k in cls.field_names() if k not in content and k not in cls.when_set]
        unexpected = sorted(set(content) - set(cls.field_names()))
        if missing or unexpected:
            raise PipelineError(
                f"{cls.json_file} does not match the {cls.written_by} stage's record ({cls.__name__}): missing "
                f"{missing}, unexpected {unexpected}; it was written by other code: rerun `dvc repro {cls.written_by}`"
            )
        return content


@dataclass(frozen=True)
class ValidationReport(Record):
    """What validate kept, quarantined and changed, and the task it inferred."""

    json_file: ClassVar[Path] = paths.VALIDATION_REPORT
    written_by: ClassVar[str] = "validate"

    file: str  # data.path as read
    file_md5: str  # as dvc.lock records the file
    schema: Any  # data.schema
    rows_in: int
    rows_kept: int
    rows_quarantined: int
    columns: int
    policies: dict
    fractional_binary: dict
    missing_target: dict
    missing_sensitive: dict
    failed_checks: list
    task: str
    task_reason: str
    classes: list
    target_classes: dict
    changes: list
    time: dict  # data.time's unit and span, or the columns that look like time when it is unset


@dataclass(frozen=True)
class SplitReport(Record):
    """The split: the strategy, the rows and groups of train and test, the folds' balance."""

    json_file: ClassVar[Path] = paths.SPLIT_REPORT
    written_by: ClassVar[str] = "split"

    strategy: str
    strategy_setting: str  # split.strategy as set (auto or a name)
    n_splits: int
    test_size: float  # asked
    test_fraction: float  # achieved: whole groups move together, so it can differ
    test_fraction_note: str | None
    task: str
    classes: list
    rows: dict  # {"train": n, "test": n}
    target: dict
    groups: dict | None
    rows_never_validated: int
    time: dict | None  # data.time: the cut, the gap, the spans and the rows in neither part; null without it
    folds: dict  # balance of every validation set, by class (regression: by quantile bin of the target)
    copies_across_split: dict | None = None  # test rows that copy a training row (pipeline/steps/folds.py)


@dataclass(frozen=True)
class TrainMetrics(Record):
    """The chosen model, its cross-validated score and the no-skill baseline's on the
    same folds, the search's size, the fits that stopped at their iteration cap, the model comparison."""

    json_file: ClassVar[Path] = paths.TRAIN_METRICS
    written_by: ClassVar[str] = "train"

    model: str  # model.name with auto resolved for the task
    task: str
    scoring: str
    cv_mean: float
    cv_std: float
    cv_pooled: float  # every split's validation rows scored as one set
    cv_note: str | None
    train_mean: float
    train_valid_gap: float
    best_params: dict
    n_candidates: int
    n_folds: int
    not_converged: dict  # {"folds": [...], "refit": bool, "messages": [...]}
    baseline: dict  # {"model", "cv_mean", "cv_std"}
    comparison: dict | None  # with model.candidates


@dataclass(frozen=True)
class FeaturesReport(Record):
    """The features: the raw columns, each split's fitted features, the final transformer's, pooled levels."""

    json_file: ClassVar[Path] = paths.FEATURES_REPORT
    written_by: ClassVar[str] = "features"

    numeric: list
    categorical: list
    folds: dict  # {split: {n_fit_rows, features[, selected]}}
    final: dict  # {n_fit_rows, features}
    pooled_levels: dict  # {column: {levels, pooled}}


@dataclass(frozen=True)
class SearchReport(Record):
    """Every candidate of the chosen model's search with its scores, and the best one."""

    json_file: ClassVar[Path] = paths.SEARCH_REPORT
    written_by: ClassVar[str] = "train"

    scoring: str
    greater_is_better: bool
    best_index: int
    candidates: list


@dataclass(frozen=True)
class Assessment(Record):
    """How far to trust the score: leakage, single features, nested CV, the curves."""

    json_file: ClassVar[Path] = paths.ASSESSMENT
    written_by: ClassVar[str] = "assess"
    when_set: ClassVar[tuple[str, ...]] = ("sample",)

    scoring: str
    model: str
    best_params: dict
    leakage: dict
    temporal_leakage: dict  # data.time: random splits of the same rows minus the time-ordered ones
    single_feature: dict
    nested: dict
    learning_curve: dict | None
    validation_curve: dict
    sample: str | None = None  # the training rows assessed when assess.max_rows cut them (whole groups)


@dataclass(frozen=True)
class FairnessReport(Record):
    """The audit of the deployed test decisions (or errors) by group, the mitigations."""

    json_file: ClassVar[Path] = paths.FAIRNESS_METRICS
    written_by: ClassVar[str] = "fairness"

    task: str
    decision_rule: str | None
    decision_threshold: float | None
    min_group_size: int
    bootstrap: dict
    attributes: dict
    mitigation: dict
    reweighing: dict


@dataclass(frozen=True)
class PartialDependence(Record):
    """One-way (and two-way) partial dependence of the deployed output."""

    json_file: ClassVar[Path] = paths.PARTIAL_DEPENDENCE
    written_by: ClassVar[str] = "explain"

    one_way: list
    two_way: dict | None
    output: str
    classes: list


RECORDS: dict[str, type[Record]] = {  # by their names in the report's inputs
    "validation": ValidationReport,
    "split": SplitReport,
    "features": FeaturesReport,
    "search": SearchReport,
    "train": TrainMetrics,
    "assessment": Assessment,
    "fairness": FairnessReport,
    "partial_dependence": PartialDependence,
}


def report_inputs() -> dict:
    """Every file the report reads (paths.REPORT_INPUTS), by name; the records checked against their fields."""
    from .task import Target

    return {
        name: RECORDS[name].read() if name in RECORDS else read_json(path, stage)
        for name, (path, stage) in paths.REPORT_INPUTS.items()
        if name != "target"
    } | {"target": Target.read(paths.TARGET)}
