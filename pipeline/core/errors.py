"""Expected failures (bad data, params or files) end a stage with one clear message and exit status 1."""

from __future__ import annotations

import sys


class PipelineError(Exception):
    """A problem the user can fix: the message names the file, column or key, the value, and what to do."""


def run_stage(main) -> None:
    """Entry point of every stage: run `main`; a PipelineError, or an OSError from reading or writing a file (disk
    full, no permission), becomes one line `error: ...` on stderr and exit status 1. Writes are atomic, so a failed
    write leaves the previous file whole."""
    try:
        main()
    except PipelineError as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)  # one line, whatever a library's text holds
        sys.exit(1)
    except OSError as exc:
        where = exc.filename or "a file"
        print(
            f"error: {where}: {exc.strerror or exc}; check free disk space and write permissions there, then rerun "
            "(`dvc repro` restores the last good outputs)",
            file=sys.stderr,
        )
        sys.exit(1)
