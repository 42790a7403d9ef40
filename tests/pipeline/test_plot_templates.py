"""The charts of `dvc plots show/diff` compare revisions (docs: dvc.yaml `plots`): every chart takes its revision
colours from DVC's one colour anchor (the same revision, the same colour on every chart), series are told apart by
dash patterns with visible legend symbols, every axis is titled with its quantity, and whole-number axes have
whole-number ticks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
PLOTS = [
    (title, spec) for entry in yaml.safe_load((REPO / "dvc.yaml").read_text())["plots"] for title, spec in entry.items()
]
BUILT_IN = {"linear", "scatter", "bar_horizontal_sorted", "bar_horizontal", "simple", "smooth", "confusion"}
PER_REVISION_PANELS = {".dvc/plots/confusion_counts.json"}  # a heatmap per revision: colour shows the counts
WHOLE_NUMBERS = {"reports/plots/learning_curve.json": "rows", "reports/plots/validation_curve.json": "candidate"}


def encodings(spec: dict):
    if isinstance(spec.get("encoding"), dict):
        yield spec["encoding"]
    for part in [*spec.get("layer", []), *([spec["spec"]] if "spec" in spec else [])]:
        yield from encodings(part)


@pytest.mark.parametrize("title, plot", PLOTS, ids=[t for t, _ in PLOTS])
def test_a_revision_has_one_colour_and_every_axis_a_title(title, plot):
    template = plot["template"]
    if template in BUILT_IN:  # DVC's own templates: colour by the anchor; the axis titles from dvc.yaml
        assert plot.get("x_label") and plot.get("y_label"), f"{title}: x_label and y_label in dvc.yaml"
        return
    spec = json.loads((REPO / template).read_text())
    found = list(encodings(spec))
    if template not in PER_REVISION_PANELS:
        assert any(e.get("color") == "<DVC_METRIC_COLOR>" for e in found), f"{template}: colour by DVC's anchor"
    for e in found:
        if isinstance(e.get("color"), dict):
            assert e["color"].get("field") != "rev", f"{template}: a colour scale of its own for the revisions"
        if isinstance(e.get("strokeDash"), dict):  # a series by dash: its legend shows the dash, not a dot
            assert e["strokeDash"]["legend"]["symbolType"] == "stroke", template
        for axis in ("x", "y"):
            if axis in e:
                shown = e[axis].get("title")
                assert shown not in (None, "", "y", "value"), f"{template}: {axis} axis without its quantity"
                if shown == f"<DVC_METRIC_{axis.upper()}_LABEL>":
                    assert plot.get(f"{axis}_label"), f"{title}: {axis}_label in dvc.yaml"


@pytest.mark.parametrize("source, field", sorted(WHOLE_NUMBERS.items()))
def test_whole_number_axes_have_whole_number_ticks(source, field):
    plot = next(p for _, p in PLOTS if source in (p.get("y") or {}))
    assert plot["x"] == field
    x = next(e["x"] for e in encodings(json.loads((REPO / plot["template"]).read_text())) if "x" in e)
    assert x["axis"]["format"] == ",d" and x["axis"]["tickMinStep"] == 1
