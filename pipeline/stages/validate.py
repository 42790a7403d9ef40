"""The validate stage: the raw data against its schema. Valid rows go on; rows breaking a domain check are
quarantined with their reasons or stop the stage (validate.on_invalid); fractional values in 0/1 columns
follow validate.fractional_binary, rows without a target validate.missing_target (quarantined by default: nothing
to train or score them on), missing sensitive values validate.missing_sensitive (audited as their own group by
default). Nothing is silently lost: rows in = rows kept + rows quarantined. The task
(data.task, or inferred from the target with the reason) and the classes are reported.

data.path is a file, or a directory of parts (pipeline/core/partitions.py): read as one table in memory, or with
compute.backend: dask checked part by part on the cluster, the outputs then directories of parts; the same rows are
kept and quarantined either way (pipeline/steps/validation.py does the work)."""

from __future__ import annotations

from pathlib import Path

from pipeline.core import paths
from pipeline.core.compute import dask_client
from pipeline.core.config import load_params
from pipeline.core.data_files import read_data
from pipeline.core.errors import run_stage
from pipeline.core.io import write_parquet
from pipeline.core.json_types import JSON
from pipeline.core.partitions import (
    InMemory,
    Mode,
    OnParts,
    data_mode,
    per_mode,
    raw_parts,
    scratch_directory,
    staged_outputs,
)
from pipeline.core.records import ValidationReport
from pipeline.core.schema import build_schema, check_columns, check_schema_location, top_codes
from pipeline.core.timeline import time_report
from pipeline.steps.validation import check_parts, check_rows, validation_report


@per_mode
def validated(mode: Mode, params: JSON) -> tuple[ValidationReport, str]:
    """(the validation report, where the rows were checked) of the rows checked in the run's mode."""


@validated.register
def _on_parts(mode: OnParts, params: JSON) -> tuple[ValidationReport, str]:
    data, policy = params["data"], params["validate"]
    outputs = {"validated": paths.VALIDATED, "quarantine": paths.QUARANTINE}
    with (
        dask_client(params["compute"]) as client,
        scratch_directory(paths.VALIDATED) as scratch,
        staged_outputs(outputs) as staged,
    ):
        parts = raw_parts(client, data["path"], data["categorical"], Path(scratch))
        source = parts.source(data["path"])
        check_columns(parts, data)
        schema = build_schema(parts, data, policy["extreme_factor"])
        top_coded = top_codes(parts, schema, data, policy["extreme_factor"])
        checked = check_parts(client, parts, staged, schema, data, policy, source)
        time = time_report(parts.read(0), data, source)  # the first part: where dates and names show
        if time.get("note"):
            print(f"validate: note: {time['note']}")
        summary = validation_report(checked, data, policy, source, len(parts.columns), time, top_coded)
    return summary, f" in {len(parts.files)} parts"


@validated.register
def _in_memory(mode: InMemory, params: JSON) -> tuple[ValidationReport, str]:
    data, policy = params["data"], params["validate"]
    raw, source = read_data(data["path"], data["categorical"])
    check_columns(raw, data)
    time = time_report(raw, data, source)
    if time.get("note"):  # before the schema's checks: an undeclared date column fails them
        print(f"validate: note: {time['note']}")
    schema = build_schema(raw, data, policy["extreme_factor"])
    top_coded = top_codes(raw, schema, data, policy["extreme_factor"])
    checked = check_rows(raw, schema, data, policy, source)
    summary = validation_report(checked, data, policy, source, raw.shape[1], time, top_coded)  # refuses bad rows first
    write_parquet(checked.kept, paths.VALIDATED)
    write_parquet(checked.quarantine, paths.QUARANTINE)
    return summary, ""


def main() -> None:
    params = load_params()
    data = params["data"]
    check_schema_location(data)
    summary, where = validated(data_mode(params), params)
    summary.write()
    for top in summary.top_codes or []:
        print(f"validate: note: {top.note}")
    print(
        f"validate: {summary.rows_kept} rows kept, {summary.rows_quarantined} quarantined of {summary.rows_in}"
        f"{where}; {summary.task} target {data['target']!r} ({summary.task_reason})"
    )


if __name__ == "__main__":
    run_stage(main)
