"""The registered model's versions: each pipeline state's version, the promotion gate's decision on it (pipeline/
tracking/promotion.py) and what it says of it (its tags and description, the run's verdict and name); the aliases a
user serves, moved only for the workspace's own states: `candidate` its latest, `champion` one that passed the gate;
a version an experiment registered outside the workspace moves none until it is applied and reproduced."""

from __future__ import annotations

import contextlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from ..core import paths
from ..core.io import read_json
from ..core.json_types import JSON
from ..core.records import FeaturesReport
from ..core.task import Target
from ..reporting import verdict
from ..reporting.headline import flat, undefined_gaps
from .promotion import (
    Champion,
    Check,
    champion_check,
    contract_check,
    contract_tags,
    decide,
    description,
    model_description,
    threshold_checks,
)

if TYPE_CHECKING:
    from mlflow import MlflowClient
    from mlflow.entities import LoggedModel
    from mlflow.entities.model_registry import ModelVersion
    from mlflow.models.model import ModelInfo

EXPERIMENT_TMP = f"{os.sep}.dvc{os.sep}tmp{os.sep}exps{os.sep}"  # where DVC runs queued and temporary experiments
NOTE = "mlflow.note.content"  # the run's description on its page
RECORDED = "promotion.decision"  # the version tag that completes a state's record
EXPERIMENT_TAG = "dvc.experiment"  # the version tag naming the experiment that registered it outside the workspace
OUTSIDE = "experiment {}: no alias moved"  # in the decision of a version an experiment registered outside the workspace
NO_ALIAS = (
    "it moved no alias; to make it the workspace's state, `dvc exp apply` it and `dvc repro`, which points `candidate` "
    "at this version and moves `champion` to it if it passes the gate there"
)
PENDING = "pending"  # its value from registration until the gate decides: first among the version's tags in the UI


@dataclass(frozen=True)
class Registered:
    """The version registered for a state, and the gate's decision on it."""

    registered_model: str
    version: int
    champion: bool
    reasons: list[str]
    checks: list[Check]  # the gate's checks, as decided
    decided: str  # the decision as the version's tag says it


def experiment_outside_workspace() -> str | None:
    """The DVC experiment's name when the stage runs outside the workspace (`dvc exp run --queue` or `--temp`, in
    .dvc/tmp/exps/...): its version is registered and decided but moves no alias a user serves. None in the
    workspace (`dvc repro`, or `dvc exp run` in place). The working directory says it: DVC points DVC_ROOT at the
    workspace's root for every experiment."""
    here = str(Path.cwd().resolve()) + os.sep
    if EXPERIMENT_TMP not in here:
        return None
    return os.environ.get("DVC_EXP_NAME") or Path(here).name


def contract_of() -> dict[str, str]:
    """The question the model answers and what it takes: the target (column, task, classes) and the input columns
    with their kinds; the gate compares them with the champion's (promotion.contract_check). The version shows the
    inputs as a short tag (contract_tags), the whole list is a tag of its logged model (full_contract)."""
    target = read_json(paths.TARGET, "split")
    features = FeaturesReport.read()
    inputs = [f"{c}:numeric" for c in features.numeric] + [f"{c}:categorical" for c in features.categorical]
    classes = f", classes {target['classes']}" if target["classes"] else ""
    return {
        "contract.target": f"{target['column']} ({target['task']}{classes})"[:5000],
        "contract.inputs": json.dumps(inputs),
    }


def full_contract(client: MlflowClient, tags: dict[str, str], source: str | None) -> dict[str, str]:
    """A version's tags with its whole input list (from its logged model, `source` models:/<model id>) in place of
    the short tag; a version registered before the short tag holds the list itself."""
    shown = tags.get("contract.inputs")
    if shown is None or shown.startswith("[") or source is None or not source.startswith("models:/"):
        return tags
    model = client.get_logged_model(source.removeprefix("models:/"))
    return tags | {"contract.inputs": model.tags.get("contract.inputs", shown)}


def register(
    mlflow: ModuleType,
    client: MlflowClient,
    name: str,
    model: ModelInfo | LoggedModel | None,
    run_id: str,
    target: Target,
    params: JSON,
    version: ModelVersion | None = None,
) -> Registered:
    """A new version of `name` (or `version`, registered by a run interrupted before its decision) with alias
    candidate; alias champion too when the promotion gate passes. The version carries a handful of tags (its
    contract, the gate's figure, the decision, the failed checks, the champion it was compared with) and a
    description stating the decision and every check with its value and bound; the version that loses champion says
    so in its decision tag and description."""
    figures, contract = flat(read_json(paths.HEADLINE, "report")), contract_of()
    promotion = params["tracking"]["promotion"]
    metric = f"test.{target.headline_metric}"
    if version is None:
        assert model is not None  # a version to register has its logged model
        gate_figure = {f"headline.{metric}": str(figures[metric])} if metric in figures else {}
        client.set_logged_model_tags(model.model_id, {"contract.inputs": contract["contract.inputs"]})
        tags = {RECORDED: PENDING, **gate_figure, **contract_tags(contract)}
        with contextlib.redirect_stderr(io.StringIO()):  # its "Successfully registered" lines: the summary says it
            version = mlflow.register_model(model.model_uri, name, tags=tags)
    about = model_description(name, contract["contract.target"])
    if client.get_registered_model(name).description != about:
        client.update_registered_model(name, description=about)
    outside = experiment_outside_workspace()
    if outside is None:  # `candidate` is the workspace's state
        client.set_registered_model_alias(name, "candidate", version.version)
    try:
        current = client.get_model_version_by_alias(name, "champion")
    except Exception:  # no champion yet (MLflow raises when the alias is unset)
        current = None
    best = best_champion(client, name, metric, contract)
    current_tags = full_contract(client, dict(current.tags), getattr(current, "source", None)) if current else None
    allow = promotion["allow_contract_change"]
    checks = thresholds(params, target, figures) + [
        champion_check(figures, target, best, promotion["tolerance"], current_tags, contract, allow),
        contract_check(contract, current_tags, allow),
    ]
    decision = decide(checks)
    if decision.promote and outside is None:  # `champion`: only ever a workspace state that passed the gate
        client.set_registered_model_alias(name, "champion", version.version)
        if current is not None and current.version != version.version:
            client.set_model_version_tag(
                name, current.version, RECORDED, f"former champion (replaced by version {version.version})"
            )
            lost = f"\n\nNo longer champion: version {version.version} took the alias."
            client.update_model_version(name, current.version, description=(current.description or "") + lost)
    failed = [c.check for c in checks if c.passed is False]
    about_version = description(decision.promote, checks, run_id)
    decided = "champion" if decision.promote else "candidate only"
    if outside is not None:
        decided = f"{'passed the gate' if decision.promote else 'candidate only'} ({OUTSIDE.format(outside)})"
        about_version = f"DVC experiment {outside}, run outside the workspace: {NO_ALIAS}.\n\n{about_version}"
        client.set_model_version_tag(name, version.version, EXPERIMENT_TAG, outside)
    client.update_model_version(name, version.version, description=about_version)
    for key, value in (  # the decision last: it is what marks the state recorded (find_state)
        ("promotion.failed", "; ".join(failed)[:5000] if failed else "none"),
        ("promotion.compared_with", f"version {best.version} ({metric} {best.figure:.4g})" if best else "none"),
        ("run_id", run_id),
        (RECORDED, decided),
    ):
        client.set_model_version_tag(name, version.version, key, value)
    return Registered(name, int(version.version), decision.promote and outside is None, decision.reasons, checks,
                      decided)  # fmt: skip


def thresholds(params: JSON, target: Target, figures: JSON) -> list[Check]:
    """The gate's checks that need no registry, on the run's headline figures (promotion.threshold_checks)."""
    undefined = undefined_gaps(target, target.fairness_record.read())
    costs_set = params["decision"]["cost_matrix"] is not None
    return threshold_checks(figures, target, params["tracking"]["promotion"], costs_set, undefined)


def best_champion(client: MlflowClient, name: str, metric: str, contract: dict[str, str]) -> Champion | None:
    """The best version that has ever been champion of `name` for the same target, whatever
    its input columns: the gate compares a candidate with it, so the champion cannot drift down through the tolerance
    one small step at a time, nor escape the comparison by changing its inputs."""
    best = None
    for v in client.search_model_versions(f"name = '{name}'"):
        was_champion = v.tags.get(RECORDED, "").startswith(("champion", "former champion"))
        same = v.tags.get("contract.target") in (None, contract["contract.target"])  # None: predates contract tags
        figure = v.tags.get(f"headline.{metric}")
        if was_champion and same and figure is not None and (best is None or float(figure) > best.figure):
            tags = full_contract(client, dict(v.tags), getattr(v, "source", None))
            best = Champion(version=v.version, figure=float(figure), tags=tags)
    return best


def say_verdict(client: MlflowClient, run_id: str, name: str, r: Registered) -> str:
    """The run's description opens with the verdict, also its tag `verdict`, and its name ends with the headline and
    the decision (the runs table shows names whole, not a metric column until one is picked); returns the status."""
    status = "champion" if r.champion else "candidate, not champion" if r.decided == "candidate only" else r.decided
    first = f"Verdict: {status}: {verdict.why(r.checks)}"
    metric = f"test.{Target.read(paths.TARGET).headline_metric}"
    figure = flat(read_json(paths.HEADLINE, "report")).get(metric)
    short = "champion" if r.champion else "candidate" if r.decided == "candidate only" else "experiment, no alias"
    named = client.get_run(run_id).info.run_name.split(" | ")[0]
    headline = "" if figure is None else f" | {metric.removeprefix('test.')} {figure:.4f}"
    client.update_run(run_id, name=f"{named}{headline} | {short}")
    note = client.get_run(run_id).data.tags.get(NOTE, "").split("\n\n")[-1].split(" Registered as ")[0]
    reasons = "every check passes" if r.champion or r.decided.startswith("passed") else "; ".join(r.reasons)
    client.set_tag(run_id, NOTE, f"{first}\n\n{note} Registered as {name} version {r.version}: {reasons}."[:5000])
    client.set_tag(run_id, "verdict", first[:5000])
    return status
