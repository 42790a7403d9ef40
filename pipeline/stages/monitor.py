"""The monitor: is a new batch like the training data, and does the model keep its promises on it?

    python -m pipeline.stages.monitor BATCH_FILE     # or the monitor stage, with monitor.batch in params.yaml

The batch (a .csv, .csv.gz or .parquet file of raw rows, with or without the target) is checked against the
workspace's model, the one track registered (its version is named in the record):
1. the served model's input contract (pipeline/serving/contract.py): a batch the model would refuse stops here,
   with the contract's one line; the rows it would flag (beyond the training range, unseen categories) are counted;
2. drift against the training rows (pipeline/steps/drift.py): each feature column's values and missing share, in
   one Benjamini-Hochberg family at monitor.fdr; the domain classifier and the shift in what the model says
   (pipeline/steps/monitoring.py), their consequences, in another; both gated by one global test, so without drift
   the chance of any flag stays at most monitor.fdr;
3. with labels (compared as values: 1.0 is the class 1; labels the model was not trained on are named and fail the
   batch), the model card's promises on the batch (headline, calibration, coverage), each failing only beyond the
   batch's noise; without labels, the headline estimated from the calibrated probabilities (its interval counts the
   label noise only).
It writes reports/monitor.json and reports/monitor.html, logs an MLflow run tagged with the model version it checked
(the store guard as track's), and exits 1 with one line naming the first failed check (a drifted column, a broken
promise) for CI and schedulers; 0 when every check passes or is inconclusive (a test with too few rows to say
anything, e.g. the domain classifier below 20 rows a side, says so in the record). With monitor.batch null the stage
records that it checked nothing."""

from __future__ import annotations

import sys
from dataclasses import replace

from pipeline.core import paths
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError, run_stage
from pipeline.core.monitor_records import MonitorOff
from pipeline.reporting.monitor_page import write_monitor_page


def main(argv: list[str] | None = None) -> None:
    params = load_params()
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else params["monitor"]["batch"]
    if path is None:
        off = MonitorOff(
            statement="off: no batch (monitor.batch is null; or run python -m pipeline.stages.monitor FILE)"
        )
        off.write()
        write_monitor_page(off, paths.MONITOR_PAGE)
        print(f"monitor: {off.statement}")
        return
    # imported here: with no batch (the default) the stage costs a Python start, not the drift tests' imports
    from pipeline.steps.batch_check import check_batch
    from pipeline.tracking.monitor_run import check_predictor, log_monitor_run

    check_predictor(params)  # the predictor is the registered version's, or the batch would be blamed for an edit
    record = check_batch(params, path)

    record = replace(record, mlflow=log_monitor_run(params, record))
    record.write()
    write_monitor_page(record, paths.MONITOR_PAGE)
    print(f"monitor: {record.drift.statement}")
    if record.labels is not None and record.labels.statement:
        print(f"monitor: the promises on labelled rows: {record.labels.statement}")
    if record.estimate:
        print(f"monitor: {record.estimate.statement}")
    if record.failures:
        more = f" (and {len(record.failures) - 1} more: reports/monitor.json)" if len(record.failures) > 1 else ""
        raise PipelineError(f"monitor: {record.batch} FAILS: {record.failures[0]}{more}")
    print(f"monitor: {record.batch}: every check passes ({record.rows} rows; reports/monitor.html)")


if __name__ == "__main__":
    run_stage(main)
