"""Every file the report reads (paths.REPORT_INPUTS) as one value: the typed records as theirs
(pipeline/core/records.py; test.json as the kind's record, pipeline/core/evaluation_records.py), the files without a
record as their JSON, and the run's provenance, which the report stage adds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from . import paths
from .assessment_records import Assessment
from .evaluation_records import CalibrationReport, EvaluationReport
from .explanation_records import Attributions, ImportanceReport, PartialDependence
from .fairness_records import FairnessReport
from .io import read_json
from .json_types import JSON
from .records import (
    CleaningReport,
    FeaturesReport,
    Record,
    SearchReport,
    SplitReport,
    TrainMetrics,
    ValidationReport,
)
from .task import Target

E = TypeVar("E")

RECORDS: dict[str, type[Record]] = {  # by their names in the report's inputs; test and calibration: the kind's
    "validation": ValidationReport,
    "cleaning": CleaningReport,
    "split": SplitReport,
    "features": FeaturesReport,
    "search": SearchReport,
    "train": TrainMetrics,
    "assessment": Assessment,
    "importance": ImportanceReport,
    "attributions": Attributions,
    "partial_dependence": PartialDependence,
}


@dataclass(frozen=True)
class ReportInputs:
    """Every file the report reads (paths.REPORT_INPUTS), by name: the records as theirs, the others as their JSON;
    and the run's provenance, which the report stage adds."""

    validation: ValidationReport
    target: Target
    cleaning: CleaningReport
    split: SplitReport
    features: FeaturesReport
    search: SearchReport
    train: TrainMetrics
    validation_curve: list[JSON]
    assessment: Assessment
    learning_curve: list[JSON]
    hyperparameter_curve: list[JSON]
    calibration: CalibrationReport  # the kind's own (Target.calibration_record)
    reliability_oof: list[JSON]
    test: EvaluationReport  # the kind's own (Target.test_record)
    roc: list[JSON]
    pr: list[JSON]
    reliability_test: list[JSON]
    risk_coverage: list[JSON]
    residuals: list[JSON]
    fairness: FairnessReport  # the kind's own (Target.fairness_record)
    importance: ImportanceReport
    attributions: Attributions
    partial_dependence: PartialDependence
    params_sha256: str = ""  # the params sections that shape the outputs (pipeline/core/provenance.py)
    code_trees: dict[str, str | None] = field(default_factory=dict)

    def test_as(self, record: type[E]) -> E:
        """test.json as the record of the page's kind (the report picks the page by the kind, which names the
        record: Target.test_record)."""
        return _as_kind(self.test, record)

    def calibration_as(self, record: type[E]) -> E:
        """calibration.json as the record of the page's kind (Target.calibration_record)."""
        return _as_kind(self.calibration, record)

    def fairness_as(self, record: type[E]) -> E:
        """fairness.json as the record of the page's kind (Target.fairness_record)."""
        return _as_kind(self.fairness, record)


def _as_kind(read: Record, record: type[E]) -> E:
    if not isinstance(read, record):
        raise TypeError(f"{read.json_file} was read as {type(read).__name__}, not {record.__name__}")
    return read


def report_inputs() -> ReportInputs:
    """Every file the report reads, the records checked against their fields."""
    read: dict[str, Any] = {
        name: RECORDS[name].read() if name in RECORDS else read_json(path, stage)
        for name, (path, stage) in paths.REPORT_INPUTS.items()
        if name not in ("target", "test", "calibration", "fairness")
    }
    target = Target.read(paths.TARGET)
    return ReportInputs(
        target=target,
        test=target.test_record.read(),
        calibration=target.calibration_record.read(),
        fairness=target.fairness_record.read(),
        **read,
    )
