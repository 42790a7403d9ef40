"""The README stays short and the docs hold together: every relative link names an existing file, the params page's
hook renders the schema (and refuses to build without it), and mllib's API pages cover every public module.
`make docs` (mkdocs build --strict) checks the links between pages and their anchors; these checks run without it."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose(text: str) -> str:
    """The text without fenced code blocks and inline code spans (a regex there is no link)."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def relative_links(path: Path) -> list[str]:
    links = LINK.findall(prose(path.read_text()))
    return [link for link in links if not re.match(r"[a-z]+:|#", link)]


def test_the_readme_is_at_most_12_kb():
    size = (ROOT / "README.md").stat().st_size
    assert size <= 12 * 1024, f"README.md is {size} bytes; move the detail to a docs page"


def test_the_link_finder_sees_links_and_skips_code():
    text = "[a](x.md) ![b](img/y.png) [c](https://e.org) [d](#top) `[e](no.md)`\n```\n[f](no.md)\n```\n"
    found = LINK.findall(prose(text))
    assert found == ["x.md", "img/y.png", "https://e.org", "#top"], found


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_an_existing_file(path):
    links = relative_links(path)
    missing = [link for link in links if not (path.parent / link.split("#")[0]).exists()]
    assert not missing, f"{path.relative_to(ROOT)} links to files that do not exist: {missing}"


def test_the_readme_links_every_section_of_the_docs():
    links = {str((ROOT / link.split("#")[0]).resolve().relative_to(DOCS)) for link in relative_links(ROOT / "README.md")
             if link.startswith("docs/")}  # fmt: skip
    for part in ("tutorial", "how-to", "reference", "explanation"):
        assert any(link.startswith(part + "/") for link in links), f"README.md links no page of docs/{part}/"


def hook():
    spec = importlib.util.spec_from_file_location("params_page", DOCS / "hooks" / "params_page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Page:
    class file:
        src_uri = "reference/params.md"


STAND_IN = {
    "title": "Params",
    "properties": {
        "seed": {"type": "integer", "minimum": 0, "default": 42, "description": "The seed of every draw."},
        "data": {"$ref": "#/$defs/Data"},
    },
    "$defs": {
        "Data": {
            "title": "Data",
            "type": "object",
            "properties": {
                "target": {"type": "string", "description": "The column to predict."},
                "task": {"enum": ["auto", "binary"], "default": "auto"},
                "group": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                "split": {"type": "object", "properties": {"test_size": {"type": "number", "exclusiveMaximum": 1}}},
            },
        }
    },
}


def test_the_params_page_is_rendered_from_the_schema(tmp_path, monkeypatch):
    schema = tmp_path / "params.schema.json"
    schema.write_text(json.dumps(STAND_IN))
    monkeypatch.setenv("PARAMS_SCHEMA", str(schema))
    page = hook().on_page_markdown((DOCS / "reference" / "params.md").read_text(), page=Page())
    assert "<!-- params.schema.json -->" not in page
    assert "| `seed` | integer | `42` | >= 0 | The seed of every draw. |" in page
    assert "## `data`" in page and "| `data.target` | string | required |  | The column to predict. |" in page
    assert '| `data.task` | one of `"auto"`, `"binary"` | `"auto"` |' in page
    assert "| `data.group` | string or null | `null` |" in page
    assert "| `data.split.test_size` | number | required | < 1 |" in page


def test_the_params_page_fails_the_build_without_the_schema(tmp_path, monkeypatch):
    from mkdocs.exceptions import PluginError

    missing = tmp_path / "params.schema.json"
    monkeypatch.setenv("PARAMS_SCHEMA", str(missing))
    with pytest.raises(PluginError, match=rf"{re.escape(str(missing))} is missing: the params reference page"):
        hook().on_page_markdown((DOCS / "reference" / "params.md").read_text(), page=Page())
    missing.write_text("{not json")
    with pytest.raises(PluginError, match="is not readable JSON"):
        hook().on_page_markdown((DOCS / "reference" / "params.md").read_text(), page=Page())


def test_every_mllib_subpackage_has_a_page_with_each_public_module_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    for package in sorted(p.parent for p in (ROOT / "mllib").glob("*/__init__.py")):
        page = DOCS / "reference" / "mllib" / f"{package.name}.md"
        assert page.exists(), f"mllib.{package.name} has no page {page.relative_to(ROOT)}"
        assert f"reference/mllib/{package.name}.md" in nav, f"mkdocs.yml's nav lacks mllib.{package.name}"
        rendered = set(re.findall(r"^::: (\S+)", page.read_text(), re.M))
        public = {f"mllib.{package.name}.{p.stem}" for p in package.glob("*.py") if not p.name.startswith("_")}
        assert f"mllib.{package.name}" in rendered and public <= rendered, sorted(public - rendered)


def test_the_docs_build_needs_no_network():
    """No plugin that downloads (fonts, social cards, inventories of other projects' docs) is configured."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    assert config["theme"]["font"] == "false"
    plugins = [next(iter(p)) if isinstance(p, dict) else p for p in config["plugins"]]
    assert set(plugins) <= {"search", "mkdocstrings"}, plugins
    assert "inventories" not in (ROOT / "mkdocs.yml").read_text()
