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
ones in the run's mlflow_names.json; an experiment or model name MLflow would refuse is refused naming its params key;
an MLflow failure is one line. Before anything is written the store is checked as the monitor checks it
(pipeline/tracking/store.py: the same store, a readable file still holding what the workspace recorded, every
registered version's files present) and copied with its artifacts to mlflow-backups/ before and after the write."""

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

    root = repo_root()
    experiment, name = names(params)
    # the store checked (what this workspace wrote before is still there, files included) and pointed at this
    # repository's own artifacts: pipeline/tracking/store.py
    with store.opened(root, uri, "track") as (ledger, opened):
        client, db, default_store = opened.client, opened.db, opened.default
        try:
            exp_id = experiment_id(client, experiment, default_store=default_store)
            found = find_state(client, exp_id, name, key)
        except Exception as exc:
            raise store.unusable("track", uri, exc) from None
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
        store.remember(ledger, opened.identity, run_id, name, version)
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
