"""Stage 11, track: record the pipeline state in MLflow from the files the stages wrote (the compute stages
never import mlflow). One parent run per state: flattened params with params.yaml's dotted keys, all
metrics, the reports and figures as artifacts, train/test datasets as inputs with their DVC md5 as digest,
the model as a pyfunc logged from code with a signature, and tags joining it to git and DVC; one child run
per search candidate with its per-fold scores. Tracking the same state again finds the existing run."""
from __future__ import annotations

import os
import time
import warnings
from importlib.metadata import version

from pipeline import paths
from pipeline.config import flatten, load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.frames import feature_columns
from pipeline.io import read_json, read_parquet, write_json
from pipeline.tracking import git_info, metric_key, numeric_leaves, repo_root, stage_output_md5s, state_key, tracking_uri

METRIC_FILES = {"train": paths.TRAIN_METRICS, "calibration": paths.CALIBRATION_METRICS, "test": paths.TEST_METRICS,
                "fairness": paths.FAIRNESS_METRICS}
ARTIFACTS = [paths.REPORT_HTML, paths.FIGURES_DIR, paths.TRAIN_METRICS.parent, paths.VALIDATION_CURVE.parent,
             paths.VALIDATION_REPORT, paths.CLEANING_REPORT, paths.SPLIT_REPORT, paths.FEATURES_REPORT,
             paths.SEARCH_REPORT, paths.IMPORTANCE, paths.ATTRIBUTIONS, paths.PARTIAL_DEPENDENCE]


def experiment_id(client, name: str, default_store: bool) -> str:
    experiment = client.get_experiment_by_name(name)
    if experiment is not None:
        return experiment.experiment_id
    # an absolute artifact root: a relative one would follow the working directory (mlflow#7292)
    location = (repo_root() / "mlartifacts").as_uri() if default_store else None
    return client.create_experiment(name, artifact_location=location)


def log_model(mlflow, params: dict) -> None:
    from mlflow.models import infer_signature

    from mllib import io as mlio
    from pipeline.frames import served_predictions

    test = read_parquet(paths.TEST, "split")
    numeric, categorical = feature_columns(test.columns, params["data"])
    # the signature takes the raw columns' own dtypes: rows as read from the user's file are valid input
    example = test[numeric + categorical].head(5)
    output = served_predictions(mlio.load(paths.PREDICTOR), example, numeric, categorical)
    predictor = paths.PREDICTOR.with_name(paths.PREDICTOR.name + ".json")
    mlflow.pyfunc.log_model(
        name="model",
        python_model=str(repo_root() / "pipeline" / "serving" / "pyfunc_model.py"),
        artifacts={"predictor": str(predictor), "predictor_arrays": str(predictor.with_suffix(".npz"))},
        code_paths=["mllib", "pipeline"],
        model_config={"numeric": numeric, "categorical": categorical},
        signature=infer_signature(example, output),
        input_example=example,
        pip_requirements=[f"{p}=={version(p)}" for p in ("mlflow", "numpy", "scipy", "pandas", "numba")],
    )


def log_candidates(mlflow, client, params: dict, search: dict) -> None:
    from mlflow.entities import Metric

    scoring, now = search["scoring"], int(time.time() * 1000)
    name = read_json(paths.TRAIN_METRICS, "train")["model"]  # model.name with auto resolved for the task
    for i, c in enumerate(search["candidates"]):
        label = ", ".join(f"{k}={v}" for k, v in c["params"].items())
        with mlflow.start_run(run_name=f"candidate {i}: {label}", nested=True,
                              tags={"pipeline.role": "candidate", "search.rank": str(c["rank"])}) as child:
            mlflow.log_params({"model.name": name, **{f"model.params.{k}": v for k, v in
                                                      {**params["model"]["params"].get(name, {}), **c["params"]}.items()}})
            per_fold = [Metric(f"{part}_{scoring}", float(v), now, fold)
                        for part, key in (("valid", "valid_scores"), ("train", "train_scores")) for fold, v in enumerate(c[key])]
            summary = [Metric(metric_key(f"{k}_{scoring}"), float(c[k]), now, 0)
                       for k in ("mean_valid_score", "std_valid_score", "mean_train_score")]
            client.log_batch(child.info.run_id, metrics=per_fold + summary)


def log_new_run(mlflow, client, exp_id: str, params: dict, md5s: dict, key: str) -> str:
    trained = read_json(paths.TRAIN_METRICS, "train")
    tags = {"pipeline.state": key, "pipeline.role": "parent", "task": trained["task"], "model": trained["model"], **git_info(),
            "dvc.exp_name": os.environ.get("DVC_EXP_NAME", ""),
            **{metric_key(f"dvc.md5.{out.replace(':', '.')}"): md5 for out, md5 in md5s.items()}}
    run_name = os.environ.get("DVC_EXP_NAME") or f"repro {tags['git.commit'][:8]}"
    mlflow.set_experiment(experiment_id=exp_id)  # nested child runs follow the active experiment, not their parent
    with mlflow.start_run(run_name=run_name, tags=tags) as run:
        mlflow.log_params({k: str(v) for k, v in flatten(params).items()})
        metrics = {}
        for prefix, path in METRIC_FILES.items():
            metrics.update(numeric_leaves(read_json(path, path.stem), f"{prefix}."))
        mlflow.log_metrics(metrics)
        for path in ARTIFACTS:
            if path.is_dir():
                mlflow.log_artifacts(str(path), artifact_path=str(path))
            else:
                mlflow.log_artifact(str(path), artifact_path=str(path.parent))
        for split, path, context in (("train", paths.TRAIN, "training"), ("test", paths.TEST, "test")):
            frame = read_parquet(path, "split")
            dataset = mlflow.data.from_pandas(frame, source=str(path), name=split, targets=params["data"]["target"],
                                              digest=md5s.get(f"split:{path}", ""))
            mlflow.log_input(dataset, context=context)
        log_model(mlflow, params)
        log_candidates(mlflow, client, params, read_json(paths.SEARCH_REPORT, "train"))
    return run.info.run_id


def main() -> None:
    # MLflow's advice on type hints, integer schemas and ambiguous local sources does not apply here
    warnings.filterwarnings("ignore", category=UserWarning, module=r"mlflow\.")
    params = load_params()
    md5s = stage_output_md5s()
    key = state_key(flatten(params), md5s)
    uri = tracking_uri(params["tracking"]["uri"])
    import mlflow
    from mlflow import MlflowClient

    mlflow.set_tracking_uri(uri)
    client = MlflowClient()
    try:
        exp_id = experiment_id(client, params["tracking"]["experiment"], default_store=uri.startswith(f"sqlite:///{repo_root()}"))
        found = client.search_runs([exp_id], filter_string=f"tags.`pipeline.state` = '{key}'", max_results=1)
    except Exception as exc:  # any failure to reach or use the store: the compute stages' outputs stand
        raise PipelineError(
            f"track: cannot use the MLflow tracking store {uri} ({type(exc).__name__}: {exc}). Start the server or fix "
            "MLFLOW_TRACKING_URI / params.yaml tracking.uri; the outputs of the other stages are unaffected"
        ) from None
    if found:
        run_id = found[0].info.run_id
        print(f"track: this pipeline state ({key}) is already recorded as run {run_id}; nothing new to log")
    else:
        run_id = log_new_run(mlflow, client, exp_id, params, md5s, key)
        print(f"track: logged run {run_id} and its candidate runs to {uri}")
    write_json({"tracking_uri": uri, "experiment": params["tracking"]["experiment"], "experiment_id": exp_id,
                "run_id": run_id, "pipeline_state": key}, paths.MLFLOW_RUN)


if __name__ == "__main__":
    run_stage(main)
