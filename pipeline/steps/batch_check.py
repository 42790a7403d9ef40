"""The monitor's record of one batch (pipeline/stages/monitor.py says what is checked): the served model's contract,
drift against the training rows with the shift in predictions, and the promises on labelled rows or the label-free
estimate; and the failed checks as one line each."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core import paths
from ..core.data_files import read_data_file
from ..core.errors import PipelineError
from ..core.evaluation_records import Drift
from ..core.frames import raw_matrix
from ..core.io import read_json, read_parquet, read_predictor
from ..core.json_types import JSON
from ..core.monitor_records import BatchCheck, ContractFlags, Estimate, TrackedState, most_drifted_first
from ..core.records import FeaturesReport, TrainMetrics, present
from ..core.summaries import sensitive_groupings
from ..core.task import Target
from ..core.task_base import label_key
from ..serving.contract import ContractError, serve
from ..serving.workspace import workspace_contract
from . import drift
from .measures import measure
from .monitoring import label_free_estimate, prediction_shift, promise_checks
from .row_outputs import row_outputs

if TYPE_CHECKING:
    from mllib.base import MixedMatrix
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

    from ..serving.contract import InputContract

MIN_LABELLED_ROWS = 2  # the promises' figures (an AUC, a coverage) need at least this many labelled rows


@dataclass(frozen=True)
class BatchLabels:
    """The batch's target column read as labels: the rows whose label is one of the model's classes (compared as
    values: 1, 1.0 and "1" are one class), and the labels it was not trained on, spelled once each with their
    rows."""

    rows: np.ndarray
    unseen: dict[str, int]


def batch_labels(batch: pd.DataFrame, target: Target, column: str) -> BatchLabels | None:
    """The batch's labels (None: it has no target column, or every value is missing)."""
    if column not in batch.columns or batch[column].isna().all():
        return None
    values = batch[column]
    known = values.notna().to_numpy()
    if target.classes:
        keys = values.map(label_key, na_action="ignore")
        foreign = known & ~keys.isin([label_key(c) for c in target.classes]).to_numpy()
    else:  # a number: a value that is not one cannot be scored against
        foreign = known & pd.to_numeric(values, errors="coerce").isna().to_numpy()
        keys = values.astype(str)
    unseen = keys[foreign].value_counts()
    return BatchLabels(np.flatnonzero(known & ~foreign), {str(k): int(n) for k, n in unseen.items()})


def _read_batch(path: str, data: JSON) -> pd.DataFrame:
    """The batch file's rows; a file that cannot be read is one line naming it (the batch is named by the monitor's
    argument or monitor.batch, not by data.path)."""
    if not Path(path).is_file():
        raise PipelineError(f"monitor: batch file {path} does not exist; pass a .csv, .csv.gz or .parquet file of rows")
    try:
        return read_data_file(Path(path), data["categorical"])
    except PipelineError as exc:
        where = "pass the monitor (its argument, or monitor.batch)"
        raise PipelineError(f"monitor: batch {str(exc).replace('point data.path at', where)}") from None


def _prediction_shift(
    target: Target,
    predictor: DeployedPredictor | DeployedRegressor,
    batch: pd.DataFrame,
    served: pd.DataFrame,
    group: str | None,
    seed: int,
) -> JSON:
    """The shift in what the model says, one row per data.group id on each side (as the columns' tests: a person's
    years, or a file's rows repeated, are one draw)."""
    rng = np.random.default_rng([seed, 46])
    said = read_parquet(paths.TEST_PREDICTIONS, "evaluate")
    if group:
        ids = read_parquet(paths.TEST, "split", columns=[paths.ROW_ID, group])
        said = said.merge(ids, on=paths.ROW_ID, how="left", validate="one_to_one")
    test_rows = drift.one_row_per_group(said, group, rng)
    batch_rows = drift.one_row_per_group(batch, group, rng)
    return prediction_shift(target, predictor, said.iloc[test_rows], served.iloc[batch_rows], seed)


def check_batch(params: JSON, path: str) -> BatchCheck:
    """The monitor's record of one batch (module docstring), without the MLflow run."""
    data, cfg, seed = params["data"], params["monitor"], params["seed"]
    batch, source = _read_batch(path, data), Path(path)
    target = Target.read(paths.TARGET)
    predictor = read_predictor(paths.PREDICTOR)
    contract = workspace_contract(params)
    try:
        served, ignored = serve(predictor, contract, batch)
    except ContractError as exc:
        raise PipelineError(f"monitor: {source}: the served model would refuse this batch: {exc}") from None
    flags = served["flags"].astype(str)
    inputs = FeaturesReport.read()
    numeric, categorical = inputs.numeric, inputs.categorical
    group = [data["group"]] if data["group"] else []
    train = read_parquet(paths.TRAIN, "split", columns=[*numeric, *categorical, *group])
    shift = _prediction_shift(target, predictor, batch, served, data["group"], seed)
    time = inputs.time.column if inputs.time else None  # not a drift test column (pipeline/steps/drift.py)
    extra = {"predictions": shift}
    drifted = drift.compare(train, batch, numeric, categorical, cfg, seed, "batch rows", data["group"], extra, time)
    model = TrackedState.read()
    flagged = ContractFlags(
        ignored_columns=[str(c) for c in ignored],
        flagged_rows=int((flags != "").sum()),
        flags={f: int(n) for f, n in flags[flags != ""].value_counts().items()},
    )
    read = batch_labels(batch, target, data["target"])
    test = read_json(paths.TEST_METRICS, "evaluate")
    labels: JSON | None = None
    checks, estimate = list[JSON](), None
    if read is not None:
        labels = {"rows": len(read.rows), "metrics": {}, "unseen": read.unseen or None}
    if read is None or len(read.rows) < MIN_LABELLED_ROWS:
        outputs = row_outputs(target, predictor, _matrix(batch, contract))
        estimate = Estimate(**label_free_estimate(target, predictor, outputs, seed))
    if read is not None and len(read.rows) < MIN_LABELLED_ROWS:
        labels = {**(labels or {}), "statement": _too_few_labels(len(read.rows))}
    elif read is not None:
        labelled = read.rows
        rows = batch.iloc[labelled].reset_index(drop=True)
        y = target.encode(rows[data["target"]])
        y_train = target.encode(read_parquet(paths.TRAIN, "split", columns=[data["target"]])[data["target"]])
        outputs = row_outputs(target, predictor, _matrix(rows, contract))
        clusters = rows[data["group"]].to_numpy() if data["group"] and data["group"] in rows else None
        groupings = sensitive_groupings(rows, [s for s in data["sensitive"] if s in rows])
        measured, _, _ = measure(
            target, params, predictor, outputs, y, y_train, TrainMetrics.read(), clusters, groupings
        )
        labels = {**(labels or {}), "metrics": _headline(measured, target)}  # LabelledRows, read by BatchCheck.of
        P = predictor.proba_from_scores(outputs["scores"]) if "scores" in outputs else None
        checks = promise_checks(target, measured, test, params, P, seed)
    found = Drift.from_json(drifted, "the batch's drift check", "monitor")
    checked = dict(batch=str(source), rows=len(batch), model=model, contract=flagged, drift=found, labels=labels)
    unseen = read.unseen if read is not None else {}
    judged = {"checks": checks, "failures": failures(found, checks, unseen, target, data["target"]),
              "estimate": estimate, "mlflow": None}  # fmt: skip
    return BatchCheck.of({**checked, **judged})  # the MLflow run is logged once the check is written


def _matrix(frame: pd.DataFrame, contract: InputContract) -> MixedMatrix:
    return raw_matrix(frame, contract.numeric, contract.categorical)


def _headline(metrics: JSON, target: Target) -> JSON:
    figures = metrics["bootstrap"]["figures"]
    return {name: figures[name] for name in (target.headline_metric, "ece", "coverage") if name in figures}


def _too_few_labels(n: int) -> str:
    return (
        f"not evaluated: {n} labelled row{'s' if n != 1 else ''}, fewer than {MIN_LABELLED_ROWS}: the promises need "
        "more (the headline is estimated without labels)"
    )


def _unseen_line(unseen: dict[str, int], target: Target, column: str) -> str:
    shown = ", ".join(f"{label!r} ({n} rows)" for label, n in list(unseen.items())[:3])
    more = f" and {len(unseen) - 3} more" if len(unseen) > 3 else ""
    expected = f"its classes {target.classes}" if target.classes else "numbers"
    return f"target {column!r} holds labels the model was not trained on: {shown}{more}, not {expected}"


def failures(found: Drift, checks: list[JSON], unseen: dict[str, int], target: Target, column: str) -> list[str]:
    """One line per failed check, the drifted columns first (the strongest first); labels the model was not trained
    on fail too (they cannot be checked, and a labelled batch is never quietly judged as unlabelled). A check with too
    few rows to say anything (the domain classifier below 20 rows a side) is inconclusive: its record says so."""
    out = []
    for column_name in most_drifted_first({c: found.columns[c].to_json() for c in found.flagged}):
        r = found.columns[column_name]
        reason = drift.drift_reason(r.test, r.missing_share, present(r.values_p_value), present(r.missing_p_value))
        out.append(f"column {column_name!r} drifted ({reason}, adjusted p {r.adjusted_p_value:.2g})")
    for r in found.extra.values():
        if r.flagged:
            out.append(f"the model's {r.of} shifted ({r.test}, adjusted p {r.adjusted_p_value:.2g})")
    domain = found.domain_classifier
    if domain.flagged:
        out.append(f"a classifier tells the batch from the training rows (AUC {domain.auc:.3f})")
    if unseen:
        out.append(_unseen_line(unseen, target, column))
    out += [f"{c['check']}: {c['value']:.4g} (bound {c['bound']:.4g}; {c['note']})" for c in checks
            if not c["passed"]]  # fmt: skip
    return out
