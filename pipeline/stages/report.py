"""The report stage: reports/report.html, one self-contained page with every stage's results, the figures
(also written to reports/figures/ for MLflow) and a model card; and reports/metrics.json, the headline figures
DVC and MLflow compare (pipeline/reporting/headline.py)."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from pipeline.core import paths
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.io import replace_directory, write_json, write_text
from pipeline.core.provenance import code_trees, params_sha256
from pipeline.core.report_inputs import report_inputs
from pipeline.reporting.headline import headline
from pipeline.reporting.sections import build_html, make_figures
from pipeline.stages.table import OUTPUT_SECTIONS  # the params sections that shape the outputs, the stage's params


def main() -> None:
    params = load_params()
    r = replace(report_inputs(), params_sha256=params_sha256(params, OUTPUT_SECTIONS), code_trees=code_trees())
    figs = make_figures(r)
    paths.FIGURES_DIR.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=paths.FIGURES_DIR.parent) as staging:
        fresh = Path(staging) / paths.FIGURES_DIR.name
        fresh.mkdir()
        for name, png in figs.items():
            (fresh / name).write_bytes(png)
        replace_directory(fresh, paths.FIGURES_DIR)
    write_text(build_html(params, r, figs), paths.REPORT_HTML)
    write_json(headline(r.target, r.train, r.calibration, r.test, r.fairness, r.assessment), paths.HEADLINE)
    print(f"report: {paths.REPORT_HTML} with {len(figs)} figures")


if __name__ == "__main__":
    run_stage(main)
