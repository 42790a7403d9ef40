"""params.yaml validation (docs/architecture.md section 4): the real file loads; every kind of mistake (unknown,
missing,
wrong type, out of range, impossible combination) is a PipelineError whose message names the dotted key."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from conftest import set_dotted

from pipeline.core.config import flatten, load_params, read_yaml
from pipeline.core.errors import PipelineError

REPO = Path(__file__).resolve().parents[2]
REAL = yaml.safe_load((REPO / "params.yaml").read_text())


def _delete(params: dict, dotted: str) -> None:
    *parents, leaf = dotted.split(".")
    node = params
    for p in parents:
        node = node[p]
    del node[leaf]


def _load(tmp_path: Path, params) -> dict:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False))
    return load_params(path)


def _variant(**changes) -> dict:
    """The real params with dotted keys replaced (`split__n_splits` -> split.n_splits)."""
    params = copy.deepcopy(REAL)
    for key, value in changes.items():
        set_dotted(params, key.replace("__", "."), value)
    return params


def _error(tmp_path: Path, params) -> str:
    with pytest.raises(PipelineError) as info:
        _load(tmp_path, params)
    return str(info.value)


def test_real_params_yaml_loads_unchanged():
    loaded = load_params(REPO / "params.yaml")
    assert loaded == REAL
    assert loaded["split"]["n_splits"] == 5 and loaded["data"]["target"] == "binexp"


def test_roundtrip_through_tmp_file(tmp_path):
    assert _load(tmp_path, REAL) == REAL


# ---- unknown keys -----------------------------------------------------------------------------------------


def test_unknown_top_level_key(tmp_path):
    params = copy.deepcopy(REAL)
    params["sed"] = 1
    message = _error(tmp_path, params)
    assert "unknown key sed" in message


def test_unknown_nested_key_names_dotted_path(tmp_path):
    params = copy.deepcopy(REAL)
    params["split"]["n_split"] = 5  # a typo of n_splits
    message = _error(tmp_path, params)
    assert "split.n_split" in message
    assert "n_splits" in message  # the valid keys are listed


def test_unknown_deeply_nested_key(tmp_path):
    params = copy.deepcopy(REAL)
    params["clean"]["outliers"]["polcy"] = "clip"
    assert "clean.outliers.polcy" in _error(tmp_path, params)


# ---- missing keys -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["seed", "data.target", "split.n_splits", "clean.outliers.bounds", "tracking.uri"])
def test_missing_key(tmp_path, key):
    params = copy.deepcopy(REAL)
    _delete(params, key)
    message = _error(tmp_path, params)
    assert "missing key" in message and key in message


def test_missing_section(tmp_path):
    params = copy.deepcopy(REAL)
    del params["calibration"]
    assert "calibration" in _error(tmp_path, params)


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "42\n"])
def test_file_that_is_not_a_mapping(tmp_path, text):
    path = tmp_path / "params.yaml"
    path.write_text(text)
    with pytest.raises(PipelineError, match="top level"):
        load_params(path)


def test_missing_file_and_invalid_yaml(tmp_path):
    with pytest.raises(PipelineError, match="not found"):
        load_params(tmp_path / "nope.yaml")
    bad = tmp_path / "params.yaml"
    bad.write_text("seed: [1, 2\n")
    with pytest.raises(PipelineError, match="not valid YAML") as caught:
        load_params(bad)
    assert "^" in str(caught.value), "the message shows the line with a caret (PyYAML's parser, not libyaml's)"


@pytest.mark.parametrize("name", ["params.yaml", "dvc.yaml", "dvc.lock"])
def test_fast_yaml_reads_what_safe_load_reads(name):
    text = (REPO / name).read_text()
    assert read_yaml(text) == yaml.safe_load(text)
    # the exponent forms YAML 1.1 reads as text stay text, as with safe_load
    assert read_yaml("a: 1e-3\nb: 1.0e-3\nc: yes\nd: 012\n") == {"a": "1e-3", "b": 1.0e-3, "c": True, "d": 10}


# ---- wrong types ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, value",
    [
        ("split.n_splits", "five"),
        ("split.n_splits", True),  # a bool is not an integer
        ("split.n_splits", 5.0),  # nor is a float
        ("seed", False),
        ("split.shuffle", "yes"),
        ("split.shuffle", 1),  # an integer is not a boolean
        ("split.test_size", "0.2"),
        ("decision.threshold", True),
        ("data.target", 3),
        ("data.target", ""),
        ("data.group", 7),
        ("data.sensitive", "female"),  # a string, not a list
        ("data.drop", [1, 2]),
        ("data.positive_label", [1]),
        ("clean.valid_ranges", {"age": [0]}),
        ("clean.valid_ranges", {"age": ["0", 100]}),
        ("clean.outliers.bounds", [1, 2]),
        ("search.grid", {"logistic_regression": {"lam": []}}),
        ("search.grid", {"logistic_regression": [0.1]}),
        ("model.params", None),
        ("model.params", {"logistic_regression": 3}),
        ("tracking.experiment", 3),
    ],
)
def test_wrong_type(tmp_path, key, value):
    message = _error(tmp_path, _variant(**{key.replace(".", "__"): value}))
    assert key in message
    assert repr(value) in message  # the value is shown


# ---- out of range / not one of the choices ----------------------------------------------------------------


@pytest.mark.parametrize(
    "key, value",
    [
        ("split.test_size", 1.5),
        ("split.test_size", 0),
        ("split.test_size", 1),
        ("split.n_splits", 1),
        ("seed", -1),
        ("decision.threshold", 1.0),
        ("data.task", "classification"),
        ("calibration.n_bins", 1),
        ("fairness.min_group_size", 0),
        ("search.n_iter", 0),
        ("split.strategy", "shuffle"),
        ("validate.on_invalid", "drop"),
        ("clean.outliers.policy", "winsorize"),
        ("calibration.method", "isotonic_typo"),
        ("search.scoring", "auc"),
        ("model.name", "no_such_model"),
        # the decision, calibration and fairness knobs
        ("calibration.method", "venn_abers"),  # a calibration method mllib does not implement
        ("decision.cost_matrix", [[0, 1], [1]]),
        ("decision.cost_matrix", [[0, 1], [1, 2]]),  # deciding 1 when y = 1 costs more than deciding 0
        ("decision.cost_matrix", [[0, "5"], [1, 0]]),
        ("decision.cost_matrix", 5),
        ("decision.cost_matrix", [[0]]),
        ("decision.cost_matrix", [[0, 1, 1], [1, 0, 1]]),  # not square
        ("decision.cost_matrix", [[0, 1, 1], [1, 0, 1], [1, 0, 0]]),  # deciding 2 when y = 1 costs no more than 1
        ("decision.reject_threshold", -0.1),
        ("decision.reject_threshold", 1.0),
        ("evaluate.target_risk", 0.0),
        ("fairness.n_boot", -1),
        ("fairness.confidence_level", 1.0),
        ("fairness.mitigation.criterion", "predictive_parity"),
        ("fairness.mitigation.tolerance", -0.1),
        ("fairness.reweighing", "yes"),
        ("calibration.params", [1]),
        ("calibration.params", {"platt": 3}),
    ],
)
def test_out_of_range_or_not_a_choice(tmp_path, key, value):
    message = _error(tmp_path, _variant(**{key.replace(".", "__"): value}))
    assert key in message


@pytest.mark.parametrize(
    "key, value",
    [
        ("split.test_size", 0.999),
        ("split.n_splits", 2),
        ("seed", 0),
        ("data.positive_label", None),
        ("data.positive_label", "yes"),
        ("clean.valid_ranges", {"age": [0, None]}),
        ("tracking.uri", "http://x:5000"),
        # the decision, calibration and fairness knobs
        *(("calibration.method", m) for m in ("platt", "beta", "isotonic", "temperature", "histogram_binning", "none")),
        ("decision.cost_matrix", [[0, 5], [1, 0]]),
        ("decision.cost_matrix", [[0.0, 2.5], [1, -0.5]]),
        ("decision.cost_matrix", [[0, 1, 4], [1, 0, 4], [2, 2, 0]]),
        ("decision.reject_threshold", 0.0),
        ("decision.reject_threshold", 0.4),  # below 1/2: abstains only when K > 2 classes are close
        *(("data.task", t) for t in ("auto", "binary", "multiclass", "regression")),
        ("split.strategy", "auto"),
        ("model.name", "auto"),
        ("model.name", "ridge"),  # the kind is checked by train
        ("search.scoring", "roc_auc_ovr"),
        ("search.scoring", "auto"),
        ("explain.scoring", "f1_macro"),
        ("calibration.set_coverage", 0.95),
        ("fairness.n_boot", 0),
        ("fairness.reweighing", False),
        (
            "calibration.params",
            {
                "histogram_binning": {"n_bins": 15, "strategy": "quantile", "prior_strength": 0.5},
                "platt": {"smooth_targets": False},
                "beta": {"smooth_targets": False, "max_iter": 50},
                "none": {},
            },
        ),
        *(
            ("fairness.mitigation.criterion", c)
            for c in ("equal_opportunity", "demographic_parity", "equalized_odds", "none")
        ),
    ],
)
def test_valid_and_boundary_values_are_accepted(tmp_path, key, value):
    node = _load(tmp_path, _variant(**{key.replace(".", "__"): value}))
    for part in key.split("."):
        node = node[part]
    assert node == value


# ---- relations between keys -------------------------------------------------------------------------------


def test_hyperparameters_are_checked_where_the_model_is_built():
    """Validating params.yaml imports no algorithm: the stage that builds a model checks its settings."""
    from pipeline.core.build import check_hyperparameter_names

    with pytest.raises(
        PipelineError,
        match=r"model.params.logistic_regression.foo: logistic_regression has no "
        r"hyperparameter 'foo'; valid: \[.*'lam'",
    ):
        check_hyperparameter_names("model.params.logistic_regression", "logistic_regression", {"foo": 1})
    check_hyperparameter_names("search.grid.random_forest", "random_forest", {"max_features": ["sqrt"]})


def test_settings_for_an_unknown_model_name(tmp_path):
    message = _error(tmp_path, _variant(search__grid={"logistic_regresion": {"lam": [1.0]}}))
    assert "search.grid.logistic_regresion" in message and "not a model name" in message


def test_hyperparameter_both_fixed_and_searched(tmp_path):
    message = _error(tmp_path, _variant(model__params={"logistic_regression": {"lam": 1.0}}))
    assert "lam" in message and "model.params" in message and "search.grid" in message


def test_valid_fixed_hyperparameter_is_accepted(tmp_path):
    loaded = _load(tmp_path, _variant(model__params={"logistic_regression": {"max_iter": 50}}))
    assert loaded["model"]["params"] == {"logistic_regression": {"max_iter": 50}}


@pytest.mark.parametrize(
    "changes, col, roles",
    [
        ({"data__categorical": ["plan", "site", "meddol"]}, "meddol", ("data.categorical", "data.drop")),
        ({"data__drop": ["binexp"]}, "binexp", ("data.drop", "data.target")),
        ({"data__group": "binexp"}, "binexp", ("data.group", "data.target")),
        ({"data__categorical": ["plan", "zper"]}, "zper", ("data.categorical", "data.group")),
    ],
)
def test_column_listed_in_two_roles(tmp_path, changes, col, roles):
    message = _error(tmp_path, _variant(**changes))
    assert repr(col) in message
    assert all(role in message for role in roles)


def test_sensitive_column_in_drop_is_audited_not_a_feature(tmp_path):
    """Lending and hiring rules may forbid the attribute as a feature while requiring the audit."""
    from pipeline.core.frames import feature_columns

    params = _load(tmp_path, _variant(data__drop=["meddol", "female"]))
    numeric, categorical = feature_columns(["_row_id", "binexp", "zper", "female", "age", "plan"], params["data"])
    assert "female" not in numeric + categorical and "age" in numeric and "plan" in categorical


@pytest.mark.parametrize("value", ["auto", True, False])
def test_drop_duplicate_rows_takes_auto_or_a_boolean(tmp_path, value):
    assert _load(tmp_path, _variant(clean__drop_duplicate_rows=value))["clean"]["drop_duplicate_rows"] == value
    assert "clean.drop_duplicate_rows" in _error(tmp_path, _variant(clean__drop_duplicate_rows="yes"))


def test_target_listed_as_sensitive(tmp_path):
    message = _error(tmp_path, _variant(data__sensitive=["female", "binexp"]))
    assert "data.sensitive" in message and "'binexp'" in message


@pytest.mark.parametrize("strategy", ["group", "stratified_group"])
def test_grouped_strategy_without_group(tmp_path, strategy):
    message = _error(tmp_path, _variant(split__strategy=strategy, data__group=None))
    assert "split.strategy" in message and "data.group" in message and strategy in message


@pytest.mark.parametrize("strategy", ["kfold", "stratified"])
def test_row_level_strategy_with_group_set(tmp_path, strategy):
    message = _error(tmp_path, _variant(split__strategy=strategy))
    assert "split.strategy" in message and "data.group" in message and "'zper'" in message


@pytest.mark.parametrize("strategy", ["kfold", "stratified"])
def test_row_level_strategy_without_group_is_fine(tmp_path, strategy):
    loaded = _load(tmp_path, _variant(split__strategy=strategy, data__group=None))
    assert loaded["split"]["strategy"] == strategy and loaded["data"]["group"] is None


# ---- flatten ----------------------------------------------------------------------------------------------


def _leaf_paths(text: str) -> set[str]:
    """Dotted paths of the leaves of params.yaml, walked independently of pipeline.core.config."""
    out = set()

    def walk(node, prefix):
        for k, v in node.items():
            if isinstance(v, dict) and v:
                walk(v, f"{prefix}{k}.")
            else:
                out.add(f"{prefix}{k}")

    walk(yaml.safe_load(text), "")
    return out


def test_flatten_gives_the_dotted_keys_of_params_yaml():
    flat = flatten(REAL)
    assert set(flat) == _leaf_paths((REPO / "params.yaml").read_text())
    assert flat["split.n_splits"] == REAL["split"]["n_splits"]
    assert flat["clean.outliers.policy"] == REAL["clean"]["outliers"]["policy"]
    assert flat["search.grid.logistic_regression.lam"] == REAL["search"]["grid"]["logistic_regression"]["lam"]
    assert flat["calibration.params"] == {}  # an empty section is one leaf, not lost
    assert flat["tracking.uri"] is None
    assert not any(isinstance(v, dict) and v for v in flat.values())


def test_flatten_roundtrip():
    flat = flatten(REAL)
    rebuilt: dict = {}
    for key, value in flat.items():
        *parents, leaf = key.split(".")
        node = rebuilt
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    assert rebuilt == REAL


def test_flatten_small_example():
    assert flatten({"a": 1, "b": {"c": {"d": 2}, "e": {}}, "f": [1, {"g": 3}]}) == {
        "a": 1,
        "b.c.d": 2,
        "b.e": {},
        "f": [1, {"g": 3}],
    }


def test_empty_grid_means_one_candidate_from_model_params(tmp_path):
    loaded = _load(tmp_path, _variant(search__grid={}, model__params={"logistic_regression": {"lam": 3.0}}))
    assert loaded["search"]["grid"] == {} and loaded["model"]["params"] == {"logistic_regression": {"lam": 3.0}}


@pytest.mark.parametrize("model", sorted(REAL["search"]["grid"]))
def test_every_default_search_candidate_fits(model):
    """Each model's grid in params.yaml gives candidates its class accepts (values, not only names)."""
    import numpy as np

    from mllib.model_selection import ParameterGrid
    from mllib.registry import CLASSIFIERS, REGRESSORS

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 6))
    signal = X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=120)
    for candidate in ParameterGrid(REAL["search"]["grid"][model]):
        settings = {**REAL["model"]["params"].get(model, {}), **candidate}
        if model in REGRESSORS:
            prediction = REGRESSORS[model](**settings).fit(X, signal).predict(X)
            assert prediction.shape == (120,) and np.isfinite(prediction).all(), candidate
        else:
            proba = CLASSIFIERS[model](**settings).fit(X, (signal > 0).astype(int)).predict_proba(X)
            assert proba.shape == (120, 2) and np.isfinite(proba).all(), candidate


def test_the_registrys_name_tables_are_mllibs():
    """mllib.registry lists criterion, splitter and feature-step names so that validating params.yaml imports no
    algorithm; they must be the names mllib defines."""
    from mllib import registry
    from mllib.fairness import MITIGATION_CRITERIA

    assert MITIGATION_CRITERIA is registry.MITIGATION_CRITERIA
    for table in (registry.SPLITTERS, registry.REPEATED_SPLITTERS):
        for name in table:
            assert table[name]().get_n_splits is not None  # every path resolves to a splitter
    assert set(registry.REPEATED_SPLITTERS) <= set(registry.SPLITTERS)
    assert set(registry.GROUPED_SPLITTERS) | set(registry.STRATIFIED_SPLITTERS) <= set(registry.SPLITTERS)
    for step, names in registry.FEATURE_STEPS.items():
        assert all(n == "none" or n in registry.REGISTRY for n in names), step


def test_validating_params_reads_the_scorers_names_without_scipy():
    """params.yaml's scoring choices are mllib.metrics.scorers' own names (one table: a new scorer is offered where it
    is defined), and reading them imports no SciPy: a fresh interpreter validating params imports the scorers
    module, not the metrics that need SciPy (the AUC interval)."""
    import subprocess
    import sys

    code = (
        "import sys, pipeline.core.params as p; from mllib.metrics.scorers import SCORERS, REGRESSION_SCORERS; "
        "print(set(SCORERS) | set(REGRESSION_SCORERS) <= set(p._SCORERS), 'scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "False"]


def test_exponent_strings_in_settings_are_read_as_numbers(tmp_path):
    """YAML 1.1 reads `lam: [1e-3, 1e2]` as two strings (logistic regression then failed with a TypeError); in a
    grid or a setting they are the numbers they spell, while a key with a declared type refuses a string by name."""
    text = (REPO / "params.yaml").read_text()
    text = text.replace(
        "logistic_regression: {lam: [0.1, 1.0, 10.0, 100.0]}", "logistic_regression: {lam: [1e-3, 1E2]}"
    )
    text = text.replace("adaboost: {n_estimators: 200}", "adaboost: {n_estimators: 200, learning_rate: 5e-1}")
    path = tmp_path / "params.yaml"
    path.write_text(text)
    assert yaml.safe_load(text)["search"]["grid"]["logistic_regression"]["lam"] == ["1e-3", "1E2"]  # YAML 1.1
    params = load_params(path)
    assert params["search"]["grid"]["logistic_regression"]["lam"] == [0.001, 100.0]
    assert params["model"]["params"]["adaboost"]["learning_rate"] == 0.5
    assert params["search"]["grid"]["svm"]["gamma"] == ["scale", 0.01]  # other text stays text
    path.write_text(text.replace("tolerance: 0.005", "tolerance: 5e-3"))
    with pytest.raises(PipelineError, match="tracking.promotion.tolerance"):
        load_params(path)


def test_roles_conflict_but_an_attribute_audited_only_may_stay_categorical(tmp_path):
    """The README's audit-only recipe (list a sensitive attribute in data.drop too) failed for a text attribute,
    which data.categorical also lists: "column 'afam' is listed in both data.categorical and data.drop". A sensitive
    column in data.drop is never a feature, so its kind is moot; any other column keeps one role."""
    data = REAL["data"]
    attribute = data["sensitive"][0]
    audited = _variant(data__drop=[*data["drop"], attribute], data__categorical=[*data["categorical"], attribute])
    assert attribute in _load(tmp_path, audited)["data"]["drop"]
    other = next(c for c in data["categorical"] if c not in data["sensitive"])
    message = _error(tmp_path, _variant(data__drop=[*data["drop"], other]))
    assert f"column {other!r} is listed in both data.categorical and data.drop" in message
