"""The stages, declared once: per stage its inputs, code, params and outputs, from which dvc.yaml and the stages'
reference page are generated.

    python -m pipeline.stages.table              # write dvc.yaml from this table
    python -m pipeline.stages.table --check      # exit 1 if dvc.yaml differs from it (a test and .ci run it)
    python -m pipeline.stages.table --markdown   # the stages' reference page (Markdown) on stdout

entries.py holds the vocabulary (Entry, Stage, Plot), declared.py the table itself (STAGES, PLOTS) and what it answers
(which stage writes a file, which stages compute), dvc_yaml.py and reference_page.py the two texts made from it.

A stage is `python -m pipeline.stages.<name>` (its module, `pipeline/stages/<name>.py`, is its first code dep); the
output paths are pipeline/core/paths.py's, so each is spelled once. A `why` is written into dvc.yaml as the entry's
comment and onto the reference page.

What dvc.yaml declares and why (docs/architecture.md section 2):

- Each stage lists as deps its own module and the library code it uses, and as params exactly the params.yaml keys
  it reads, so DVC reruns what a change touches (tests/pipeline/test_stage_contract.py runs every compute stage and
  checks the params it reads, the files it writes and the modules it imports against this table).
- pipeline/core is one directory dep: every stage imports most of it, and DVC rewrites dvc.lock once per stage, its
  cost growing with the lock's length (benchmarks/results/pipeline.md); a package's __init__.py that holds only its
  docstring is no dep. This package is no compute stage's dep either: no stage imports it, so editing the table
  reruns only the stages whose declaration changed (and report, whose provenance is all of the code).
- Plot files are plain outputs; the top-level `plots` section (PLOTS) says how to draw them.
- Every output is in DVC's cache except the metrics (committed to git, `cache: false`) and track's record of this
  machine's MLflow run: with no other uncached output, DVC keeps a run-cache entry per stage run, so after a failed
  run and restored inputs `dvc repro` checks the last good outputs out of the cache instead of recomputing them
  (tests/e2e/test_recovery.py).
- One set of outputs for every task kind: a regression target writes the classification plots as empty files, a
  classification target an empty residuals file (docs/architecture.md section 3).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .declared import (
    CORE,
    INIT,
    OUTPUT_SECTIONS,
    PLOTS,
    SCHEMAS,
    STAGES,
    by_name,
    compute_stages,
    writer_of,
)
from .dvc_yaml import DVC_YAML, difference, dvc_yaml
from .entries import REGENERATE, REPO, Entry, Plot, Stage, mllib_files, stage, uncached, why
from .reference_page import description, stages_markdown, summary

__all__ = [
    "CORE", "DVC_YAML", "INIT", "OUTPUT_SECTIONS", "PLOTS", "REGENERATE", "REPO", "SCHEMAS", "STAGES", "Entry", "Plot",
    "Stage", "by_name", "compute_stages", "description", "difference", "dvc_yaml", "main", "mllib_files", "stage",
    "stages_markdown", "summary", "uncached", "why", "writer_of",
]  # fmt: skip


def main(argv: Sequence[str] | None = None, root: Path = REPO) -> int:
    parser = argparse.ArgumentParser(prog=REGENERATE, description=__doc__.splitlines()[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if dvc.yaml differs from the table")
    mode.add_argument("--markdown", action="store_true", help="print the stages' reference page")
    args = parser.parse_args(argv)
    target = root / DVC_YAML
    if args.markdown:
        sys.stdout.write(stages_markdown(root=root))
        return 0
    generated = dvc_yaml()
    if args.check:
        diff = difference(target.read_text() if target.exists() else "", generated)
        if diff:
            print(f"error: {diff}; run {REGENERATE}", file=sys.stderr)
            return 1
        print(f"{DVC_YAML} is the stage table's")
        return 0
    target.write_text(generated)
    print(f"{DVC_YAML}: {len(STAGES)} stages and {len(PLOTS)} plots written from the stage table")
    return 0
