"""The monitor's record of one batch (pipeline/stages/monitor.py says what is checked): the served model's contract,
drift against the training rows with the shift in predictions, and the promises on labelled rows or the label-free
estimate; and the failed checks as one line each."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..core import paths
from ..core.errors import PipelineError
from ..core.evaluation_records import Drift
from ..core.frames import raw_matrix
from ..core.io import read_data_file, read_json, read_parquet, read_predictor
from ..core.monitor_records import BatchCheck, ContractFlags, Estimate
from ..core.records import FeaturesReport, TrainMetrics
from ..core.summaries import sensitive_groupings
from ..core.task import Target
from ..serving.contract import ContractError, serve
from ..serving.workspace import workspace_contract
from . import drift
from .measures import measure
from .monitoring import label_free_estimate, prediction_shift, promise_checks
from .row_outputs import row_outputs


def labelled_rows(batch: pd.DataFrame, target: Target, column: str) -> np.ndarray | None:
    """The rows whose target is known and one of the training classes (None: the batch has no labels)."""
    if column not in batch.columns or batch[column].isna().all():
        return None
    known = batch[column].notna().to_numpy().copy()
    if target.classes:  # a class the model was not trained on cannot be scored against
        known &= batch[column].astype(str).isin([str(c) for c in target.classes]).to_numpy()
    return np.flatnonzero(known) if known.sum() >= 2 else None


def check_batch(params: dict, path: str) -> BatchCheck:
    """The monitor's record of one batch (module docstring), without the MLflow run."""
    data, cfg, seed = params["data"], params["monitor"], params["seed"]
    if not Path(path).is_file():
        raise PipelineError(f"monitor: batch file {path} does not exist; pass a .csv, .csv.gz or .parquet file of rows")
    batch, source = read_data_file(Path(path), data["categorical"]), Path(path)
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
    shift = prediction_shift(target, predictor, read_parquet(paths.TEST_PREDICTIONS, "evaluate"), served)
    time = inputs.time.column if inputs.time else None  # not a drift test column (pipeline/steps/drift.py)
    extra = {"predictions": shift}
    drifted = drift.compare(train, batch, numeric, categorical, cfg, seed, "batch rows", data["group"], extra, time)
    model = read_json(paths.MLFLOW_RUN, "track")
    flagged = ContractFlags(
        ignored_columns=[str(c) for c in ignored],
        flagged_rows=int((flags != "").sum()),
        flags={f: int(n) for f, n in flags[flags != ""].value_counts().items()},
    )
    labelled = labelled_rows(batch, target, data["target"])
    test = read_json(paths.TEST_METRICS, "evaluate")
    labels: dict | None = None
    checks, estimate = list[dict](), None
    if labelled is None:
        outputs = row_outputs(target, predictor, _matrix(batch, contract))
        estimate = Estimate(**label_free_estimate(target, predictor, outputs, seed))
    else:
        rows = batch.iloc[labelled].reset_index(drop=True)
        y = target.encode(rows[data["target"]])
        y_train = target.encode(read_parquet(paths.TRAIN, "split", columns=[data["target"]])[data["target"]])
        outputs = row_outputs(target, predictor, _matrix(rows, contract))
        clusters = rows[data["group"]].to_numpy() if data["group"] and data["group"] in rows else None
        groupings = sensitive_groupings(rows, [s for s in data["sensitive"] if s in rows])
        measured, _, _ = measure(
            target, params, predictor, outputs, y, y_train, TrainMetrics.read(), clusters, groupings
        )
        labels = {"rows": len(labelled), "metrics": _headline(measured, target)}  # LabelledRows, read by BatchCheck.of
        P = predictor.proba_from_scores(outputs["scores"]) if "scores" in outputs else None
        checks = promise_checks(target, measured, test, params, P, seed)
    found = Drift.from_json(drifted, "the batch's drift check", "monitor")
    checked = dict(batch=str(source), rows=len(batch), model=model, contract=flagged, drift=found, labels=labels)
    judged = {"checks": checks, "failures": failures(found, checks), "estimate": estimate, "mlflow": None}
    return BatchCheck.of({**checked, **judged})  # the MLflow run is logged once the check is written


def _matrix(frame: pd.DataFrame, contract):
    return raw_matrix(frame, contract.numeric, contract.categorical)


def _headline(metrics: dict, target: Target) -> dict:
    figures = metrics["bootstrap"]["figures"]
    return {name: figures[name] for name in (target.headline_metric, "ece", "coverage") if name in figures}


def failures(found: Drift, checks: list[dict]) -> list[str]:
    """One line per failed check, the drifted columns first (the strongest first)."""
    out = []
    for column in sorted(found.flagged, key=lambda c: found.columns[c].adjusted_p_value):
        r = found.columns[column]
        out.append(f"column {column!r} drifted ({r.test}, adjusted p {r.adjusted_p_value:.2g})")
    for name, r in found.extra.items():
        if r.flagged:
            out.append(f"the model's {r.of} shifted ({r.test}, adjusted p {r.adjusted_p_value:.2g})")
    domain = found.domain_classifier
    if domain.not_evaluated:  # a check that applies and cannot be computed fails closed
        out.append(f"the domain classifier is {domain.statement} (monitor.domain_classifier: none to go without)")
    if domain.flagged:
        out.append(f"a classifier tells the batch from the training rows (AUC {domain.auc:.3f})")
    out += [f"{c['check']}: {c['value']:.4g} (bound {c['bound']:.4g}; {c['note']})" for c in checks
            if not c["passed"]]  # fmt: skip
    return out
