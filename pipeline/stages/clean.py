"""The clean stage: deterministic row-wise fixes that need no fitting (seed 004, D4:810-845): declared leakage
columns dropped, impossible values made missing, exact duplicates removed where the data says they are one record,
outliers flagged / clipped / removed at thresholds fixed in params.yaml (never learned from the data, so the test rows
cannot leak in); pipeline/steps/cleaning.py does the work (pipeline/steps/partitioned_cleaning.py part by part when
validate wrote parts). Every change is a record in reports/cleaning.json (`changes`) with its count and, for removed
rows, the target's distribution before and after; the model card lists them.

Sections cited: Ghent ML notes (seed 004): 5.1 DP: Cleaning (810)"""

from __future__ import annotations

from pipeline.core import paths
from pipeline.core.compute import dask_client
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.io import read_parquet, write_parquet
from pipeline.core.json_types import JSON
from pipeline.core.partitions import InMemory, Mode, OnParts, Parts, data_mode, per_mode, staged_outputs
from pipeline.core.records import CleaningReport, ValidationReport
from pipeline.core.task import Target
from pipeline.steps.cleaning import Cleaned, clean, cleaning_report
from pipeline.steps.partitioned_cleaning import clean_parts


@per_mode
def cleaned(mode: Mode, params: JSON, target: Target) -> tuple[CleaningReport, Cleaned]:
    """(cleaning.json's report, what the cleaning did) with the clean rows written, in the run's mode."""


@cleaned.register
def _on_parts(mode: OnParts, params: JSON, target: Target) -> tuple[CleaningReport, Cleaned]:
    data, cfg = params["data"], params["clean"]
    with dask_client(params["compute"]) as client, staged_outputs({"clean": paths.CLEAN}) as staged:
        done = clean_parts(client, Parts.output(paths.VALIDATED, "validate"), staged, data, cfg, target)
        return cleaning_report(done, data, cfg, target), done


@cleaned.register
def _in_memory(mode: InMemory, params: JSON, target: Target) -> tuple[CleaningReport, Cleaned]:
    data, cfg = params["data"], params["clean"]
    df, done = clean(read_parquet(paths.VALIDATED, "validate"), data, cfg, target)
    report = cleaning_report(done, data, cfg, target)
    write_parquet(df.reset_index(drop=True), paths.CLEAN)
    return report, done


def main() -> None:
    params = load_params()
    data = params["data"]
    validation = ValidationReport.read()
    target = Target(validation.task, data["target"], validation.classes, validation.task_reason)  # type: ignore[abstract]
    report, done = cleaned(data_mode(params, paths.VALIDATED), params, target)
    report.write()
    duplicates = report.duplicate_rows
    kept = "kept: no id column (data.group) says they are one record (clean.drop_duplicate_rows: true removes them)"
    print(
        f"clean: {report.rows_out} of {report.rows_in} rows, {done.columns_out} columns; duplicate columns "
        f"removed {list(report.duplicate_columns_removed or {})}; {duplicates.rows} rows repeat an earlier "
        f"row, {'removed' if duplicates.action == 'removed' else kept}"
    )


if __name__ == "__main__":
    run_stage(main)
