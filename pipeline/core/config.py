"""params.yaml: read and validate. The YAML is read as DVC reads it (a key given twice refused, aliases bounded), then
checked by the model of pipeline/core/params.py: unknown keys, missing keys, wrong types and out-of-range values are
errors that name the key; every knob must be present (defaults live in params.yaml, not in code)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import yaml
from pydantic import ValidationError

from mllib import registry

from .errors import PipelineError
from .json_types import JSON
from .params import Params, shown
from .params_refusals import problem

PARAMS_FILE = Path("params.yaml")


class DuplicateKeyError(yaml.YAMLError):  # type: ignore[misc]  # PyYAML ships no annotations
    """A mapping that names a key twice: PyYAML keeps the last value without a word, DVC refuses the file."""


class _UniqueKeys:
    """A YAML constructor that refuses a key given twice in one mapping, as DVC's parser does (a stage run directly
    would otherwise use the last value while `dvc repro` refuses the file). Keys a merge (`<<: *base`) brings in may
    be overridden: that is what a merge is for."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            lines: dict[str | int | float | bool, int] = {}
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


class _Loader(_UniqueKeys, yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no annotations
    pass


def read_yaml(text: str) -> Any:
    """YAML text as `yaml.safe_load` reads it, a key given twice in one mapping refused (DuplicateKeyError); any
    document (a mapping, a list, a scalar)."""
    try:
        return yaml.load(text, Loader=_FastLoader)
    except DuplicateKeyError:
        raise
    except yaml.YAMLError:
        return yaml.load(text, Loader=_Loader)  # invalid: PyYAML's own parser says where, with the line and a caret


# params.yaml holds a few hundred values; an alias (*name) repeats its anchor's value without copying it, so a few
# lines of nested aliases stand for billions of values (the "billion laughs"), which any walk over them never ends
MAX_VALUES = 100_000


def _check_expanded_size(params: object, path: Path) -> None:
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


def load_params(path: Path | str = PARAMS_FILE) -> JSON:
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
    try:
        Params.model_validate(params)
    except ValidationError as exc:
        raise PipelineError(problem(exc, params)) from None
    return cast(JSON, params)  # a mapping: Params validated it


# YAML 1.1 (PyYAML) reads 1e-3 and 1E5, exponent forms without a dot, as text; in a hyperparameter they mean numbers
_EXPONENT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+")
SETTINGS = (("search", "grid"), ("model", "params"), ("assess", "validation_curve"), ("calibration", "params"))


def _as_number(value: object) -> object:
    if isinstance(value, str) and _EXPONENT.fullmatch(value.strip()):
        return float(value)
    if isinstance(value, list):
        return [_as_number(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_number(v) for k, v in value.items()}
    return value


def _numbers_in_settings(params: object) -> None:
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


def flatten(params: JSON, prefix: str = "") -> dict[str, object]:
    """Dotted keys as in params.yaml (`split.n_splits`), for MLflow params and reports."""
    flat = {}
    for key, value in params.items():
        if isinstance(value, dict) and value:
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
