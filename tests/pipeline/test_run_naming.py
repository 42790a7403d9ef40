"""A parent run's name, description and params (pipeline/tracking/naming.py): what changed from the committed
params.yaml, in at most 40 params and a name the runs table shows whole."""

from __future__ import annotations

import copy

import yaml

from pipeline.core.config import PARAMS_FILE, flatten
from pipeline.tracking import naming

PARAMS = yaml.safe_load(PARAMS_FILE.read_text())
LR = {"lam": 10.0, "max_iter": 1000, "penalty": "l2", "solver": "auto", "tol": 1e-08}


def edited(**changes) -> dict:
    params = copy.deepcopy(PARAMS)
    for key, value in changes.items():
        *path, leaf = key.split("__")
        node = params
        for part in path:
            node = node[part]
        node[leaf] = value
    return params


def test_values_read_as_params_yaml_spells_them():
    assert naming.param_value(None) == "null" and naming.param_value(True) == "true"
    assert naming.param_value([[0, 5], [1, 0]]) == "0 5 / 1 0"  # not '[...': the compare view reads that as JSON
    assert naming.param_value(["female", "black"]) == "female, black" and naming.param_value(0.5) == "0.5"


def test_only_what_differs_from_the_committed_file_is_changed():
    assert naming.changed_params(PARAMS, PARAMS) == {}
    params = edited(model__name="gradient_boosting", seed=7, decision__cost_matrix=[[0, 5], [1, 0]])
    assert naming.changed_params(params, PARAMS) == {
        "seed": "7",
        "model.name": "gradient_boosting",
        "decision.cost_matrix": "0 5 / 1 0",
    }
    assert naming.changed_params(PARAMS, {}) == {k: naming.param_value(v) for k, v in flatten(PARAMS).items()}


def test_the_name_is_the_experiment_and_the_changes_cut_to_the_limit():
    assert naming.run_name("noble-fare", {}) == "noble-fare"
    assert (
        naming.run_name("noble-fare", {"model.name": "gradient_boosting"}) == "noble-fare: model.name=gradient_boosting"
    )
    many = {f"search.grid.logistic_regression.lam{i}": "[0.03, 0.3, 3]" for i in range(6)}
    name = naming.run_name("noble-fare", many)
    assert len(name) <= naming.NAME_LIMIT and name.endswith(" more"), name
    shown = name.count("=")
    assert name.endswith(f"+{6 - shown} more") and shown >= 1


def test_at_most_forty_params_changed_first_then_the_model_then_the_defining_ones():
    changed = {"model.name": "logistic_regression", "fairness.reweighing": "false"}
    params = naming.defining_params(PARAMS, "logistic_regression", LR, changed)
    keys = list(params)
    assert keys[:2] == ["model.name", "fairness.reweighing"] and params["model.params.lam"] == "10.0"
    assert keys.index("model.params.tol") < keys.index("data.path") and params["model.name_in_params"] == "auto"
    assert set(naming.DEFINING) <= set(params) and len(params) == 2 + len(LR) + len(naming.DEFINING) - 1
    flood = {f"fairness.x{i}": str(i) for i in range(60)}
    capped = naming.defining_params(PARAMS, "mlp", LR, flood)
    assert len(capped) == naming.PARAM_LIMIT and capped["model.name"] == "mlp"


def test_the_description_names_the_model_its_figure_and_the_changes():
    text = naming.run_description(
        "logistic_regression", LR, PARAMS, ("test.roc_auc", 0.74, 0.72), {"seed": "7"}, "abcdef1234"
    )
    assert text.startswith("logistic_regression (lam=10.0, max_iter=1000, penalty=l2, solver=auto, tol=1e-08)")
    assert "test.roc_auc 0.7400 (lower end of its interval 0.7200)" in text
    assert text.endswith("changed from the committed params.yaml: seed=7 (commit abcdef12).")
