"""params.yaml: load and validate. Unknown keys, missing keys, wrong types and out-of-range values are
errors that name the key; every knob must be present (defaults live in params.yaml, not in code)."""

from __future__ import annotations

import math
import re
import reprlib
from pathlib import Path

import yaml

from mllib import registry

from .errors import PipelineError
from .task import TASKS

PARAMS_FILE = Path("params.yaml")


# a value as messages show it: a few items of each list or mapping, a few levels deep, cut to one short line, so the
# work and the line are bounded whatever the value holds (a YAML alias can stand for a structure of any size)
_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxlist, _SHOWN.maxdict, _SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlong = 3, 6, 6, 80, 80, 40


def shown(value, limit: int = 120) -> str:
    return cut(_SHOWN.repr(value), limit)


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Check:
    """A validator for one value: `check(key, value)` raises PipelineError naming the key."""

    def __init__(self, description: str, test, nullable: bool = False):
        self.description, self.test, self.nullable = description, test, nullable

    def __call__(self, key: str, value):
        if value is None and self.nullable:
            return
        if not self.test(value):
            raise PipelineError(f"params.yaml: {key} must be {self.description}, got {shown(value)}")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def integer(minimum=None, nullable=False):
    text = "an integer" + (f" >= {minimum}" if minimum is not None else "")
    return _Check(text, lambda v: _is_int(v) and (minimum is None or v >= minimum), nullable)


def count(minimum: int, maximum: int, what: str):
    """A count of repeated work (bootstrap draws, repeats, samples) with a stated upper bound: beyond it a stage would
    run for hours without a word, and the figures it refines would not change at the precision reported."""
    return _Check(f"an integer in [{minimum}, {maximum:,}] ({what})", lambda v: _is_int(v) and minimum <= v <= maximum)


def number(low, high, nullable=False):
    return _Check(f"a number in ({low}, {high})", lambda v: _is_number(v) and low < v < high, nullable)


def unit_interval():
    return _Check("a number in [0, 1] or null", lambda v: _is_number(v) and 0 <= v <= 1, nullable=True)


def string(nullable=False):
    return _Check("a string" + (" or null" if nullable else ""), lambda v: isinstance(v, str) and v != "", nullable)


def boolean():
    return _Check("true or false", lambda v: isinstance(v, bool))


def choice(*options):
    return _Check(f"one of {list(options)}", lambda v: v in options)


def scalar(nullable=False):
    return _Check("a number, string or boolean", lambda v: isinstance(v, (int, float, str, bool)), nullable)


def string_list():
    return _Check("a list of column names", lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v))


def ranges():
    def ok(v):
        return isinstance(v, dict) and all(
            isinstance(r, list) and len(r) == 2 and all(x is None or _is_number(x) for x in r) for r in v.values()
        )

    return _Check("a mapping {column: [low, high]} (null for an open end)", ok)


def per_model(description: str, value_ok, names: str = "model name"):
    """A mapping {registry name: {hyperparameter: value}}: settings for every model (or calibration method),
    the chosen one applies."""

    def ok(v):
        return isinstance(v, dict) and all(
            isinstance(m, dict) and all(value_ok(x) for x in m.values()) for m in v.values()
        )

    return _Check(f"a mapping {{{names}: {{hyperparameter: {description}}}}} ({{}} for none)", ok)


def mapping():
    return _Check("a mapping (use {} for none)", lambda v: isinstance(v, dict))


def cost_matrix():
    """null, or a K x K list of finite numbers, cost[a][j] = cost of deciding class a when the true class is j
    (mllib.decisions: rows = decisions, columns = true classes), with each class's correct decision strictly cheaper
    than any wrong one; K is checked against the target's classes where the predictor is assembled."""

    def ok(v):
        if not (isinstance(v, list) and len(v) >= 2 and all(isinstance(r, list) and len(r) == len(v) for r in v)):
            return False
        if not all(_is_number(x) and math.isfinite(x) for r in v for x in r):
            return False
        return all(v[j][j] < v[a][j] for j in range(len(v)) for a in range(len(v)) if a != j)

    return _Check(
        "null or a square K x K list (K = the number of classes, in the order of reports/validation.json) "
        "[[cost(decide 0 | y 0), cost(decide 0 | y 1), ...], [cost(decide 1 | y 0), ...], ...] of finite "
        "numbers in which each class's correct decision is strictly cheaper than every wrong one",
        ok,
        nullable=True,
    )


SPEC = {
    "seed": integer(0),
    "data": {
        "path": string(),
        "target": string(),
        "task": choice(*TASKS),
        "positive_label": scalar(nullable=True),
        "group": string(nullable=True),
        "time": string(nullable=True),
        "time_feature": choice("none", "elapsed", "index"),
        "sensitive": string_list(),
        "drop": string_list(),
        "categorical": string_list(),
        "schema": string(nullable=True),
    },
    "validate": {
        "on_invalid": choice("fail", "quarantine"),
        "fractional_binary": choice("fail", "quarantine", "round"),
        "extreme_factor": _Check("a number > 1 or null (off)", lambda v: _is_number(v) and v > 1, nullable=True),
        "missing_target": choice("quarantine", "fail"),
        "missing_sensitive": choice("group", "quarantine", "fail"),
    },
    "clean": {
        "drop_duplicate_rows": choice("auto", True, False),
        "drop_duplicate_columns": boolean(),
        "valid_ranges": ranges(),
        "outliers": {"policy": choice("none", "flag", "clip", "remove"), "bounds": ranges()},
    },
    "split": {
        "test_size": number(0, 1),
        "strategy": choice("auto", *registry.SPLITTERS),
        "n_splits": integer(2),
        "n_repeats": count(1, 100, "reshuffled repeats of the folds"),
        "valid_size": number(0, 1),
        "shuffle": boolean(),
        "gap": _Check("a number of time units >= 0", lambda v: _is_number(v) and v >= 0),
    },
    "features": {step: {"name": choice(*names), "params": mapping()} for step, names in registry.FEATURE_STEPS.items()},
    "model": {
        "name": choice("auto", *registry.CLASSIFIERS, *registry.REGRESSORS),
        "candidates": _Check(
            f"a list of distinct registry model names (classifiers: {sorted(registry.CLASSIFIERS)}; "
            f"regressors: {sorted(registry.REGRESSORS)}), [] for model.name alone",
            lambda v: (
                isinstance(v, list)
                and len(set(map(str, v))) == len(v)
                and all(n in registry.CLASSIFIERS or n in registry.REGRESSORS for n in v)
            ),
        ),
        "selection": choice("best", "one_se"),
        "target_transform": choice("auto", "none", "log"),
        "params": per_model("value", lambda x: True),
    },
    "search": {
        "method": choice("grid", "random"),
        "grid": per_model("[values, ...]", lambda x: isinstance(x, list) and len(x) > 0),
        "n_iter": integer(1),
        "scoring": choice("auto", *registry.SCORERS, *registry.REGRESSION_SCORERS),
    },
    "calibration": {
        "method": choice("auto", *registry.CALIBRATORS),
        "n_bins": count(2, 1000, "bins of the reliability diagram"),
        "binning": choice("uniform", "quantile"),
        "margin": _Check("a number >= 0 (standard errors)", lambda v: _is_number(v) and v >= 0),
        "params": per_model("value", lambda x: True, names="method name"),
        "set_coverage": number(0, 1),
        "interval_coverage": number(0, 1),
        "interval_method": choice("cv_plus", "split"),
        "interval_score": choice("auto", "absolute", "normalized"),
    },
    "decision": {
        "threshold": number(0, 1),
        "cost_matrix": cost_matrix(),
        "reject_threshold": _Check("a number in [0, 1) (0: never abstain)", lambda v: _is_number(v) and 0 <= v < 1),
    },
    "assess": {
        "leakage": boolean(),
        "learning_curve": boolean(),
        "train_fractions": _Check(
            "a list of at least two increasing fractions in (0, 1], the last 1.0",
            lambda v: (
                isinstance(v, list)
                and len(v) >= 2
                and all(_is_number(x) and 0 < x <= 1 for x in v)
                and v == sorted(set(v))
                and v[-1] == 1.0
            ),
        ),
        "single_feature_bound": _Check(
            "a number in (0, 1] or null (off)", lambda v: _is_number(v) and 0 < v <= 1, nullable=True
        ),
        "legitimate_features": string_list(),
        "nested": boolean(),
        "inner_splits": integer(2),
        "max_refit_rows": integer(1, nullable=True),
        "max_rows": integer(1, nullable=True),
        "validation_curve": _Check(
            "a mapping {model name: {one hyperparameter: [at least two values]}}",
            lambda v: (
                isinstance(v, dict)
                and all(
                    isinstance(m, dict) and len(m) == 1 and all(isinstance(x, list) and len(x) >= 2 for x in m.values())
                    for m in v.values()
                )
                and all(n in registry.CLASSIFIERS or n in registry.REGRESSORS for n in v)
            ),
        ),
    },
    "evaluate": {
        "target_risk": number(0, 1),
        "n_boot": count(1, 10_000, "bootstrap draws of the test rows"),
        "confidence_level": number(0, 1),
        "max_rows": integer(2, nullable=True),
    },
    "fairness": {
        "min_group_size": integer(1),
        "n_boot": count(0, 10_000, "bootstrap replicates; 0 for none"),
        "confidence_level": number(0, 1),
        "mitigation": {
            "criterion": choice(*registry.MITIGATION_CRITERIA, "none"),
            "tolerance": _Check("a number in [0, 1)", lambda v: _is_number(v) and 0 <= v < 1),
        },
        "reweighing": boolean(),
        "favourable_label": scalar(nullable=True),
    },
    "explain": {
        "n_repeats": count(1, 100, "permutations per column"),
        "scoring": choice("auto", *registry.SCORERS, *registry.REGRESSION_SCORERS),
        "shapley": choice("auto", "tree", "linear", "kernel", "exact", "none"),
        "n_rows": count(1, 10_000, "test rows explained"),
        "n_background": count(1, 1_000, "background rows"),
        "kernel_samples": count(2, 100_000, "coalitions per row"),
        "kernel_bootstrap": count(2, 10_000, "bootstrap replicates of the coalitions"),
        "relevance": choice("gradient_x_input", "lrp_basic", "lrp_epsilon", "lrp_z_plus", "none"),
        "lrp_epsilon": number(0, math.inf),
        "pdp_features": count(0, 100, "features with partial dependence plots"),
        "surrogate_depth": integer(0),
        "surrogate_rows": integer(1),
        "max_rows": integer(1, nullable=True),
        "grid_resolution": count(2, 1_000, "grid points per feature"),
        "pdp_percentiles": _Check(
            "a pair [low, high] with 0 <= low < high <= 1",
            lambda v: isinstance(v, list) and len(v) == 2 and all(_is_number(x) for x in v) and 0 <= v[0] < v[1] <= 1,
        ),
    },
    "compute": {
        "backend": choice("local", "dask"),
        "n_workers": integer(1, nullable=True),
        "scheduler": string(nullable=True),
    },
    "monitor": {
        "batch": string(nullable=True),
        "fdr": number(0, 1),
        "domain_classifier": choice("none", *registry.CLASSIFIERS),
        "max_rows": integer(100, nullable=True),
    },
    "tracking": {
        "uri": string(nullable=True),
        "experiment": string(nullable=True),
        "registered_model": string(nullable=True),
        "promotion": {
            "min_headline": {
                "binary": unit_interval(),
                "multiclass": unit_interval(),
                "regression": _Check("a number <= 1 (R^2) or null", lambda v: _is_number(v) and v <= 1, nullable=True),
            },
            "max_ece": unit_interval(),
            "min_decision_gain": _Check(
                "a number >= 0 or null (skip)", lambda v: _is_number(v) and v >= 0, nullable=True
            ),
            "max_coverage_shortfall": unit_interval(),
            "max_fairness_gap": unit_interval(),
            "tolerance": _Check("a number >= 0 or null", lambda v: _is_number(v) and v >= 0, nullable=True),
            "fail_not_evaluated": boolean(),
            "allow_contract_change": boolean(),
        },
    },
}


def _validate(spec: dict, values, prefix: str = "") -> None:
    where = prefix.rstrip(".") or "the top level"
    if not isinstance(values, dict):
        raise PipelineError(f"params.yaml: {where} must be a mapping of keys, got {shown(values)}")
    unknown = sorted(set(values) - set(spec))
    if unknown:
        raise PipelineError(
            f"params.yaml: unknown key {prefix}{unknown[0]}; valid keys in {where}: {sorted(spec)} (check the spelling)"
        )
    for key, rule in spec.items():
        if key not in values:
            raise PipelineError(f"params.yaml: missing key {prefix}{key}; every knob must be set in params.yaml")
        if isinstance(rule, dict):
            _validate(rule, values[key], f"{prefix}{key}.")
        else:
            rule(f"{prefix}{key}", values[key])


def _validate_relations(params: dict) -> None:
    data = params["data"]
    roles = {
        "data.target": [data["target"]],
        "data.group": [data["group"]] if data["group"] else [],
        "data.time": [data["time"]] if data["time"] else [],
        "data.drop": data["drop"],
        "data.categorical": data["categorical"],
    }
    audited_only = set(data["drop"]) & set(data["sensitive"])  # its kind is moot: never a feature, audited as groups
    for role_a, cols_a in roles.items():
        for role_b, cols_b in roles.items():
            shared = sorted(set(cols_a) & set(cols_b)) if role_a < role_b else []
            if {role_a, role_b} == {"data.drop", "data.categorical"}:
                shared = [c for c in shared if c not in audited_only]
            if shared:
                raise PipelineError(
                    f"params.yaml: column {shown(shared[0])} is listed in both {role_a} and {role_b}; give it one role"
                )
    if data["time_feature"] != "none" and not data["time"]:
        raise PipelineError(
            f"params.yaml: data.time_feature is {data['time_feature']!r} but data.time is null; set data.time to the "
            "column that orders the rows, or data.time_feature: none"
        )
    if data["target"] in data["sensitive"]:
        raise PipelineError(f"params.yaml: data.sensitive lists the target {shown(data['target'])}")
    strategy = params["split"]["strategy"]
    if strategy in registry.GROUPED_SPLITTERS and not data["group"]:
        raise PipelineError(
            f"params.yaml: split.strategy is {strategy!r} but data.group is null; "
            "set data.group to the id column, or use auto or a row-level strategy (e.g. stratified)"
        )
    if strategy in registry.TIME_SPLITTERS and not data["time"]:
        raise PipelineError(
            f"params.yaml: split.strategy is {strategy!r} but data.time is null; set data.time to the column that "
            "orders the rows (a date, or an ordered number such as a year), or use auto"
        )
    if strategy not in (*registry.GROUPED_SPLITTERS, *registry.TIME_SPLITTERS, "auto") and data["group"]:
        raise PipelineError(
            f"params.yaml: split.strategy {strategy!r} splits single rows, but data.group "
            f"{shown(data['group'])} says rows of one group must stay together; use auto or one of "
            f"{list(registry.GROUPED_SPLITTERS)}, "
            "or set data.group: null to declare the rows independent"
        )
    models = {**{n: "classifier" for n in registry.CLASSIFIERS}, **{n: "regressor" for n in registry.REGRESSORS}}
    for key in ("model.params", "search.grid"):
        section, _, field = key.partition(".")
        for name in params[section][field]:
            if name not in models:
                raise PipelineError(f"params.yaml: {key}.{name}: not a model name; valid: {sorted(models)}")
    for model, fixed in params["model"]["params"].items():
        both = sorted(set(fixed) & set(params["search"]["grid"].get(model, {})))
        if both:
            raise PipelineError(
                f"params.yaml: {model} hyperparameter {shown(both[0])} is set in model.params and searched "
                "in search.grid; keep one"
            )
    for name in params["calibration"]["params"]:
        if name not in registry.CALIBRATORS:
            raise PipelineError(
                f"params.yaml: calibration.params.{name}: not a calibration method name; valid: "
                f"{sorted(registry.CALIBRATORS)}"
            )


class DuplicateKeyError(yaml.YAMLError):
    """A mapping that names a key twice: PyYAML keeps the last value without a word, DVC refuses the file."""


class _UniqueKeys:
    """A YAML constructor that refuses a key given twice in one mapping, as DVC's parser does (a stage run directly
    would otherwise use the last value while `dvc repro` refuses the file). Keys a merge (`<<: *base`) brings in may
    be overridden: that is what a merge is for."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            lines: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)  # type: ignore[attr-defined]
                if not isinstance(key, (str, int, float, bool)):
                    continue  # an unhashable key: the constructor names it
                line = key_node.start_mark.line + 1
                if key in lines:
                    raise DuplicateKeyError(
                        f"key {shown(key, 60)} is given twice in one mapping (lines {lines[key]} and {line}); keep "
                        "one (DVC refuses a file with a duplicate key)"
                    )
                lines[key] = line
        return super().construct_mapping(node, deep=deep)  # type: ignore[misc]


# libyaml's parser where PyYAML was built with it: the same documents, read ten times faster (every stage reads
# params.yaml, track reads dvc.lock: 15 and 90 ms with the pure-Python parser)
class _FastLoader(_UniqueKeys, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    pass


class _Loader(_UniqueKeys, yaml.SafeLoader):
    pass


def read_yaml(text: str):
    """YAML text as `yaml.safe_load` reads it, a key given twice in one mapping refused (DuplicateKeyError)."""
    try:
        return yaml.load(text, Loader=_FastLoader)
    except DuplicateKeyError:
        raise
    except yaml.YAMLError:
        return yaml.load(text, Loader=_Loader)  # invalid: PyYAML's own parser says where, with the line and a caret


# params.yaml holds a few hundred values; an alias (*name) repeats its anchor's value without copying it, so a few
# lines of nested aliases stand for billions of values (the "billion laughs"), which any walk over them never ends
MAX_VALUES = 100_000


def _check_expanded_size(params, path: Path) -> None:
    """Refuse a document whose values, aliases expanded, exceed MAX_VALUES: counted with a budget, so the count
    stops as soon as it is passed."""
    pending, seen = [params], 0
    while pending:
        value = pending.pop()
        seen += 1
        if seen > MAX_VALUES:
            raise PipelineError(
                f"{path} holds more than {MAX_VALUES:,} values once its YAML aliases (*name) are expanded; write the "
                "settings out, with fewer aliases (params.yaml needs a few hundred values)"
            )
        if isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)


def load_params(path: Path | str = PARAMS_FILE) -> dict:
    """Read and validate params.yaml; return it as nested dicts."""
    path = Path(path)
    try:
        params = read_yaml(path.read_text())
    except FileNotFoundError:
        raise PipelineError(f"{path} not found; run the stage from the repository root") from None
    except yaml.YAMLError as exc:
        raise PipelineError(f"{path} is not valid YAML: {exc}") from None
    _check_expanded_size(params, path)
    _numbers_in_settings(params)
    _validate(SPEC, params)
    _validate_relations(params)
    _validate_settings(params)
    return params


def _validate_settings(params: dict) -> None:
    """Hyperparameter values (search.grid's candidates, model.params' fixed values): a number that is not finite is
    refused, and a negative one unless the model's declared constraint takes it (its class is imported only then, so
    the usual file costs no import), in one line naming the key, before train fits anything."""
    for key in ("search.grid", "model.params"):
        section, _, field = key.partition(".")
        for model, settings in params[section][field].items():
            for name, value in settings.items():
                candidates = value if key == "search.grid" else [value]
                for candidate in candidates:
                    _check_setting(f"{key}.{model}.{name}", model, name, candidate)


def _numbers_in(value):
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from _numbers_in(item)
    elif _is_number(value):
        yield value


def _check_setting(key: str, model: str, name: str, value) -> None:
    numbers = list(_numbers_in(value))
    bad = next((x for x in numbers if not math.isfinite(x)), None)
    if bad is not None:
        raise PipelineError(f"params.yaml: {key} holds {bad}; a hyperparameter takes finite numbers only")
    if not any(x < 0 for x in numbers):
        return
    from mllib.base.constraints import check_value

    constraints = getattr(registry.get(model), "_constraints", {}).get(name)
    if constraints is None:
        return  # a name the model does not declare: train names it
    try:
        check_value(model, name, value, constraints)
    except ValueError as exc:
        raise PipelineError(f"params.yaml: {key} holds {shown(value, 60)}: {cut(str(exc), 200)}") from None


# YAML 1.1 (PyYAML) reads 1e-3 and 1E5, exponent forms without a dot, as text; in a hyperparameter they mean numbers
_EXPONENT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+")
SETTINGS = (("search", "grid"), ("model", "params"), ("assess", "validation_curve"), ("calibration", "params"))


def _as_number(value):
    if isinstance(value, str) and _EXPONENT.fullmatch(value.strip()):
        return float(value)
    if isinstance(value, list):
        return [_as_number(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_number(v) for k, v in value.items()}
    return value


def _numbers_in_settings(params) -> None:
    """Hyperparameter settings (grids, fixed values, calibration and feature-step settings) with YAML 1.1's
    exponent strings read as the numbers they spell ("1e-3" -> 0.001); keys with a declared type refuse them by name."""
    if not isinstance(params, dict):
        return
    for section, key in SETTINGS:
        if isinstance(params.get(section), dict) and key in params[section]:
            params[section][key] = _as_number(params[section][key])
    for step in registry.FEATURE_STEPS:
        cfg = params.get("features", {}).get(step) if isinstance(params.get("features"), dict) else None
        if isinstance(cfg, dict) and "params" in cfg:
            cfg["params"] = _as_number(cfg["params"])


def flatten(params: dict, prefix: str = "") -> dict[str, object]:
    """Dotted keys as in params.yaml (`split.n_splits`), for MLflow params and reports."""
    flat = {}
    for key, value in params.items():
        if isinstance(value, dict) and value:
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
