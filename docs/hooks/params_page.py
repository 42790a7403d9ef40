"""MkDocs hook: the params reference page (docs/reference/params.md) rendered from params.schema.json.

params.schema.json, at the repository root, is generated from the params model; this hook turns it into one table
per section of params.yaml (key, type, default, bounds, description). The page's marker line is replaced by the
tables. A missing or unreadable schema fails the build with one line naming the file. `PARAMS_SCHEMA` names another
file (a stand-in for a test).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

PAGE = "reference/params.md"
MARKER = "<!-- params.schema.json -->"
ROOT = Path(__file__).resolve().parents[2]


def schema_path() -> Path:
    return Path(os.environ.get("PARAMS_SCHEMA") or ROOT / "params.schema.json")


def load_schema(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise PluginError(
            f"{path} is missing: the params reference page ({PAGE}) is rendered from it; "
            "generate params.schema.json from the params model, then build again"
        )
    try:
        schema = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise PluginError(f"{path} is not readable JSON ({error}); generate it again from the params model") from None
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        raise PluginError(f"{path} has no 'properties' mapping: it is not the JSON Schema of params.yaml")
    return schema


def resolve(node: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The node with its `$ref` (or a single-member allOf, pydantic's way of adding a default) followed."""
    while True:
        if "$ref" in node:
            target: Any = schema
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        elif len(node.get("allOf", [])) == 1:
            node = {**node["allOf"][0], **{k: v for k, v in node.items() if k != "allOf"}}
        else:
            return node


def is_section(node: dict[str, Any]) -> bool:
    return node.get("type", "object") == "object" and isinstance(node.get("properties"), dict)


def type_of(node: dict[str, Any], schema: dict[str, Any]) -> str:
    node = resolve(node, schema)
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return " or ".join(dict.fromkeys(type_of(member, schema) for member in node[key]))
    kind = node.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        items = node.get("items")
        return "list" + (f" of {type_of(items, schema)}" if isinstance(items, dict) else "")
    if kind == "object" or "additionalProperties" in node:
        values = node.get("additionalProperties")
        if is_section(node):
            return node.get("title", "mapping")
        return "mapping" + (f" of {type_of(values, schema)}" if isinstance(values, dict) and values else "")
    return kind or "any"


BOUNDS = {
    "minimum": ">= {}",
    "exclusiveMinimum": "> {}",
    "maximum": "<= {}",
    "exclusiveMaximum": "< {}",
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "pattern": "matches `{}`",
}


def bounds_of(node: dict[str, Any], schema: dict[str, Any]) -> str:
    node = resolve(node, schema)
    found = [text.format(node[key]) for key, text in BOUNDS.items() if key in node]
    for key in ("anyOf", "oneOf"):
        found += [bound for member in node.get(key, []) if (bound := bounds_of(member, schema))]
    return ", ".join(found)


def cell(text: Any, limit: int = 0) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text[: limit - 3] + "..." if limit and len(text) > limit else text


def rows(properties: dict[str, Any], schema: dict[str, Any], prefix: str) -> list[str]:
    """One table row per key, nested sections flattened to dotted keys."""
    lines = []
    for name, raw in properties.items():
        node = resolve(raw, schema)
        key = prefix + name
        if is_section(node):
            lines += rows(node["properties"], schema, key + ".")
            continue
        default = f"`{cell(json.dumps(node['default']), 60)}`" if "default" in node else "required"
        description = cell(node.get("description", node.get("title", "")))
        lines.append(
            f"| `{key}` | {cell(type_of(node, schema))} | {default} | {bounds_of(node, schema)} | {description} |"
        )
    return lines


def render(schema: dict[str, Any]) -> str:
    head = "| key | type | default | bounds | description |\n|---|---|---|---|---|"
    parts = []
    if schema.get("description"):
        parts.append(cell(schema["description"]))
    plain = {k: v for k, v in schema["properties"].items() if not is_section(resolve(v, schema))}
    if plain:
        parts += ["## Top-level keys", head + "\n" + "\n".join(rows(plain, schema, ""))]
    for name, raw in schema["properties"].items():
        node = resolve(raw, schema)
        if name in plain:
            continue
        parts.append(f"## `{name}`")
        if node.get("description"):
            parts.append(cell(node["description"]))
        parts.append(head + "\n" + "\n".join(rows(node["properties"], schema, name + ".")))
    return "\n\n".join(parts) + "\n"


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise PluginError(f"{PAGE} has lost its marker line {MARKER}: the params tables have nowhere to go")
    return markdown.replace(MARKER, render(load_schema(schema_path())))
