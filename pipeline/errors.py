"""Expected failures (bad data, params or files) end a stage with one clear message and exit status 1."""
from __future__ import annotations

import sys


class PipelineError(Exception):
    """A problem the user can fix: the message names the file, column or key, the value, and what to do."""


def run_stage(main) -> None:
    """Entry point of every stage: run `main`, turn a PipelineError into `error: ...` on stderr and exit 1."""
    try:
        main()
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
