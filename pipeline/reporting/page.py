"""The report page's pieces: sections of parts (a heading, a paragraph, a table, a row of figures) with every value
formatted once, and the document rendered by the Jinja2 template pipeline/reporting/templates/report.html.j2, which
holds the page's HTML and CSS and escapes every text once. Deterministic: no timestamps; the same inputs give the
same bytes."""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..core.evaluation_records import RankingChange
from ..core.fairness_records import FairnessReport
from ..core.json_types import JSON

TEMPLATE = Path(__file__).parent / "templates" / "report.html.j2"


def fmt(value: object) -> str:
    """A value as the page shows it: undefined (None, NaN), yes / no, floats to 4 decimals (a whole number from 2 on,
    a count that went through a float, as an integer), lists joined, mappings as `key: value; ...` (never a repr)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{int(value)}" if value.is_integer() and 2 <= abs(value) < 1e15 else f"{value:.4f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_inner(v)}" for k, v in value.items())
    return str(value)


def _inner(value: object) -> str:
    """A mapping inside a mapping: `key value, ...`."""
    return ", ".join(f"{k} {fmt(v)}" for k, v in value.items()) if isinstance(value, dict) else fmt(value)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_))


def table(rows: list[JSON], columns: list[str] | None = None) -> JSON:
    """A table of rows (dicts) in the given column order (default: the first row's keys); absent cells undefined;
    numbers right-aligned, text left."""
    if not rows:
        return muted("(none)")
    columns = columns or list(rows[0])
    return {
        "kind": "table",
        "columns": list(columns),
        "rows": [[fmt(row.get(c)) for c in columns] for row in rows],
        "numeric": [[_is_number(row.get(c)) for c in columns] for row in rows],
    }


def key_values(pairs: JSON) -> JSON:
    return table([{"quantity": k, "value": v} for k, v in pairs.items()])


def heading(text: str) -> JSON:
    return {"kind": "heading", "text": text}


def muted(text: str) -> JSON:
    """An explanatory paragraph (method, settings, how to read a table)."""
    return {"kind": "muted", "text": text}


def note(text: str) -> JSON:
    """A highlighted paragraph: a finding the reader should not miss."""
    return {"kind": "note", "text": text}


def figures(*names: str) -> JSON:
    """A row of figures, by their file names under reports/figures/."""
    return {"kind": "figures", "names": list(names)}


def grouping(i: int, title: str, *parts: JSON) -> list[JSON]:
    """The parts of one fairness grouping: its heading, its tables and notes, its figure fairness_<i>.png."""
    return [heading(title), *parts, figures(f"fairness_{i}.png")]


def section(title: str, *parts: JSON) -> JSON:
    """A section of the page, with its anchor for the contents list (its title in lower case, words joined by -)."""
    return {"title": title, "anchor": "-".join(re.findall(r"[a-z0-9]+", title.lower())), "parts": list(parts)}


def document(title: str, sections: list[JSON], figs: dict[str, bytes], verdict: JSON | None = None) -> str:
    """The page: the verdict panel first (pipeline/reporting/verdict.py), then the template rendered with the
    sections, the figures inlined as base64 PNG."""
    import jinja2

    named = {name for s in sections for part in s["parts"] if part["kind"] == "figures" for name in part["names"]}
    if named - set(figs):
        raise ValueError(f"the report names figures that were not drawn: {sorted(named - set(figs))}")
    environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    images = {name: base64.b64encode(png).decode() for name, png in figs.items()}
    return environment.from_string(TEMPLATE.read_text()).render(
        title=title, sections=sections, images=images, verdict=verdict
    )


def interval(value: object, bounds: Sequence[object] | None) -> str:
    """'0.7619 [0.6525, 0.8517]': a point estimate with its bootstrap interval (undefined parts say so)."""
    if not bounds:
        return fmt(value)
    return f"{fmt(value)} [{fmt(bounds[0])}, {fmt(bounds[1])}]"


def gap(value: object, bounds: Sequence[object] | None = None) -> str:
    """A fairness gap as the page shows it: with its interval, or "not evaluated" when it cannot be computed (the
    promotion gate then fails closed, naming it)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "not evaluated"
    return interval(value, bounds) if bounds is not None else fmt(value)


def audited(fairness: FairnessReport, data: JSON) -> JSON:
    """The fairness audit's groupings of data.sensitive: each attribute and every intersection ("a & b")."""
    return {a: result for a, result in fairness.attributes.items() if set(a.split(" & ")) <= set(data["sensitive"])}


def ranking_note(ranking: RankingChange) -> str:
    """A sentence when the deployed map changed the model's test ranking (isotonic's ties, histogram binning's bins)."""
    if not ranking.changed:
        return ""
    return (
        f". The map changes the model's ranking: test {ranking.metric} {fmt(ranking.model)} of the model's own "
        f"scores, {fmt(ranking.deployed)} of the deployed probabilities"
    )
