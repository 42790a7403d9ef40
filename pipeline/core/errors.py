"""Expected failures (bad data, params or files) end a stage with one clear message and exit status 1; what a stage
prints on stdout is wrapped to lines a terminal shows whole."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from typing import Any, TextIO

WIDTH = 160  # a stage's stdout lines (its statements; the full ones are in its JSON reports)


class WrappedLines:
    """A text stream that writes each line of more than WIDTH characters as several, continued with an indent (the
    words unbroken); whole lines only, the rest kept until the next newline or close()."""

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.pending = stream, ""

    def write(self, text: str) -> int:
        *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            wrapped = textwrap.wrap(line, WIDTH, subsequent_indent="    ", break_long_words=False,
                                    break_on_hyphens=False) if len(line) > WIDTH else [line]  # fmt: skip
            self.stream.write("\n".join(wrapped) + "\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        if self.pending:
            self.stream.write(self.pending)
            self.pending = ""
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno...: the stream's
        return getattr(self.stream, name)


class PipelineError(Exception):
    """A problem the user can fix: the message names the file, column or key, the value, and what to do."""


def run_stage(main: Callable[[], object]) -> None:
    """Entry point of every stage: run `main`; a PipelineError, or an OSError from reading or writing a file (disk
    full, no permission), becomes one line `error: ...` on stderr and exit status 1. Writes are atomic, so a failed
    write leaves the previous file whole. Its stdout lines are wrapped at WIDTH characters."""
    stdout, sys.stdout = sys.stdout, WrappedLines(sys.stdout)
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
    finally:
        sys.stdout.close()
        sys.stdout = stdout
