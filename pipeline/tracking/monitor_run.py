"""The monitor's MLflow run: one run per checked batch in the pipeline's experiment, tagged with the registered model
version it checked (found by the pipeline state track recorded, reports/mlflow_run.json), its figures as metrics
(`monitor.*`) and reports/monitor.json as an artifact. The store is guarded as track guards it (pipeline/tracking/
store.py): the same store as the last run, still holding what the workspace wrote, a copy before and after."""

from __future__ import annotations

import hashlib
import json
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import paths
from ..core.errors import PipelineError
from ..core.json_types import JSON
from ..core.monitor_records import BatchCheck, TrackedState
from ..core.records import ABSENT
from . import store
from .naming import monitor_experiment
from .runs import experiment_id, find_state, one_line, repo_root, tracking_uri

if TYPE_CHECKING:
    from mlflow import MlflowClient
    from mlflow.entities.model_registry import ModelVersion


def monitor_metrics(record: BatchCheck) -> dict[str, float]:
    found = record.drift
    metrics: dict[str, float] = {
        "monitor.rows": record.rows,
        "monitor.flagged_rows": record.contract.flagged_rows,
        "monitor.drifted_columns": len(found.flagged),
        "monitor.failures": len(record.failures),
    }
    if found.domain_classifier.auc is not ABSENT:
        metrics["monitor.domain_auc"] = found.domain_classifier.auc
    for name, figure in (record.labels.metrics if record.labels else {}).items():
        if figure.value is not None:
            metrics[f"monitor.{name}"] = figure.value
    if record.estimate and record.estimate.estimate is not None:
        metrics[f"monitor.estimated_{record.estimate.metric}"] = record.estimate.estimate
    return metrics


def log_monitor_run(params: JSON, record: BatchCheck) -> dict[str, str | None]:
    """{"run_id", "version"} of the monitor's run (version: the model version checked, or None)."""
    warnings.filterwarnings("ignore", category=UserWarning, module=r"mlflow\.")
    import mlflow

    root, uri = repo_root(), tracking_uri(params["tracking"]["uri"])
    model = record.model
    with store.opened(root, uri, "monitor") as (ledger, opened):  # as track opens it: checked, pointed here
        client, db = opened.client, opened.db
        try:
            # the version is found in the pipeline's experiment (track's record); the run goes to the monitor's own
            version = registered_version(opened, model)
            experiment = monitor_experiment(model.experiment)
            exp_id = experiment_id(client, experiment, default_store=opened.default)
            store.backup(root, db)
            tags = {
                "pipeline.role": "monitor",
                "monitor.batch": Path(record.batch).name,
                "monitor.pipeline_state": model.pipeline_state,
                "monitor.registered_model": model.registered_model,
                "monitor.model_version": str(version.version) if version else "not registered in this store",
                "monitor.verdict": "fails" if record.failures else "passes",
            }
            with mlflow.start_run(
                experiment_id=exp_id, run_name=f"monitor {Path(record.batch).name}", tags=tags
            ) as run:
                run_id = run.info.run_id
                mlflow.log_metrics(monitor_metrics(record))
                with tempfile.TemporaryDirectory() as tmp:
                    report = Path(tmp) / "monitor.json"
                    report.write_text(
                        json.dumps({**record.to_json(), "mlflow": None}, indent=1, sort_keys=True, default=str)
                    )
                    mlflow.log_artifact(str(report))
        except PipelineError:
            raise
        except Exception as exc:
            raise PipelineError(
                f"monitor: cannot record the check in the MLflow store {uri} ({one_line(exc)}); reports/monitor.json "
                "is not written either: start the server or fix MLFLOW_TRACKING_URI / params.yaml tracking.uri"
            ) from None
        store.remember(ledger, opened.identity, run_id, model.registered_model, None)
        store.backup(root, db)
    return {"run_id": run_id, "version": str(version.version) if version else None}


def registered_version(opened: store.Opened, model: TrackedState) -> ModelVersion | None:
    """The registered version of the pipeline state track recorded (reports/mlflow_run.json), or None: not recorded
    in this store."""
    experiment = opened.client.get_experiment_by_name(model.experiment)
    if experiment is None:
        return None
    name = model.registered_model
    run = find_state(opened.client, experiment.experiment_id, name, model.pipeline_state).recorded
    versions = opened.client.search_model_versions(f"name = '{name}' and run_id = '{run.info.run_id}'") if run else []
    return versions[0] if versions else None


PREDICTOR_FILES = (paths.PREDICTOR.with_suffix(".json"), paths.PREDICTOR.with_suffix(".npz"))


def check_predictor(params: JSON) -> None:
    """Refuse a predictor (models/predictor.json, .npz) other than the registered version's: the monitor would check
    the batch with it, tag its run with that version and blame the batch for what the edit changed ("decided
    classes shifted"). The version's digests are what track recorded: the DVC md5 of each file, the run's
    dvc_md5s.json. A version that cannot be found, or a digest that cannot be read, fails closed."""
    warnings.filterwarnings("ignore", category=UserWarning, module=r"mlflow\.")
    model = TrackedState.read()
    root, uri = repo_root(), tracking_uri(params["tracking"]["uri"])
    with store.opened(root, uri, "monitor") as (_, opened):
        try:
            version = registered_version(opened, model)
            if version is None:
                raise PipelineError(
                    f"monitor: {PREDICTOR_FILES[0]} cannot be checked against a registered version: {uri} holds no "
                    f"version of pipeline state {model.pipeline_state} ({paths.MLFLOW_RUN}); run `dvc repro` to "
                    "record it"
                )
            assert version.run_id is not None  # found by its run_id
            recorded = recorded_md5s(opened.client, version.run_id)
        except PipelineError:
            raise
        except Exception as exc:
            raise store.unusable("monitor", uri, exc) from None
    for path in PREDICTOR_FILES:
        found = recorded.get(str(path))
        if found is None:
            raise PipelineError(
                f"monitor: {path} cannot be checked: track recorded no digest of it for {model.registered_model} "
                f"version {version.version} (dvc_md5s.json of run {version.run_id}); run `dvc repro` to record it"
            )
        if (md5 := file_md5(path)) != found:
            raise PipelineError(
                f"monitor: {path} is not the predictor of {model.registered_model} version {version.version} "
                f"(md5 {md5[:8]}, registered {found[:8]}); restore it with `dvc checkout --force "
                f"{PREDICTOR_FILES[0]} {PREDICTOR_FILES[1]}`, or `dvc repro` to rebuild it and record what it builds"
            )


def recorded_md5s(client: MlflowClient, run_id: str) -> dict[str, str]:
    """{path: md5} of the stage outputs as track recorded them for the run (its dvc_md5s.json: {"stage:path": md5})."""
    with tempfile.TemporaryDirectory() as tmp:
        local = client.download_artifacts(run_id, "dvc_md5s.json", tmp)
        md5s = json.loads(Path(local).read_text())
    return {key.split(":", 1)[1]: md5 for key, md5 in md5s.items()}


def file_md5(path: Path) -> str:
    """The file's md5 as DVC records it (`hash: md5`: the bytes' md5)."""
    if not path.is_file():
        raise PipelineError(
            f"monitor: {path} does not exist; `dvc checkout {path}` restores it, `dvc repro` rebuilds it"
        )
    digest = hashlib.md5()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
