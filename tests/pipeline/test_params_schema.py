"""params.schema.json (issue 63, point 1): generated from the model of params.yaml (pipeline/core/params.py), committed
at the top level so that editors underline a typo while typing (params.yaml's first line points them at it); the file
cannot go stale, params.yaml validates against it, and a typo key is refused by the schema and by load_params alike."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import set_dotted
from pydantic import BaseModel

from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError
from pipeline.core.params import Params, schema_text

REPO = Path(__file__).resolve().parents[2]
TEXT = (REPO / "params.yaml").read_text()
REAL = yaml.safe_load(TEXT)
SCHEMA = json.loads((REPO / "params.schema.json").read_text())


def test_the_committed_schema_is_the_models():
    assert (REPO / "params.schema.json").read_text() == schema_text(), "run `make schema` and commit params.schema.json"


def test_params_yaml_points_editors_at_the_schema():
    assert TEXT.splitlines()[0] == "# yaml-language-server: $schema=params.schema.json"


def test_params_yaml_validates_against_the_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(REAL)


@pytest.mark.parametrize("where", ["top", "nested"])
def test_a_typo_key_is_refused_by_the_schema_and_at_load(tmp_path, where):
    params = copy.deepcopy(REAL)
    if where == "top":
        params["modle"] = params.pop("model")
        key, section = "modle", "the top level"
    else:
        params["split"]["n_split"] = params["split"].pop("n_splits")
        key, section = "split.n_split", "split"
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False))
    with pytest.raises(PipelineError) as info:
        load_params(path)
    message = str(info.value)
    assert message.startswith(f"params.yaml: unknown key {key}; valid keys in {section}: [") and "\n" not in message
    assert "check the spelling" in message
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(params))
    assert any(key.split(".")[-1] in error.message for error in errors), [e.message for e in errors]


def _fields(model: type[BaseModel], prefix: str = ""):
    for name, field in model.model_fields.items():
        key = f"{prefix}{field.alias or name}"
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _fields(annotation, f"{key}.")
        else:
            yield key, field


def test_every_knob_states_what_it_must_be():
    """A refusal reads `<key> must be <description>`: every value's field has one, and every key of params.yaml is a
    field of the model."""
    fields = dict(_fields(Params))
    assert all(field.description for field in fields.values()), [k for k, f in fields.items() if not f.description]

    def leaves(node, prefix=""):
        for key, value in node.items():
            if f"{prefix}{key}" in fields:
                yield f"{prefix}{key}"
            else:
                yield from leaves(value, f"{prefix}{key}.")

    assert set(leaves(REAL)) == set(fields)


def test_counts_state_an_upper_bound():
    """Every integer knob has an upper bound in the schema (issue 63: "every bound stated, including counts that have
    none today"); a label (data.positive_label, fairness.favourable_label) is a value of the data, not a count."""

    def integers(node, key=""):
        if isinstance(node, dict):
            if node.get("type") == "integer":
                yield key, node
            for name, child in node.items():
                yield from integers(child, f"{key}.{name}" if name not in ("properties", "anyOf") else key)
        elif isinstance(node, list):
            for child in node:
                yield from integers(child, key)

    found = list(integers(SCHEMA))
    assert len(found) > 20
    unbounded = [key for key, node in found if "maximum" not in node or "minimum" not in node]
    assert unbounded == [".$defs.Data.positive_label", ".$defs.Fairness.favourable_label"]


@pytest.mark.parametrize("key", sorted(dict(_fields(Params))))
def test_every_knob_refuses_a_wrong_value_in_one_line_naming_it(tmp_path, key):
    """pydantic's errors become the project's line: `params.yaml: <dotted.key> must be <what>, got <value>`."""
    params = copy.deepcopy(REAL)
    set_dotted(params, key, [["not", "a", "value"]])
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False))
    with pytest.raises(PipelineError) as info:
        load_params(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"params.yaml: {key} must be "), message
    assert message.endswith(", got [['not', 'a', 'value']]"), message
