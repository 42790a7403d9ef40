"""The report files a stage writes and later stages, the report and tracking read, as typed records defined once
(validate's, clean's, split's, features' and train's; the ones that differ by task kind are in
evaluation_records.py (test metrics, calibration) and fairness_records.py; assess's in assessment_records.py,
explain's in explanation_records.py, monitor's in monitor_records.py).

A writer builds the record (a frozen dataclass), so a field renamed here fails in the writer's test (an unexpected
or missing keyword); a reader loads it with `Record.read`, which returns the dataclass after checking that the file
holds exactly its fields, nested Parts included, so a file from older code fails with a message naming the fields,
the path of keys and the stage to rerun, not an AttributeError deep in the report; mypy checks every attribute the
readers take. Nested values keyed by data (per-class counts, fold tables, per-group results) stay mappings."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar, Self

from . import paths
from .errors import PipelineError
from .io import read_json, write_json
from .json_types import JSON


class _Absent:
    """A key the file does not hold (a variant of the record that does not measure it), as opposed to a key holding
    null. Falsy, so `if part.reason:` reads the same for both."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "ABSENT"


# The default of a field whose key some variants of a file leave out (mitigation applied or not, a binning only with
# probabilities). Typed Any so the field keeps its value's type: read it where its variant is known.
ABSENT: Any = _Absent()


def present(value: Any) -> Any:
    """The value, or None where the file left the key out (a table cell shows both as empty)."""
    return None if value is ABSENT else value


@dataclass(frozen=True)
class Part:
    """A JSON object with fixed keys, as a frozen dataclass: its fields are the keys. A field typed as a Part (or a
    list of Parts, a mapping to Parts, or either or None) is read and written as one, so a nested key renamed fails
    when the file is read, naming the path of keys."""

    when_set: ClassVar[tuple[str, ...]] = ()  # fields written only when not None (a remark most runs do not make)

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def optional_names(cls) -> set[str]:
        """The fields a file may leave out: those in `when_set` and those whose default is ABSENT."""
        return set(cls.when_set) | {f.name for f in fields(cls) if f.default is ABSENT}

    def to_json(self) -> JSON:
        return {
            name: _to_json(getattr(self, name))
            for name in self.field_names()
            if getattr(self, name) is not ABSENT and (name not in self.when_set or getattr(self, name) is not None)
        }

    @classmethod
    def from_json(cls, content: Any, where: str, stage: str) -> Self:
        """`content` checked to hold exactly the fields (the optional ones may be absent), nested Parts read as
        theirs; `where` names the file and the keys that lead to it, `stage` the stage that writes it. A writer may
        give a nested value as the Part already built."""
        if isinstance(content, cls):
            return content
        if not isinstance(content, Mapping):
            raise PipelineError(
                f"{where} holds {type(content).__name__}, not the object {cls.__name__}: {_rerun(stage)}"
            )
        optional = cls.optional_names()
        missing = [k for k in cls.field_names() if k not in content and k not in optional]
        unexpected = sorted(set(content) - set(cls.field_names()))
        if missing or unexpected:
            raise PipelineError(
                f"{where} does not match the {stage} stage's record ({cls.__name__}): missing {missing}, unexpected "
                f"{unexpected}; {_rerun(stage)}"
            )
        hints = _field_types(cls)
        return cls(**{k: _from_json(hints[k], v, f"{where}.{k}", stage) for k, v in content.items()})


def _rerun(stage: str) -> str:
    return f"it was written by other code: rerun `dvc repro {stage}`"


def _field_types(cls: type[Part]) -> dict[str, Any]:
    if cls not in _FIELD_TYPES:
        _FIELD_TYPES[cls] = typing.get_type_hints(cls)
    return _FIELD_TYPES[cls]


_FIELD_TYPES: dict[type, dict[str, Any]] = {}


def part_shape(hint: Any) -> tuple[str, Any] | None:
    """("one", the Part) when `hint` is a Part; ("list" | "map", the items' hint) when it is a list or a mapping of
    values that hold Parts (at any depth: a mapping of mappings of Parts); either or None; None for a plain value."""
    if isinstance(hint, type) and issubclass(hint, Part):
        return "one", hint
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        parts = [a for a in args if a is not type(None)]
        return part_shape(parts[0]) if len(parts) == 1 else None
    inner = args[-1] if origin in (list, dict) and args else None
    if inner is not None and part_shape(inner) is not None:
        return ("list" if origin is list else "map"), inner
    return None


def _from_json(hint: Any, value: Any, where: str, stage: str) -> Any:
    found = part_shape(hint)
    if found is None or value is None:
        return value
    shape, inner = found
    if shape == "one":
        return inner.from_json(value, where, stage)
    if shape == "list":
        return [_from_json(inner, v, f"{where}[{i}]", stage) for i, v in enumerate(value)]
    if not isinstance(value, Mapping):
        raise PipelineError(f"{where} holds {type(value).__name__}, not a mapping: {_rerun(stage)}")
    return {k: _from_json(inner, v, f"{where}.{k}", stage) for k, v in value.items()}


def _to_json(value: Any) -> Any:
    if isinstance(value, Part):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Record(Part):
    """A report file as a typed record: its fields are the file's keys."""

    json_file: ClassVar[Path]  # where the stage writes it (pipeline/core/paths.py)
    written_by: ClassVar[str]  # the stage

    def write(self) -> None:
        write_json(self.to_json(), self.json_file)

    @classmethod
    def read(cls) -> Self:
        """The file's content as the record, checked to hold exactly its fields (and its Parts theirs)."""
        return cls.of(read_json(cls.json_file, cls.written_by))

    @classmethod
    def of(cls, content: Mapping[str, Any]) -> Self:
        """The record of what a stage measured as a mapping, checked as a file is when read."""
        return cls.from_json(content, str(cls.json_file), cls.written_by)


@dataclass(frozen=True)
class TopCode(Part):
    """A value of nines validate kept as a column's top code (schema.top_code): in how many rows, the column's largest
    other value, and the note validate printed (what quarantining the rows would remove, how to make it missing)."""

    column: str
    value: float
    rows: int
    largest_other: float
    note: str


@dataclass(frozen=True)
class Change(Part):
    """One change the pipeline made to the user's data (pipeline/core/changes.py): what, in which stage, to how many
    rows, values and which columns, with the target's distribution before and after a row removal."""

    when_set: ClassVar[tuple[str, ...]] = ("target_before", "target_after")

    stage: str
    change: str
    rows: int
    values: int
    columns: list[str]
    target_before: dict[str, float] | None = None
    target_after: dict[str, float] | None = None


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
    policies: JSON
    fractional_binary: dict[str, JSON]
    missing_target: JSON
    missing_sensitive: dict[str, JSON]
    failed_checks: list[JSON]
    task: str
    task_reason: str
    classes: list[Any]
    target_classes: dict[str, float]
    changes: list[Change]
    time: JSON  # data.time's unit and span, or the columns that look like time when it is unset
    top_codes: list[TopCode] | None = None  # values of nines kept as a column's top code

    when_set: ClassVar[tuple[str, ...]] = ("top_codes",)


@dataclass(frozen=True)
class DuplicateRows(Part):
    """Rows that repeat an earlier row, and what clean did with them (clean.drop_duplicate_rows)."""

    rows: int
    action: str
    setting: Any


@dataclass(frozen=True)
class CleaningReport(Record):
    """What clean dropped, made missing, removed or kept, each change with its count; the missing values left for the
    features stage to impute and the columns that hold one value."""

    json_file: ClassVar[Path] = paths.CLEANING_REPORT
    written_by: ClassVar[str] = "clean"
    when_set: ClassVar[tuple[str, ...]] = ("duplicate_rows_removed", "duplicate_columns_removed")

    rows_in: int
    rows_out: int
    dropped_columns: list[str]
    made_missing: JSON
    duplicate_rows: DuplicateRows
    outliers: JSON
    outlier_policy: str
    changes: list[Change]
    missing_values: JSON
    single_valued: JSON
    duplicate_rows_removed: list[int] | None = None  # the ids of the rows removed
    duplicate_columns_removed: dict[str, str] | None = None  # {column: the column it copies}


@dataclass(frozen=True)
class TrainTest(Part):
    """A figure of the training rows and of the test rows (rows, groups, the target's shares)."""

    train: Any
    test: Any


@dataclass(frozen=True)
class SplitTime(Part):
    """A time-ordered hold-out (data.time): the cut, the gap, each part's span, the rows in neither part, and per
    split the last fitting time and the first validation time (pipeline/steps/folds.time_summary)."""

    column: str
    unit: str
    cut: Any
    gap: float
    train_span: list[str]
    test_span: list[str]
    rows_in_gap: int
    rows_purged: int
    splits: list[JSON]
    note: str | None


@dataclass(frozen=True)
class CopiesAcrossSplit(Part):
    """Test rows equal to a training row in every column but the row id and data.group."""

    test_rows: int
    of: int
    share: float
    columns: str
    warning: str | None


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
    classes: list[Any]
    rows: TrainTest
    target: TrainTest  # the class shares (regression: the target's mean, std and range)
    groups: TrainTest | None
    rows_never_validated: int
    time: SplitTime | None  # null without data.time
    folds: JSON  # balance of every validation set, by class (regression: by quantile bin of the target)
    copies_across_split: CopiesAcrossSplit | None = None  # the split stage adds it (pipeline/steps/folds.py)


@dataclass(frozen=True)
class NotConverged(Part):
    """The fits of the chosen configuration that stopped at an iteration cap."""

    folds: list[int]
    refit: bool
    messages: list[str]


@dataclass(frozen=True)
class Baseline(Part):
    """The no-skill model's cross-validated score on the same folds."""

    model: str
    cv_mean: float
    cv_std: float


@dataclass(frozen=True)
class PairedFoldTest(Part):
    """The corrected resampled t-test of two models' fold scores (mllib.comparison.corrected_resampled_t_test): the
    difference of the means, its corrected standard error and 95% interval, t, its degrees of freedom, the two-sided
    p-value and the variance correction 1 / k + n_test / n_train."""

    mean_difference: float
    standard_error: float
    interval: list[float]
    t: float
    df: int
    p_value: float
    correction: float


@dataclass(frozen=True)
class ComparedModel(Part):
    """One model of a comparison: its best configuration's scores, its rank, and the corrected resampled t-test of the
    best model minus it (absent for the best itself)."""

    when_set: ClassVar[tuple[str, ...]] = ("versus_best",)

    model: str
    params: JSON
    mean: float
    std: float
    valid_scores: list[float]
    rank: int
    versus_best: PairedFoldTest | None = None


@dataclass(frozen=True)
class ModelGain(Part):
    """What the chosen model gains over another on the same folds: its mean CV score minus the other's, signed so
    that positive is better (a loss's difference is negated), with the corrected resampled t standard error, the 95%
    interval and the two-sided p-value."""

    model: str
    gain: float
    standard_error: float
    interval: list[float]
    p_value: float


@dataclass(frozen=True)
class Comparison(Part):
    """Models compared on the same folds (pipeline/steps/comparison.py), listed simplest first: the best, the one the
    rule chose, what it gains over the simplest and what the next simpler model would cost (None when the chosen is
    the simplest), and the models of model.name auto's set that the data's mode cannot fit."""

    rule: str
    best: str
    chosen: str
    runner_up: str | None
    simplest: str
    n_train: float
    n_test: float
    models: list[ComparedModel]
    gain_over_simplest: ModelGain | None
    next_simpler: ModelGain | None
    left_out: list[str]


@dataclass(frozen=True)
class ScoredTarget(Part):
    """The chosen model searched on one target (y, or log(y + c)): its best configuration and that configuration's
    fold scores on y's scale as the deployed regressor predicts (back-transformed, at least the floor)."""

    target: str
    params: JSON
    mean: float
    std: float
    valid_scores: list[float]


@dataclass(frozen=True)
class TargetComparison(Part):
    """The log target against y on the same folds (pipeline/steps/target_transform.py): log minus y, signed so that
    positive is better, with the corrected resampled t standard error, the 95% interval and the p-value."""

    scoring: str
    plain: ScoredTarget
    log: ScoredTarget
    gain: float
    standard_error: float
    interval: list[float]
    p_value: float


@dataclass(frozen=True, kw_only=True)
class TargetTransform(Part):
    """A regression target's scale (model.target_transform): as set, the target the model is fitted on, how its
    predictions come back to y's units (mean: Duan's smearing; median), the floor of every prediction (0 for a target
    never negative on the training rows; None), the sentence, and the comparison on the folds where it ran."""

    setting: str
    chosen: str  # none | log
    fitted_on: str  # y's name, log(y) or log(y + c)
    shift: float | None  # c, with the log target
    back_transform: str | None  # mean | median, with the log target
    floor: float | None
    statement: str
    comparison: TargetComparison = ABSENT


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
    best_params: JSON
    n_candidates: int
    n_folds: int
    not_converged: NotConverged
    baseline: Baseline
    comparison: Comparison | None  # with model.candidates or model.name auto
    target_transform: TargetTransform = ABSENT  # a regression target's scale


@dataclass(frozen=True)
class TimeAsFeature(Part):
    """data.time as a model feature (data.time_feature): what the feature is, and the training times it was fitted
    on (the final transformer's; shown as the report shows times), beyond which the model extrapolates."""

    column: str
    kind: str  # elapsed | index
    unit: str  # days (dates) | as in the file
    first: Any  # the first and last training time
    last: Any
    step: float  # the median step between consecutive distinct training times, in `unit`
    feature: str  # what the feature's value means, in words


@dataclass(frozen=True)
class FeaturesReport(Record):
    """The features: the raw columns, each split's fitted features, the final transformer's, pooled levels, the missing
    values filled, and the changes to the data they make (the model card's lines)."""

    json_file: ClassVar[Path] = paths.FEATURES_REPORT
    written_by: ClassVar[str] = "features"

    numeric: list[str]
    categorical: list[str]
    folds: JSON  # {split: {n_fit_rows, features[, selected]}}
    final: JSON  # {n_fit_rows, features}
    pooled_levels: JSON  # {column: {levels, pooled}}
    missing: JSON  # {column: {values, filled, indicator[, column]}}: the final fit's, counted in the training rows
    changes: list[Change]
    time: TimeAsFeature = ABSENT  # data.time_feature set: the time as a feature


@dataclass(frozen=True)
class Candidate(Part):
    """One configuration of the search: its fold scores (mllib.model_selection's result row)."""

    params: JSON
    rank: int
    train_scores: list[float]
    valid_scores: list[float]
    mean_train_score: float
    mean_valid_score: float
    std_valid_score: float
    not_converged: list[JSON]


@dataclass(frozen=True)
class SearchReport(Record):
    """Every candidate of the chosen model's search with its scores, and the best one."""

    json_file: ClassVar[Path] = paths.SEARCH_REPORT
    written_by: ClassVar[str] = "train"

    scoring: str
    greater_is_better: bool
    best_index: int
    candidates: list[Candidate]


@dataclass(frozen=True)
class FairnessBootstrap(Part):
    """How the fairness intervals were drawn (fairness.n_boot, fairness.confidence_level, the seed, data.group)."""

    n_boot: int
    confidence_level: float
    seed: int
    cluster: str | None
