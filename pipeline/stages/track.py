"""The track stage: record the pipeline state in MLflow from the files the stages wrote (the compute stages
never import mlflow). One parent run per state, named after the params it changed from the committed params.yaml,
with a description and at most 40 params that define it (pipeline/tracking/naming.py), the headline metrics with
the names `dvc metrics show` prints, params.yaml, the reports, figures and the DVC md5 of every output as artifacts,
train/test datasets as inputs with their DVC md5 as digest, the deployed predictor as a pyfunc logged from code (raw
rows in, a signature typed from its input contract, no build-machine path in its MLmodel), and tags joining it to
git; one child run per search candidate with its per-fold scores. The model becomes a new version of the registered
model with alias `candidate`, and `champion` when the promotion gate passes (pipeline/tracking/promotion.py; decision
and reasons as version tags). Tracking the same state again finds the existing run: a state counts as recorded only
when its run FINISHED and its version carries the gate's decision; a run interrupted before that (killed, a store
that refused a write) is marked superseded and replaced, or its registration completed, by the next `dvc repro`
(pipeline.tracking.runs.find_state). Names beyond MLflow's 250 characters are shortened deterministically, the full
ones in the run's mlflow_names.json; an MLflow failure is one line."""

from __future__ import annotations

import warnings

from pipeline.core import paths
from pipeline.core.config import flatten, load_params
from pipeline.core.errors import PipelineError, run_stage
from pipeline.core.io import write_json
from pipeline.reporting import verdict
from pipeline.tracking import store
from pipeline.tracking.naming import names
from pipeline.tracking.runs import (
    experiment_id,
    find_state,
    one_line,
    record,
    relocate_default_store,
    repo_root,
    stage_output_md5s,
    state_key,
    tracking_uri,
)


def main() -> None:
    # MLflow's advice on type hints, integer schemas and ambiguous local sources does not apply here
    warnings.filterwarnings("ignore", category=UserWarning, module=r"mlflow\.")
    params = load_params()
    md5s = stage_output_md5s()
    key = state_key(flatten(params), md5s)
    uri = tracking_uri(params["tracking"]["uri"])
    import mlflow
    from mlflow import MlflowClient

    root = repo_root()
    default_store = uri == f"sqlite:///{root / 'mlflow.db'}"
    experiment, name = names(params)
    db, store_id = store.sqlite_file(uri), store.identity(uri, default_store)
    with store.ledger_of(root) as ledger:  # what this workspace wrote before: the store must still hold it
        store.check_same_store(ledger, store_id, uri)
        store.check_file_kept(ledger, store_id, db, root)
        try:  # any failure to reach or use the store (down, locked, read-only): one line; the other outputs stand
            moved_from = relocate_default_store(root) if default_store else None
            if moved_from:
                print(f"track: the store was created in {moved_from}; its artifact locations now point into {root}")
            mlflow.set_tracking_uri(uri)
            client = MlflowClient()
            store.check_holds(ledger, store_id, client, uri, db, root)
            exp_id = experiment_id(client, experiment, default_store=default_store)
            found = find_state(client, exp_id, name, key)
        except PipelineError:
            raise
        except Exception as exc:
            raise PipelineError(
                f"track: cannot use the MLflow tracking store {uri} ({one_line(exc)}). Start the server, release the "
                "store (another process may hold mlflow.db) or fix MLFLOW_TRACKING_URI / params.yaml tracking.uri; "
                "the outputs of the other stages are unaffected"
            ) from None
        writes = found.recorded is None
        try:
            if writes:
                store.backup(root, db)
            run_id, version, status, checks = record(mlflow, client, exp_id, name, params, md5s, key, found, uri)
        except PipelineError:
            raise
        except Exception as exc:  # the store refused something: one line; the next `dvc repro` completes the state
            raise PipelineError(
                f"track: MLflow could not record this pipeline state in {uri} ({one_line(exc)}). Fix that (a writable "
                "store and artifact location, a reachable server) and run `dvc repro` again: the interrupted run is "
                "marked superseded and the state recorded; the outputs of the other stages are unaffected"
            ) from None
        store.remember(ledger, store_id, run_id, name, version)
        if writes and (kept := store.backup(root, db)):
            print(f"track: a copy of the store as this run left it: {kept.relative_to(root)}")
    # what was recorded, in terms every clone shares (the run's id and the version number are this store's): the
    # same file, and the same dvc.lock, on every machine; the run is found again by its pipeline.state tag
    write_json(
        {
            "pipeline_state": key,
            "experiment": experiment,
            "registered_model": name,
            "store": "default" if default_store else uri,
        },
        paths.MLFLOW_RUN,
    )
    for line in verdict.summary(name, version, status, checks, uri):  # the end of `dvc repro`'s output
        print(line)


if __name__ == "__main__":
    run_stage(main)
