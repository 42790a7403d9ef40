"""A refusal of params.yaml in one line: the first of the model's (pipeline/core/params.py) errors as the dotted key,
what its value must be (the field's description) and the value given."""

from __future__ import annotations

from typing import Any, get_args

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from .params import Params, shown

_FIRST = {"extra_forbidden": 0, "missing": 1}  # as a reader fixes them: unknown keys, then missing ones, then values


def problem(error: ValidationError, values: Any) -> str:
    """The first of the model's refusals as one line naming the dotted key, what it must be and the value given."""
    first = min(error.errors(), key=lambda e: _FIRST.get(e["type"], 2))
    loc = [str(part) for part in first["loc"]]
    if first["type"] == "params":
        return f"params.yaml: {first['ctx']['text']}"
    if first["type"] == "extra_forbidden":
        where = ".".join(loc[:-1]) or "the top level"
        valid = sorted(_fields(_model_at(loc[:-1])))
        return f"params.yaml: unknown key {'.'.join(loc)}; valid keys in {where}: {valid} (check the spelling)"
    if first["type"] == "missing":
        return f"params.yaml: missing key {'.'.join(loc)}; every knob must be set in params.yaml"
    if "[key]" in loc:
        at = loc.index("[key]")
        field = _field_at(loc[: at - 1])
        key_type = get_args(field.annotation)[0] if field else None
        noun = next((m.description for m in getattr(key_type, "__metadata__", ()) if isinstance(m, FieldInfo)), "key")
        valid = sorted(get_args(get_args(key_type)[0])) if key_type else []
        return f"params.yaml: {'.'.join(loc[:at])}: not a {noun}; valid: {valid}"
    path = loc[: _depth(loc)]
    value = _value_at(values, path)
    field = _field_at(path)
    if field is None or isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
        return f"params.yaml: {'.'.join(path) or 'the top level'} must be a mapping of keys, got {shown(value)}"
    return f"params.yaml: {'.'.join(path)} must be {field.description}, got {shown(value)}"


def _fields(model: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


def _walk(path: list[str]) -> tuple[type[BaseModel] | None, FieldInfo | None, int]:
    """The model at the end of `path`'s fields, the last field and how many parts of `path` are fields."""
    model: type[BaseModel] | None = Params
    field, depth = None, 0
    for part in path:
        named = {field.alias or name: field for name, field in model.model_fields.items()} if model else {}
        if part not in named:
            break
        field, depth = named[part], depth + 1
        annotation = field.annotation
        model = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    return model, field, depth


def _model_at(path: list[str]) -> type[BaseModel]:
    return _walk(path)[0] or Params


def _field_at(path: list[str]) -> FieldInfo | None:
    _, field, depth = _walk(path)
    return field if depth == len(path) else None


def _depth(loc: list[str]) -> int:
    return _walk(loc)[2]


def _value_at(values: Any, path: list[str]) -> Any:
    for part in path:
        values = values[part]
    return values
