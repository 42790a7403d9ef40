"""The monitor's MLflow run: one run per checked batch in the pipeline's experiment, tagged with the registered model
version it checked (found by the pipeline state track recorded, reports/mlflow_run.json), its figures as metrics
(`monitor.*`) and reports/monitor.json as an artifact. The store is guarded as track guards it (pipeline/tracking/
store.py): the same store as the last run, still holding what the workspace wrote, a copy before and after."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

from ..core.errors import PipelineError
from ..core.monitor_records import BatchCheck
from ..core.records import ABSENT
from . import store
from .naming import monitor_experiment
from .runs import experiment_id, find_state, one_line, repo_root, tracking_uri


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


def model_version(client, name: str, exp_id: str, state: str) -> str | None:
    """The registered version of the pipeline state track recorded (None: not recorded in this store)."""
    run = find_state(client, exp_id, name, state).recorded
    versions = client.search_model_versions(f"name = '{name}' and run_id = '{run.info.run_id}'") if run else []
    return str(versions[0].version) if versions else None


def log_monitor_run(params: dict, record: BatchCheck) -> dict:
    """{"run_id", "version"} of the monitor's run (version: the model version checked, or None)."""
    warnings.filterwarnings("ignore", category=UserWarning, module=r"mlflow\.")
    import mlflow
    from mlflow import MlflowClient

    root, uri = repo_root(), tracking_uri(params["tracking"]["uri"])
    default_store = uri == f"sqlite:///{root / 'mlflow.db'}"
    db, store_id = store.sqlite_file(uri), store.identity(uri, default_store)
    model = record.model
    with store.ledger_of(root) as ledger:
        store.check_same_store(ledger, store_id, uri)
        store.check_file_kept(ledger, store_id, db, root)
        try:
            mlflow.set_tracking_uri(uri)
            client = MlflowClient()
            store.check_holds(ledger, store_id, client, uri, db, root)
            # the version is found in the pipeline's experiment (track's record); the run goes to the monitor's own
            pipeline_exp = experiment_id(client, experiment := model["experiment"], default_store=default_store)
            version = model_version(client, model["registered_model"], pipeline_exp, model["pipeline_state"])
            exp_id = experiment_id(client, monitor_experiment(experiment), default_store=default_store)
            store.backup(root, db)
            tags = {
                "pipeline.role": "monitor",
                "monitor.batch": Path(record.batch).name,
                "monitor.pipeline_state": model["pipeline_state"],
                "monitor.registered_model": model["registered_model"],
                "monitor.model_version": version or "not registered in this store",
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
        store.remember(ledger, store_id, run_id, model["registered_model"], None)
        store.backup(root, db)
    return {"run_id": run_id, "version": version}
