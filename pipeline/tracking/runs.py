"""MLflow bookkeeping for the track stage, the only code that talks to MLflow (docs/architecture.md section 6).
One parent run per pipeline state (params + every stage output md5), found again rather than duplicated
when the same state is tracked twice; one child run per search candidate with its per-fold scores; the deployed
predictor logged as a pyfunc model and registered as a version behind the promotion gate
(pipeline/tracking/promotion.py). The functions that log take the imported `mlflow` module, so importing this module
does not import MLflow."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import yaml

from ..core import paths
from ..core.config import PARAMS_FILE, read_yaml
from ..core.errors import PipelineError
from ..core.evaluation_records import CalibrationReport
from ..core.io import read_json, read_predictor
from ..core.json_types import JSON
from ..core.partitions import table_head
from ..core.provenance import git
from ..core.records import SearchReport, TrainMetrics
from ..core.task import Target
from ..reporting.headline import flat, model_choice
from . import naming
from .registry import (
    EXPERIMENT_TAG,
    EXPERIMENT_TMP,
    NOTE,
    OUTSIDE,
    PENDING,
    RECORDED,
    experiment_outside_workspace,
    register,
    say_verdict,
    thresholds,
)

if TYPE_CHECKING:
    import pandas as pd
    from mlflow import MlflowClient
    from mlflow.data.pandas_dataset import PandasDataset
    from mlflow.entities import Run
    from mlflow.models import ModelSignature
    from mlflow.models.model import ModelInfo

    from ..serving.contract import InputContract
    from .promotion import Check

# Set before mlflow is imported: no usage telemetry, and a down server fails fast instead of retrying for minutes.
os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "1")
os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "10")
os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")

_SCHEMA_ROWS = 10_000  # the rows a logged dataset's schema is inferred from


def repo_root() -> Path:
    """The repository root, also under `dvc exp run --temp/--queue` (which runs in .dvc/tmp/exps/...)."""
    root = str(Path(os.environ.get("DVC_ROOT", Path.cwd())).resolve())
    return Path(root.split(EXPERIMENT_TMP)[0])


def tracking_uri(configured: str | None) -> str:
    """MLFLOW_TRACKING_URI if set, else params.yaml tracking.uri, else sqlite:///<repo root>/mlflow.db."""
    return os.environ.get("MLFLOW_TRACKING_URI") or configured or f"sqlite:///{repo_root() / 'mlflow.db'}"


def stage_output_md5s(
    lock_file: Path = Path("dvc.lock"), skip: tuple[str, ...] = ("track", "monitor")
) -> dict[str, str]:
    """{'<stage>:<path>': md5} for every output recorded in dvc.lock but track's and the monitor's (after the model)."""
    try:
        lock = read_yaml(lock_file.read_text()) or {}
    except FileNotFoundError:
        raise PipelineError("dvc.lock not found; run the pipeline with `dvc repro` so outputs have DVC md5s") from None
    return {
        f"{stage}:{out['path']}": out.get("md5", "")
        for stage, entry in sorted(lock.get("stages", {}).items())
        if stage not in skip
        for out in entry.get("outs", [])
    }


def state_key(flat_params: dict[str, object], md5s: dict[str, str]) -> str:
    payload = json.dumps({"params": flat_params, "outputs": md5s}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def git_info() -> dict[str, str]:
    return {
        "git.commit": git("rev-parse", "HEAD") or "unknown",
        "git.dirty": str(bool(git("status", "--porcelain", "--untracked-files=no"))),
    }


_INVALID_KEY = re.compile(r"[^A-Za-z0-9_\-. /]")
KEY_LIMIT, PARAM_VALUE_LIMIT = 250, 6000  # MLflow's limits on names and param values (mlflow.utils.validation)


def fitted(text: str, limit: int, renamed: dict[str, str] | None = None) -> str:
    """`text` when MLflow takes it, else its first characters, "-" and 8 hex digits of its sha1: deterministic, so the
    same long column name gives the same metric name in every run; `renamed` collects {short: full} for the run's
    artifact mlflow_names.json."""
    if len(text) <= limit:
        return text
    short = f"{text[: limit - 9]}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"  # "-": allowed in every name
    if renamed is not None:
        renamed[short] = text
    return short


def metric_key(key: str, renamed: dict[str, str] | None = None) -> str:
    """MLflow metric names allow letters, digits, _ - . space and / and 250 characters; group labels like
    'female=1' need mapping, long column names shortening."""
    return fitted(path_safe(_INVALID_KEY.sub("_", key)), KEY_LIMIT, renamed)


_REPEATED_SLASH = re.compile(r"/(?=/)")
_DOT_SEGMENT = re.compile(r"(?<![^/])\.{1,2}(?![^/])")


def path_safe(name: str) -> str:
    """`name` with each character that makes it read as another file path replaced by "_" (same length, so the
    same column always gives the same name): MLflow refuses a metric, param or tag name that posixpath.normpath
    changes (a sensitive column `race//x`, a level `..`), a leading "/" and a leading "..". Every other name as it
    is."""
    name = _REPEATED_SLASH.sub("_", name)
    name = _DOT_SEGMENT.sub(lambda dots: "_" * len(dots.group()), name)
    if name.startswith(("/", "..")):
        name = "_" + name[1:]
    if name.endswith("/") or not name:
        name = name[:-1] + "_"
    return name


def fitted_params(params: dict[str, str], renamed: dict[str, str]) -> dict[str, str]:
    """Param names and values within MLflow's limits (a long value keeps its start and a hash too); a name as
    metric_key maps it (a column named in a params dict, such as clean.valid_ranges)."""
    return {metric_key(k, renamed): fitted(v, PARAM_VALUE_LIMIT, renamed) for k, v in params.items()}


# the packages the served model's code imports (tests/e2e checks this list against the code's imports)
SERVING_REQUIREMENTS = ("mlflow", "numpy", "scipy", "pandas", "numba")


def artifact_files() -> list[Path]:
    """The run's artifacts: the page, its figures, the headline figures and every report file the page is built
    from (paths.REPORT_INPUTS), and the plot and metric files DVC shows; no hidden files (.gitignore)."""
    files = {paths.HEADLINE, paths.REPORT_HTML, *(path for path, _ in paths.REPORT_INPUTS.values())}
    for directory in (paths.FIGURES_DIR, paths.TRAIN_METRICS.parent, paths.VALIDATION_CURVE.parent):
        files |= {p for p in directory.iterdir() if p.is_file() and not p.name.startswith(".")}
    return sorted(files)


def signature_of(contract: InputContract, output: pd.DataFrame) -> ModelSignature:
    """The model's signature, generated from its input contract (pipeline/serving/contract.py): a number column
    `double` (MLflow's advice for numbers that may be missing: an integer type cannot hold null) and a label column
    `string` (so is data.time as a feature holding dates: ISO date text); the outputs as the model returns them.
    MLflow checks a request against it before the model does: a value its type cannot hold is refused in MLflow's
    words (docs/reference/served-api.md). Every column is typed but not `required` in MLflow's sense: MLflow would
    answer a missing column first, echoing the request's rows and the whole schema (1,740 characters); the contract
    refuses it in one line, and checks the rest (infinities, extreme numbers, unseen levels, sensitive gaps)."""
    from mlflow.models import ModelSignature, infer_signature
    from mlflow.types import ColSpec, Schema

    from pipeline.serving.reasons import reasons_spec

    kinds = [("double" if contract.kind(c) == "number" else "string", c) for c in contract.columns]
    inputs = Schema([ColSpec(kind, name, required=False) for kind, name in kinds])
    if "reasons" not in output:
        return ModelSignature(inputs=inputs, outputs=infer_signature(output).inputs)
    # MLflow cannot infer a list of records whose values are numbers or labels: the whole output would be AnyType
    columns = infer_signature(output.drop(columns="reasons")).inputs.inputs
    at = list(output.columns).index("reasons")
    return ModelSignature(inputs=inputs, outputs=Schema([*columns[:at], reasons_spec(), *columns[at:]]))


def table_dataset(path: Path, name: str, target: str, digest: str) -> PandasDataset:
    """A stage's table as an MLflow dataset: its schema from its first rows, its profile from its row count (the
    rows are not loaded to be described: 16M rows of 45 columns are 5.7 GB)."""
    from mlflow.data.dataset_source_registry import resolve_dataset_source
    from mlflow.data.pandas_dataset import PandasDataset

    class TableDataset(PandasDataset):
        @property
        def profile(self) -> dict[str, int]:
            return {"num_rows": n_rows, "num_elements": n_rows * len(head.columns)}

    head, n_rows = table_head(path, "split", _SCHEMA_ROWS)
    return TableDataset(head, resolve_dataset_source(str(path)), targets=target, name=name, digest=digest)


def log_model(mlflow: ModuleType, params: JSON) -> ModelInfo:
    """The deployed predictor as a pyfunc model with its input contract (pipeline/serving/contract.py)."""
    import tempfile

    from pipeline.core.explanation_records import Attributions
    from pipeline.serving.contract import serve
    from pipeline.serving.reasons import reasons_settings
    from pipeline.serving.workspace import workspace_contract

    test, _ = table_head(paths.TEST, "split", 5)
    contract = workspace_contract(params)
    example = contract.typed(test.head(5))
    reasons = reasons_settings(Attributions.read())
    output, _ = serve(read_predictor(paths.PREDICTOR), contract, example, reasons)
    predictor = paths.PREDICTOR.with_name(paths.PREDICTOR.name + ".json")
    with tempfile.TemporaryDirectory() as tmp:
        contract_file, reasons_file = Path(tmp) / "input_contract.json", Path(tmp) / "reasons.json"
        contract_file.write_text(contract.to_json())
        reasons_file.write_text(json.dumps(reasons, sort_keys=True))
        info: ModelInfo = mlflow.pyfunc.log_model(
            name="model",
            python_model=str(repo_root() / "pipeline" / "serving" / "pyfunc_model.py"),
            artifacts={
                "predictor": str(predictor),
                "predictor_arrays": str(predictor.with_suffix(".npz")),
                "input_contract": str(contract_file),
                "reasons": str(reasons_file),
            },
            code_paths=["mllib", "pipeline"],
            signature=signature_of(contract, output),
            input_example=example,
            pip_requirements=[f"{p}=={version(p)}" for p in SERVING_REQUIREMENTS],
        )
        return info


def make_portable(mlflow: ModuleType, client: MlflowClient, model: ModelInfo) -> None:
    """Rewrite the logged model's MLmodel without the build machine's paths. MLflow writes the absolute path of the
    model's code file, of each artifact's source (a temporary folder for the contract) and of the model's own
    location; its loader uses only the code file's name and each artifact's path inside the model, so a copy of the
    store on another path or machine loads the model and says nothing of where it was built."""
    import tempfile

    location = client.get_logged_model(model.model_id).artifact_location
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(mlflow.artifacts.download_artifacts(artifact_uri=f"{location}/MLmodel", dst_path=tmp))
        meta = read_yaml(local.read_text())
        meta.pop("artifact_path", None)  # MLflow's own spelling of "no location recorded"
        pyfunc = meta["flavors"]["python_function"]
        pyfunc["model_code_path"] = Path(pyfunc["model_code_path"]).name
        for artifact in pyfunc.get("artifacts", {}).values():
            artifact["uri"] = artifact["path"]
        local.write_text(yaml.safe_dump(meta, default_flow_style=False))
        client.log_model_artifact(model.model_id, str(local))


def log_candidates(
    mlflow: ModuleType,
    client: MlflowClient,
    params: JSON,
    search: SearchReport,
    trained: TrainMetrics,
    renamed: dict[str, str],
) -> None:
    from mlflow.entities import Metric

    scoring, now = search.scoring, int(time.time() * 1000)
    name = trained.model  # model.name with auto resolved for the task
    for i, c in enumerate(search.candidates):
        label = ", ".join(f"{k}={v}" for k, v in c.params.items())
        with mlflow.start_run(
            run_name=f"candidate {i}: {label}",
            nested=True,
            tags={"pipeline.role": "candidate", "search.rank": str(c.rank)},
        ) as child:
            mlflow.log_params(
                fitted_params(
                    {
                        "model.name": name,
                        **{
                            f"model.params.{k}": str(v)
                            for k, v in {**params["model"]["params"].get(name, {}), **c.params}.items()
                        },
                    },
                    renamed,
                )
            )
            per_fold = [
                Metric(f"{part}_{scoring}", float(v), now, fold)
                for part, scores in (("valid", c.valid_scores), ("train", c.train_scores))
                for fold, v in enumerate(scores)
            ]
            summary = [  # one naming scheme with the compared models' runs: <statistic>_<part>_<scoring>
                Metric(metric_key(f"{k}_{scoring}"), float(v), now, 0)
                for k, v in (("mean_valid", c.mean_valid_score), ("std_valid", c.std_valid_score),
                             ("mean_train", c.mean_train_score))
            ]  # fmt: skip
            client.log_batch(child.info.run_id, metrics=per_fold + summary)
    comparison = trained.comparison
    if comparison is None:
        return
    for m in comparison.models:  # model.candidates: one child run per compared model
        with mlflow.start_run(
            run_name=f"compared model: {m.model}",
            nested=True,
            tags={
                "pipeline.role": "compared model",
                "comparison.rank": str(m.rank),
                "comparison.chosen": str(m.model == comparison.chosen),
            },
        ) as child:
            mlflow.log_params(
                fitted_params(
                    {"model.name": m.model, **{f"model.params.{k}": str(v) for k, v in m.params.items()}}, renamed
                )
            )
            metrics = [Metric(f"valid_{scoring}", v, now, fold) for fold, v in enumerate(m.valid_scores)]
            metrics += [Metric(f"mean_valid_{scoring}", m.mean, now, 0), Metric(f"std_valid_{scoring}", m.std, now, 0)]
            p_value = m.versus_best.p_value if m.versus_best is not None else None
            if p_value is not None and math.isfinite(p_value):  # undefined where the fold scores are all equal
                metrics.append(Metric("corrected_t_test_p_value", p_value, now, 0))
            client.log_batch(child.info.run_id, metrics=metrics)


@dataclass
class StateFound:
    """What the store holds of a pipeline state (find_state)."""

    recorded: Any = None  # the FINISHED parent run whose version has the gate's decision
    resume: Any = None  # a FINISHED run whose registration or decision is missing
    model: Any = None  # its logged model
    version: Any = None  # its version, or None
    stale: list[Run] = field(default_factory=list)  # runs interrupted before that, to be superseded


def find_state(client: MlflowClient, exp_id: str, name: str, key: str) -> StateFound:
    """What the store holds of pipeline state `key`: {"recorded": run} when a FINISHED parent run has its model
    version with the gate's decision; {"resume": run, "model": its logged model, "version": its version or None}
    when a FINISHED run logged its model but the registration or the decision is missing or still pending (the next
    repro completes it); and under "stale" the runs of the state interrupted before that (RUNNING after a kill,
    FAILED, or finished without a model), to be marked superseded and replaced by a new run. Superseded runs are
    ignored."""
    runs = client.search_runs(
        [exp_id], filter_string=f"tags.`pipeline.state` = '{key}' and tags.`pipeline.role` = 'parent'"
    )
    found = StateFound()
    for run in sorted(runs, key=lambda r: r.info.start_time):
        if run.data.tags.get("pipeline.superseded_by") or found.recorded is not None:
            continue
        run_id = run.info.run_id
        models = client.search_logged_models([exp_id], filter_string=f"source_run_id = '{run_id}'")
        if run.info.status != "FINISHED" or not models:
            found.stale.append(run)
            continue
        versions = client.search_model_versions(f"name = '{name}' and run_id = '{run_id}'")
        if any(v.tags.get(RECORDED, PENDING) != PENDING for v in versions):
            found = StateFound(recorded=run, stale=found.stale)
        elif found.resume is None:
            found.resume, found.model, found.version = run, models[0], versions[0] if versions else None
    return found


def supersede(client: MlflowClient, stale: list[Run], by: str) -> None:
    """Mark runs of a state that never completed: ended (a killed run stays RUNNING otherwise) and tagged with the
    run that replaces them, so the state is never taken as recorded on their account."""
    for run in stale:
        if run.info.status == "RUNNING":
            client.set_terminated(run.info.run_id, "KILLED")
        client.set_tag(run.info.run_id, "pipeline.superseded_by", by)


def run_warnings(trained: TrainMetrics, calibration: CalibrationReport) -> dict[str, str]:
    """Tags of what the run must not hide (the model card says the same): a named calibration map worse than none,
    fits of the chosen model or the map that stopped at their iteration caps."""
    tags = {}
    if calibration.map_warning:
        tags["warning.calibration"] = calibration.map_warning[:5000]
    stopped = trained.not_converged
    if stopped.folds or stopped.refit:
        tags["warning.not_converged"] = "; ".join(stopped.messages)[:5000]
    if calibration.not_converged:
        tags["warning.calibration_not_converged"] = "; ".join(calibration.not_converged)[:5000]
    return tags


def hyperparameters() -> dict[str, object]:
    """The chosen model's resolved settings, as fitted (defaults, model.params and the search's choice): those with
    one value each (numbers, text, flags, null)."""
    from mllib import io as mlio

    settings = mlio.load(paths.MODEL).get_params()
    return {k: v for k, v in settings.items() if v is None or isinstance(v, (bool, int, float, str))}


def log_new_run(
    mlflow: ModuleType, client: MlflowClient, exp_id: str, params: JSON, md5s: dict[str, str], key: str
) -> tuple[str, ModelInfo]:
    trained = TrainMetrics.read()
    calibration = Target.read(paths.TARGET).calibration_record.read()
    deployed_map = calibration.deployed_map  # a regression target has none
    tags = {
        "pipeline.state": key,
        "pipeline.role": "parent",
        "task": trained.task,
        "model": trained.model,
        **git_info(),
        "dvc.exp_name": os.environ.get("DVC_EXP_NAME", ""),
        **run_warnings(trained, calibration),
    }
    if deployed_map:
        tags["calibration.method"] = deployed_map
    figures = flat(read_json(paths.HEADLINE, "report"))
    metric = f"test.{Target.read(paths.TARGET).headline_metric}"
    headline = (metric, figures[metric], figures.get(f"{metric}_low")) if metric in figures else None
    changed = naming.changed_params(params, naming.committed_params())
    settings = hyperparameters()
    commit = tags["git.commit"] if tags["git.commit"] != "unknown" else ""
    tags[NOTE] = naming.run_description(trained.model, settings, params, headline, changed, commit)
    if trained.comparison is not None:  # why this model, with what it gained over the simplest (the card's line)
        test = Target.read(paths.TARGET).test_record.read()
        tags["model.choice"] = model_choice(trained, test)
        tags[NOTE] += f" Model choice: {tags['model.choice']}."
    tags["pipeline.params"] = naming.PARAMS_NOTE
    experiment = os.environ.get("DVC_EXP_NAME") or ("repro " + (commit[:8] or "outside git"))
    mlflow.set_experiment(experiment_id=exp_id)  # nested child runs follow the active experiment, not their parent
    renamed: dict[str, str] = {}  # names and values shortened to MLflow's limits -> the full ones
    with mlflow.start_run(run_name=naming.run_name(experiment, changed), tags=tags) as run:
        mlflow.log_params(fitted_params(naming.defining_params(params, trained.model, settings, changed), renamed))
        mlflow.log_metrics({metric_key(k, renamed): v for k, v in figures.items()})
        mlflow.log_artifact(str(PARAMS_FILE))
        mlflow.log_dict(md5s, "dvc_md5s.json")
        for path in artifact_files():
            mlflow.log_artifact(str(path), artifact_path=str(path.parent))
        for split, path, context in (("train", paths.TRAIN, "training"), ("test", paths.TEST, "test")):
            dataset = table_dataset(path, split, params["data"]["target"], md5s.get(f"split:{path}", ""))
            mlflow.log_input(dataset, context=context)
        model = log_model(mlflow, params)
        make_portable(mlflow, client, model)
        log_candidates(mlflow, client, params, SearchReport.read(), trained, renamed)
        if renamed:
            mlflow.log_dict(renamed, "mlflow_names.json")
    return run.info.run_id, model


def experiment_id(client: MlflowClient, name: str, default_store: bool) -> str:
    experiment = client.get_experiment_by_name(name)
    if experiment is None:
        # an absolute artifact root: a relative one would follow the working directory (mlflow#7292)
        location = (repo_root() / "mlartifacts").as_uri() if default_store else None
        exp_id = client.create_experiment(name, artifact_location=location)
    else:
        exp_id = experiment.experiment_id
    if (experiment.tags if experiment else {}).get(EXPERIMENT_KIND) != MODEL_DEVELOPMENT:
        client.set_experiment_tag(exp_id, EXPERIMENT_KIND, MODEL_DEVELOPMENT)  # MLflow 3 opens the runs, not traces
    return exp_id


EXPERIMENT_KIND, MODEL_DEVELOPMENT = "mlflow.experimentKind", "custom_model_development"


def one_line(exc: Exception) -> str:
    """The exception's type and the first line of its message (MLflow's carry server traces and SQL)."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first[:300]}"


def record(
    mlflow: ModuleType,
    client: MlflowClient,
    exp_id: str,
    name: str,
    params: JSON,
    md5s: dict[str, str],
    key: str,
    found: StateFound,
    uri: str,
) -> tuple[str, str | int | None, str, list[Check]]:
    """Complete the record of the state: nothing when it is recorded; else register (and decide) the model of a
    finished run, or mark the interrupted runs superseded and log a new run, then register its model. Returns the
    run's id, its version's number, the version's status (champion, candidate) and the gate's checks (the
    threshold checks alone for a state recorded before)."""
    if found.recorded is not None:
        print(f"track: this pipeline state ({key}) is already recorded as run {found.recorded.info.run_id}; "
              "nothing new to log")  # fmt: skip
        run_id = found.recorded.info.run_id
        versions = client.search_model_versions(f"name = '{name}' and run_id = '{run_id}'")
        if versions and experiment_outside_workspace() is None:  # the workspace is at this state again
            version, experiment = versions[0], versions[0].tags.get(EXPERIMENT_TAG)
            if OUTSIDE.format(experiment) in version.tags.get(RECORDED, ""):
                r = register(mlflow, client, name, None, run_id, Target.read(paths.TARGET), params, version)
                print(f"track: version {r.version}, registered by experiment {experiment}, is the workspace's state "
                      f"now: `candidate`{' and `champion`' if r.champion else ''}")  # fmt: skip
                return run_id, r.version, say_verdict(client, run_id, name, r), r.checks
            client.set_registered_model_alias(name, "candidate", version.version)
        status = f"{versions[0].tags.get(RECORDED, 'recorded')} (as recorded before)" if versions else "not registered"
        checks = thresholds(params, Target.read(paths.TARGET), flat(read_json(paths.HEADLINE, "report")))
        return run_id, (versions[0].version if versions else None), status, checks
    if found.resume is not None:
        run_id, model = found.resume.info.run_id, found.model
        print(f"track: run {run_id} of this state was logged but its registration did not complete; completing it")
    else:
        run_id, model = log_new_run(mlflow, client, exp_id, params, md5s, key)
    if found.stale:
        supersede(client, found.stale, run_id)
        print(
            f"track: {len(found.stale)} interrupted run(s) of this state ("
            + ", ".join(f"{r.info.run_id} {r.info.status}" for r in found.stale)
            + f") marked superseded by {run_id}"
        )
    r = register(mlflow, client, name, model, run_id, Target.read(paths.TARGET), params, found.version)
    print(f"track: logged run {run_id} and its candidate runs to {uri}; registered {name} version {r.version}")
    return run_id, r.version, say_verdict(client, run_id, name, r), r.checks
