"""The assess stage's record (reports/assessment.json): how far to trust the CV score (leakage, temporal leakage,
single features, nested CV, the learning and validation curves); the mechanism is records.py's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from . import paths
from .json_types import JSON
from .records import Part, Record


@dataclass(frozen=True)
class Leakage(Part):
    """A row-level CV of the training rows beside the grouped CV's scores of the same rows: the inflation with its
    Welch interval and a sentence; or only the sentence saying why it was not estimated."""

    when_set: ClassVar[tuple[str, ...]] = ("row_level_mean", "grouped_mean", "inflation", "interval",
                                           "confidence_level", "row_level_scores", "grouped_scores")  # fmt: skip

    statement: str
    row_level_mean: float | None = None
    grouped_mean: float | None = None
    inflation: float | None = None
    interval: list[float] | None = None
    confidence_level: float | None = None
    row_level_scores: list[float] | None = None
    grouped_scores: list[float] | None = None


@dataclass(frozen=True)
class TemporalLeakage(Part):
    """data.time: random splits of the same rows minus the time-ordered ones, with a paired t interval; or why not."""

    when_set: ClassVar[tuple[str, ...]] = ("random_mean", "ordered_mean", "inflation", "interval", "confidence_level",
                                           "n_splits", "random_scores", "ordered_scores")  # fmt: skip

    statement: str
    random_mean: float | None = None
    ordered_mean: float | None = None
    inflation: float | None = None
    interval: list[float] | None = None
    confidence_level: float | None = None
    n_splits: int | None = None
    random_scores: list[float] | None = None
    ordered_scores: list[float] | None = None


@dataclass(frozen=True)
class SingleFeature(Part):
    """Each feature alone against assess.single_feature_bound; without a bound, only the sentence."""

    when_set: ClassVar[tuple[str, ...]] = ("metric", "bound", "scores", "legitimate")

    statement: str
    flagged: list[str]  # beyond the bound and not declared legitimate
    metric: str | None = None
    bound: float | None = None
    scores: dict[str, float] | None = None
    legitimate: list[str] | None = None


@dataclass(frozen=True)
class NestedCV(Part):
    """Nested CV around the whole selection; or only the sentence saying why it did not run."""

    when_set: ClassVar[tuple[str, ...]] = ("statement", "outer_scores", "inner_best_scores", "chosen_params",
                                           "models", "outer_mean", "outer_std", "inner_best_mean", "optimism",
                                           "inner_splits", "splits_left_out")  # fmt: skip

    statement: str | None = None
    outer_scores: list[float] | None = None
    inner_best_scores: list[float] | None = None
    chosen_params: list[JSON] | None = None
    models: list[str] | None = None
    outer_mean: float | None = None
    outer_std: float | None = None
    inner_best_mean: float | None = None
    optimism: float | None = None
    inner_splits: int | None = None
    splits_left_out: list[int] | None = None  # data.time: outer splits with too few distinct times for inner folds


@dataclass(frozen=True)
class CurveDiagnosis(Part):
    """high_variance | no_overfitting | inconclusive, with the figures and intervals behind the verdict."""

    outcome: str
    verdict: str
    train_valid_gap: float
    gap_interval: list[float]
    last_rise: float
    rise_interval: list[float]
    tolerance: float
    confidence_level: float


@dataclass(frozen=True)
class LearningCurve(Part):
    """Train and validation scores by fraction of the training rows, per split and averaged, diagnosed."""

    fractions: list[float]
    train_rows: list[int]
    train_mean: list[float]
    valid_mean: list[float]
    valid_std: list[float]
    train_per_split: list[list[float]]
    valid_per_split: list[list[float]]
    diagnosis: CurveDiagnosis


@dataclass(frozen=True)
class SweepNote(Part):
    """The validation curve's hyperparameter and values (the rows are reports/plots/hyperparameter_curve.json), or
    why it did not run."""

    when_set: ClassVar[tuple[str, ...]] = ("statement", "parameter", "values")

    statement: str | None = None
    parameter: str | None = None
    values: list[Any] | None = None


@dataclass(frozen=True)
class Assessment(Record):
    """How far to trust the score: leakage, single features, nested CV, the curves."""

    json_file: ClassVar[Path] = paths.ASSESSMENT
    written_by: ClassVar[str] = "assess"
    when_set: ClassVar[tuple[str, ...]] = ("sample",)

    scoring: str
    model: str
    best_params: JSON
    leakage: Leakage
    temporal_leakage: TemporalLeakage  # data.time: random splits of the same rows minus the time-ordered ones
    single_feature: SingleFeature
    nested: NestedCV
    learning_curve: LearningCurve | None
    validation_curve: SweepNote
    sample: str | None = None  # the training rows assessed when assess.max_rows cut them (whole groups)
