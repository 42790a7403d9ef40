"""fairness.json as a typed record, one per task kind (`Target.fairness_record`): the audit of every grouping (each
sensitive attribute and every intersection of them, mllib.fairness' audits), the per-group thresholds and the
reweighing. A key only some runs write (a refit not asked for, a mitigation that could not be fitted, intervals
without replicates) defaults to ABSENT: read it where its variant is known (after `applied`, `refit`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from . import paths
from .json_types import JSON
from .records import ABSENT, FairnessBootstrap, Part, Record


@dataclass(frozen=True)
class AuditBootstrap(Part):
    """How one grouping's intervals were drawn."""

    n_boot: int
    confidence_level: float
    random_state: int | str | None
    unit: str  # "row" | "cluster"
    n_units: int


# ---- binary: rates, criteria, which can hold together ----


@dataclass(frozen=True, kw_only=True)
class BinaryGroup(Part):
    """One group's counts and rates with their intervals ({rate: [lower, upper]}), flagged when below
    fairness.min_group_size; `undefined` names the rates without a value (0 / 0)."""

    n: int
    n_pos: int
    n_neg: int
    base_rate: float
    selection_rate: float
    tpr: float
    fpr: float
    precision: float
    accuracy: float
    calibration_error: float = ABSENT  # with probabilities only
    small: bool
    undefined: list[str]
    intervals: JSON


@dataclass(frozen=True)
class BinaryCriterion(Part):
    """A parity criterion over the groups large enough: max - min and min / max of its rates, with intervals; why it
    is undefined (`reason`) and which groups it leaves out."""

    metrics: list[str]
    difference: float
    ratio: float
    defined: bool
    ratio_defined: bool
    reason: str | None
    per_metric: JSON  # {rate: {max_group, min_group, n_defined}}
    excluded_groups: list[str]
    difference_interval: list[float] | None
    ratio_interval: list[float] | None


@dataclass(frozen=True)
class PossibleSet(Part):
    possible: bool
    condition: str


@dataclass(frozen=True, kw_only=True)
class Compatibility(Part):
    """Which criteria can hold together given the groups' base rates (fewer than two groups: the statement only)."""

    groups: list[str]
    statement: str
    equal_base_rates: bool = ABSENT
    base_rates: list[float] = ABSENT
    sets: dict[str, PossibleSet] = ABSENT


@dataclass(frozen=True, kw_only=True)
class BinaryAudit(Part):
    groups: dict[str, BinaryGroup]
    small_groups: list[str]
    criteria: dict[str, BinaryCriterion]
    bootstrap: AuditBootstrap
    binning: JSON = ABSENT  # {n_bins, strategy} of the per-group calibration error, with probabilities
    compatibility: Compatibility


# ---- multiclass: per class, macro gaps ----


@dataclass(frozen=True)
class ClassRates(Part):
    base_rate: float
    selection_rate: float
    recall: float


@dataclass(frozen=True, kw_only=True)
class MulticlassGroup(Part):
    """One group's accuracy and per-class rates; intervals ({accuracy: [..], class: {rate: [..]}}) with replicates."""

    n: int
    small: bool
    accuracy: float
    classes: dict[str, ClassRates]
    intervals: JSON = ABSENT


@dataclass(frozen=True, kw_only=True)
class MulticlassCriterion(Part):
    """A rate's gap over the groups: the macro mean over classes of each class's max - min (accuracy: one gap)."""

    metric: str
    difference: float
    difference_interval: list[float] | None
    per_class: JSON = ABSENT
    defined: bool = ABSENT
    reason: str | None = ABSENT


@dataclass(frozen=True)
class MulticlassAudit(Part):
    groups: dict[str, MulticlassGroup]
    small_groups: list[str]
    criteria: dict[str, MulticlassCriterion]
    bootstrap: AuditBootstrap


# ---- regression: errors, bias, coverage ----


@dataclass(frozen=True, kw_only=True)
class RegressionGroup(Part):
    n: int
    small: bool
    mae: float
    rmse: float
    mean_residual: float
    mean_prediction: float
    mean_target: float
    interval_coverage: float
    intervals: JSON = ABSENT


@dataclass(frozen=True)
class Gap(Part):
    """max - min of a figure over the groups large enough, with its interval."""

    difference: float
    difference_interval: list[float] | None


@dataclass(frozen=True)
class RegressionGaps(Part):
    """Each figure's max - min over the groups large enough."""

    mae: Gap
    rmse: Gap
    mean_residual: Gap
    mean_prediction: Gap
    mean_target: Gap
    interval_coverage: Gap

    def items(self) -> list[tuple[str, Gap]]:
        """(figure, gap) in the file's order."""
        return sorted((name, getattr(self, name)) for name in self.field_names())


@dataclass(frozen=True)
class RegressionAudit(Part):
    groups: dict[str, RegressionGroup]
    small_groups: list[str]
    gaps: RegressionGaps
    largest_gap: str | None
    bootstrap: AuditBootstrap


# ---- the mitigations, judged on test ----


WIDENS = "widens the gap on test: not a fix"


def widening(gap_before: float, gap_after: float) -> str:
    """What a mitigation did on test when it widened the gap it was fitted to close ('' when it did not): it is
    reported as such, never offered as the fix."""
    undefined = gap_before is None or gap_after is None or math.isnan(gap_before) or math.isnan(gap_after)
    return "" if undefined or gap_after <= gap_before else f" ({WIDENS})"


@dataclass(frozen=True)
class GapChange(Part):
    """A criterion's gap before (one threshold, or the deployed model) and after the mitigation."""

    gap_before: float
    gap_after: float


@dataclass(frozen=True)
class GapAndAccuracy(Part):
    gap_before: float
    gap_after: float
    accuracy_before: float
    accuracy_after: float
    accuracy_cost: float


@dataclass(frozen=True, kw_only=True)
class AttributeThresholds(Part):
    """One attribute's per-group thresholds (None: never positive), fitted out of fold and judged on test; or why
    they could not be fitted."""

    applied: bool
    reason: str = ABSENT
    thresholds: dict[str, float | None] = ABSENT
    fitted_oof: GapAndAccuracy = ABSENT
    test: GapAndAccuracy = ABSENT
    test_every_criterion: dict[str, GapChange] = ABSENT


@dataclass(frozen=True, kw_only=True)
class Mitigation(Part):
    """The per-group thresholds for fairness.mitigation.criterion ("none": nothing else), or why not defined."""

    criterion: str
    applied: bool = ABSENT
    reason: str = ABSENT
    tolerance: float = ABSENT
    fitted_on: str = ABSENT
    judged_on: str = ABSENT
    attributes: dict[str, AttributeThresholds] = ABSENT


@dataclass(frozen=True)
class ReweighedTest(Part):
    """The reweighed refit on test: accuracy before and after, each grouping's criteria gaps before and after."""

    accuracy_before: float
    accuracy_after: float
    accuracy_cost: float
    attributes: dict[str, dict[str, GapChange]]


@dataclass(frozen=True, kw_only=True)
class Reweighing(Part):
    """Kamiran-Calders weights of the training rows by the intersection `groups` and, when `refit`, the deployed
    model refitted with them and judged on test (or why it could not be; regression: why not defined)."""

    refit: bool
    groups: str = ABSENT
    weights: dict[str, dict[str, float]] = ABSENT  # {group: {label: weight}}
    model: str = ABSENT
    params: JSON = ABSENT
    applied: bool = ABSENT
    reason: str = ABSENT
    scored_through: str = ABSENT
    judged_on: str = ABSENT
    test: ReweighedTest = ABSENT


# ---- the file, per kind ----


@dataclass(frozen=True)
class FairnessReport(Record):
    """The audit of the deployed test decisions (or errors) by group, the mitigations (reweighing None: no
    sensitive attribute to weigh by)."""

    json_file: ClassVar[Path] = paths.FAIRNESS_METRICS
    written_by: ClassVar[str] = "fairness"

    task: str
    decision_rule: str | None
    decision_threshold: float | None
    min_group_size: int
    bootstrap: FairnessBootstrap
    attributes: dict[str, Any]  # {grouping: its audit}, the kind's Part
    mitigation: Mitigation
    reweighing: Reweighing | None
    favourable_label: Any = None  # binary: the label whose rates the audit compares (fairness.favourable_label)


@dataclass(frozen=True)
class BinaryFairness(FairnessReport):
    attributes: dict[str, BinaryAudit]


@dataclass(frozen=True)
class MulticlassFairness(FairnessReport):
    attributes: dict[str, MulticlassAudit]


@dataclass(frozen=True)
class RegressionFairness(FairnessReport):
    attributes: dict[str, RegressionAudit]
