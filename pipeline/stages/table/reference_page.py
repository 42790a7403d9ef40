"""The stages' reference page: per stage what its module's docstring says it does and what it declares."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from pathlib import Path

from .declared import STAGES
from .entries import REGENERATE, REPO, Entry, Stage


def description(name: str, root: Path = REPO) -> str:
    """What the stage does: the first paragraph of its module's docstring, without "The <name> stage: "."""
    doc = ast.get_docstring(ast.parse((root / f"pipeline/stages/{name}.py").read_text())) or ""
    text = re.sub(rf"^The {re.escape(name)}(?: stage)?: ", "", " ".join(doc.split("\n\n")[0].split()))
    return text if "/" in text.split(" ")[0] else text[:1].upper() + text[1:]


def summary(name: str, root: Path = REPO) -> str:
    """The description's first clause: up to the first sentence's end, parenthesis, colon or semicolon."""
    clause = re.split(r"(?<=[.?!])\s| \(|: |; ", description(name, root), maxsplit=1)[0].rstrip(",")
    return clause if clause.endswith((".", "?", "!")) else clause + "."


def _md_items(entries: Sequence[Entry]) -> list[str]:
    items = []
    for e in entries:
        notes = [n for n in (e.why, "" if e.cache else "not in DVC's cache") if n]
        items.append(f"- `{e.path}`" + (f": {'; '.join(notes)}" if notes else ""))
    return items or ["- none"]


def stages_markdown(stages: Sequence[Stage] = STAGES, root: Path = REPO, level: int = 1, title: str = "Stages") -> str:
    """The stages' reference page: per stage what it does, its command, inputs, code, params and outputs.

    level is the page title's heading level (each stage's is one more): 2 puts the page inside another one."""
    lines = [
        f"{'#' * level} {title}",
        "",
        f"The pipeline's stages in the order `dvc repro` runs them, generated from `pipeline/stages/table/` (the "
        f"table `dvc.yaml` is generated from: `{REGENERATE}`). A stage reads the params listed (a section stands for "
        "all its keys) and its inputs, and writes exactly its outputs.",
        "",
        "| Stage | What it does |",
        "| --- | --- |",
        *(f"| [{s.name}](#{s.name}) | {summary(s.name, root)} |" for s in stages),
    ]
    for s in stages:
        lines += ["", f"{'#' * (level + 1)} {s.name}", "", description(s.name, root), ""]
        if s.why:
            lines += [s.why[:1].upper() + s.why[1:] + ".", ""]
        lines += [f"Command: `{s.cmd}`", ""]
        sections: list[tuple[str, Sequence[Entry]]] = [
            ("Inputs", s.inputs),
            ("Code", s.deps[len(s.inputs) :]),
            ("Params", s.params),
            ("Outputs", (*s.outs, *s.metrics)),
        ]
        for title, entries in sections:
            lines += [f"**{title}**", "", *_md_items(entries), ""]
        lines.pop()
    return "\n".join(lines) + "\n"
