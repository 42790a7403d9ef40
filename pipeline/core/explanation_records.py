"""The explain stage's reports as typed records: reports/importance.json (permutation importance of every raw
column, and the ones beyond their noise), reports/attributions.json (Shapley values, relevance for networks and the
global surrogate tree of the explained test rows) and reports/partial_dependence.json (one-way curves with their ICE
lines, and a two-way surface). The rows of per-feature tables stay mappings where their keys differ by kind (a
multiclass target adds per-class columns)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from . import paths
from .json_types import JSON
from .records import Part, Record


@dataclass(frozen=True)
class ImportanceRow(Part):
    """One raw column's drop of the score when shuffled: the mean over the repeats, its spread and interval."""

    feature: str
    mean: float
    std: Any  # None for one repeat
    ci_low: Any
    ci_high: Any
    repeats: list[float]


@dataclass(frozen=True)
class ImportanceReport(Record):
    json_file: ClassVar[Path] = paths.IMPORTANCE
    written_by: ClassVar[str] = "explain"
    when_set: ClassVar[tuple[str, ...]] = ("sample",)

    method: str
    scoring: str
    baseline: float
    n_repeats: int
    confidence_level: float
    interval: str
    decision: Any  # the decisions a label metric is scored on (decision.cost_matrix), or None
    beyond_noise: list[str]  # the columns whose importance exceeds its noise, largest first
    statement: str
    features: list[ImportanceRow]
    sample: str | None = None  # the test rows explained when explain.max_rows cut them


@dataclass(frozen=True)
class ShapleySummary(Part):
    """The explained rows' Shapley values, what they add up to and how exactly."""

    method: str
    output: str
    raw_columns: str
    per_class: bool
    expected_value: Any
    additivity_error_max: float
    additivity_error_max_relative: float
    features: list[JSON]  # {feature, mean_abs, mean[, mean_abs_per_class]}
    values: list[Any]
    standard_errors: Any
    background_mean: list[float] | None = None  # the linear form's encoded reference point (the served model's reasons)


@dataclass(frozen=True)
class RelevanceSummary(Part):
    """Layer-wise relevance of a network's outputs (explain.relevance)."""

    method: str
    output: str
    conservation_error_median: float | None
    features: list[JSON]


@dataclass(frozen=True)
class SurrogateRule(Part):
    conditions: list[str]  # in the file's own units and category names
    conditions_in_model_features: list[str]
    prediction: Any
    rows: int


@dataclass(frozen=True)
class Surrogate(Part):
    """A depth-limited tree fitted to the deployed predictor's outputs, with its fidelity on test and its rules."""

    max_depth: int
    fitted_rows: int
    fidelity: float
    fidelity_metric: str
    depth: int
    n_leaves: int
    rules: list[SurrogateRule]


@dataclass(frozen=True)
class ShapeFunction(Part):
    """One raw column's shape in an additive model: its values shown (raw units, or level names) and the model's
    addition for each (a list per class for K > 2), the bagging band, the addition for a missing value (None when
    the training rows hold none) and the mean |addition| over the training rows."""

    feature: str
    kind: str
    x: list[Any]
    value: list[Any]
    band: list[Any]
    missing: float | list[float] | None
    importance: float


@dataclass(frozen=True)
class PairTerm(Part):
    """A pairwise term of an additive model: its raw columns, the encoded columns it joins, its importance."""

    features: list[str]
    encoded: list[str]
    importance: float


@dataclass(frozen=True)
class ShapeFunctions(Part):
    """An additive model read term by term (pipeline/steps/shape_functions.py)."""

    output: str
    intercept: list[float]
    terms: list[ShapeFunction]
    pairs: list[PairTerm]
    statement: str


@dataclass(frozen=True)
class Attributions(Record):
    json_file: ClassVar[Path] = paths.ATTRIBUTIONS
    written_by: ClassVar[str] = "explain"
    when_set: ClassVar[tuple[str, ...]] = ("shapley", "relevance", "surrogate", "sample", "shape_functions")

    columns: list[str]
    classes: list[Any]
    rows: list[int]  # the explained rows, as positions in the test table
    n_background: int
    shapley: ShapleySummary | None = None  # explain.shapley: none leaves it out
    relevance: RelevanceSummary | None = None
    surrogate: Surrogate | None = None
    sample: str | None = None
    shape_functions: ShapeFunctions | None = None  # an additive model's terms


@dataclass(frozen=True)
class OneWayCurve(Part):
    """Partial dependence of the explained output on one column: the grid, the average and each row's ICE line."""

    feature: str
    grid: list[Any]
    average: list[Any]
    ice: list[Any]


@dataclass(frozen=True)
class TwoWaySurface(Part):
    features: list[str]
    grid: list[Any]
    average: list[Any]


@dataclass(frozen=True)
class PartialDependence(Record):
    """One-way (and two-way) partial dependence of the deployed output."""

    json_file: ClassVar[Path] = paths.PARTIAL_DEPENDENCE
    written_by: ClassVar[str] = "explain"

    one_way: list[OneWayCurve]
    two_way: TwoWaySurface | None
    output: str
    classes: list[Any]
