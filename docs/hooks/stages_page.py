"""MkDocs hook: the stages reference page (docs/reference/stages.md) takes each stage's declaration from the table
dvc.yaml is generated from (stages_markdown in pipeline/stages/table/), in place of the page's marker line. A page
without the marker fails the build: the table would silently be missing from the docs."""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from pipeline.stages import table

PAGE = "reference/stages.md"
MARKER = "<!-- pipeline/stages/table/ -->"


def on_page_markdown(markdown: str, page, **_) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise PluginError(f"docs/{PAGE} has no line {MARKER}: the stages' declarations have nowhere to go")
    return markdown.replace(MARKER, table.stages_markdown(table.STAGES, level=2, title="What each stage does"))
