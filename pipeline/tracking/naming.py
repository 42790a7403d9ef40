"""What a parent run says about itself in MLflow's runs table: a name made of the experiment's name and the params
that differ from the committed params.yaml (`noble-fare: model.name=gradient_boosting`), a description sentence
(MLflow's note, shown on the run's page), and at most PARAM_LIMIT params that define the run, chosen in order:
those changed from the committed params.yaml, the chosen model's resolved hyperparameters (`model.params.<name>`:
its fitted settings, the searched ones included), then DEFINING. The whole params.yaml is the run's artifact
params.yaml; the run's tag `pipeline.params` says which were logged."""

from __future__ import annotations

import re
from pathlib import Path

from ..core.config import flatten, read_yaml
from ..core.errors import PipelineError
from ..core.json_types import JSON
from ..core.provenance import git

PARAM_LIMIT = 40  # a runs table and a compare view a user reads without scrolling (the whole file is an artifact)
NAME_LIMIT = 100  # characters of a run name the runs table shows whole

# what defines a run beside what changed and the model's settings, most telling first
DEFINING = (
    "model.name",
    "model.name_in_params",
    "data.path",
    "data.target",
    "data.task",
    "data.group",
    "data.sensitive",
    "seed",
    "split.strategy",
    "split.n_splits",
    "split.n_repeats",
    "model.candidates",
    "search.scoring",
    "features.scaler.name",
    "features.encoder.name",
    "calibration.method",
    "calibration.set_coverage",
    "calibration.interval_coverage",
    "decision.threshold",
    "decision.cost_matrix",
    "decision.reject_threshold",
    "fairness.mitigation.criterion",
)
PARAMS_NOTE = (
    f"at most {PARAM_LIMIT}: model.name (the model that ran), the params changed from the committed params.yaml, "
    "the chosen model's resolved hyperparameters (model.params.*), then "
    + ", ".join(DEFINING)
    + "; every param: the artifact params.yaml"
)


def param_value(value: object) -> str:
    """A value as the runs table shows it: YAML's spelling (null, true), a list without brackets (a value that starts
    with '[' is read as JSON by the compare view), a matrix row by row."""
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (list, tuple)) for v in value):
            return " / ".join(" ".join(param_value(v) for v in row) for row in value)
        return ", ".join(param_value(v) for v in value)
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return str(value)


def committed_params() -> JSON:
    """params.yaml as committed at HEAD (an experiment's baseline); {} outside a git repository."""
    text = git("show", "HEAD:params.yaml")
    committed: JSON = read_yaml(text) or {} if text else {}
    return committed


def changed_params(params: JSON, committed: JSON) -> dict[str, str]:
    """The dotted params whose value differs from the committed params.yaml (added ones too), in params.yaml's order."""
    before = {k: param_value(v) for k, v in flatten(committed).items()}
    return {k: v for k, v in ((k, param_value(v)) for k, v in flatten(params).items()) if before.get(k) != v}


def defining_params(
    params: JSON, model: str, hyperparameters: dict[str, object], changed: dict[str, str]
) -> dict[str, str]:
    """The run's params (PARAM_LIMIT at most): the model that ran, what changed, the model's resolved
    hyperparameters, DEFINING."""
    flat = {k: param_value(v) for k, v in flatten(params).items()}
    flat["model.name"], flat["model.name_in_params"] = model, param_value(params["model"]["name"])
    chosen = {"model.name": model} | changed  # the model that ran (auto resolved) first, whatever changed
    chosen["model.name"] = model
    chosen |= {f"model.params.{k}": param_value(v) for k, v in sorted(hyperparameters.items())}
    chosen |= {k: flat[k] for k in DEFINING if k in flat and k not in chosen}
    return dict(list(chosen.items())[:PARAM_LIMIT])


EXPERIMENT_LIMIT = 500  # MLflow's longest experiment name (mlflow.utils.validation.MAX_EXPERIMENT_NAME_LENGTH)
MODEL_NAME_LIMIT = 256  # the registry's name column (registered_models.name VARCHAR(256); a server's database holds it)
MONITOR_SUFFIX = " monitor"  # the monitor's experiment beside the pipeline's (monitor_experiment)


def names(params: JSON) -> tuple[str, str]:
    """(experiment, registered model) of the pipeline's runs: tracking.experiment and tracking.registered_model when
    set, else named from the data, "<file name without its suffixes>-<target>" (data/raw/randhie.csv.gz, binexp:
    randhie-binexp): one registered model per question, so a new file or target never becomes a version of another's
    model. The registered model defaults to the experiment's name. A name MLflow would refuse is refused here, naming
    the params key (MLflow's own error names neither the key nor its limit, and reads as the store's fault)."""
    data = params["data"]
    stem = Path(str(data["path"]).rstrip("/")).name.split(".")[0]
    named = params["tracking"]["experiment"]
    experiment = named or re.sub(r"[^\w.-]+", "-", f"{stem}-{data['target']}").strip("-")
    model = params["tracking"]["registered_model"] or experiment
    experiment_key = (
        "tracking.experiment" if named else "tracking.experiment (null: named from data.path and data.target)"
    )
    model_key = "tracking.registered_model" if params["tracking"]["registered_model"] else experiment_key
    check_name(experiment, experiment_key, "an experiment name", EXPERIMENT_LIMIT, len(MONITOR_SUFFIX))
    check_name(model, model_key, "a registered model's name", MODEL_NAME_LIMIT)
    if any(c in model for c in "/:"):
        raise PipelineError(
            f"params.yaml {model_key}: {model[:60]!r} holds '/' or ':', which MLflow refuses in a registered model's "
            "name; set tracking.registered_model to a name without them"
        )
    return experiment, model


def check_name(name: str, key: str, what: str, limit: int, reserved: int = 0) -> None:
    """Refuse a name beyond MLflow's `limit` (less `reserved` characters the project appends to it)."""
    if len(name) <= limit - reserved:
        return
    room = f" ({limit - reserved} here: the monitor's experiment adds {MONITOR_SUFFIX!r})" if reserved else ""
    raise PipelineError(
        f"params.yaml {key} is {len(name)} characters long ({name[:30]!r}...); MLflow takes at most {limit} in "
        f"{what}{room}: set {key.split(' ')[0]} to a shorter name"
    )


def monitor_experiment(experiment: str) -> str:
    """The monitor's runs have their own experiment beside the pipeline's, each run tagged with the version checked."""
    return f"{experiment}{MONITOR_SUFFIX}"


def run_name(experiment: str, changed: dict[str, str]) -> str:
    """`<experiment>: key=value, ...` with the changed params (leaf names where unambiguous would hide the section, so
    keys stay dotted), cut to NAME_LIMIT with the count of those left out."""
    if not changed:
        return experiment
    parts, shown = [f"{k}={v}" for k, v in changed.items()], list[str]()
    for i, part in enumerate(parts):
        rest = len(parts) - i - 1
        candidate = f"{experiment}: " + ", ".join([*shown, part]) + (f" +{rest} more" if rest else "")
        if len(candidate) > NAME_LIMIT and shown:
            return f"{experiment}: " + ", ".join(shown) + f" +{len(parts) - len(shown)} more"
        shown.append(part)
    return f"{experiment}: " + ", ".join(shown)


def run_description(
    model: str,
    hyperparameters: dict[str, object],
    params: JSON,
    headline: tuple[str, float, float | None] | None,
    changed: dict[str, str],
    commit: str,
) -> str:
    """One paragraph for the run's page: the model and its settings, the data, the headline test figure with the lower
    end of its interval, and what differs from the committed params.yaml."""
    data = params["data"]
    settings = ", ".join(f"{k}={param_value(v)}" for k, v in sorted(hyperparameters.items()))
    metric, value, low = headline or (None, None, None)
    figure = "no headline figure" if metric is None else f"{metric} {value:.4f}"
    figure += "" if low is None else f" (lower end of its interval {low:.4f})"
    changes = (
        "params.yaml as committed"
        if not changed
        else "changed from the committed params.yaml: " + ", ".join(f"{k}={v}" for k, v in changed.items())
    )
    return f"{model} ({settings}) on {data['path']}, target {data['target']}: {figure}; {changes}" + (
        f" (commit {commit[:8]})." if commit else "."
    )
