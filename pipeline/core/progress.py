"""Progress of long stage steps on stderr: units done, elapsed time and an estimate of the time left. On a
terminal one line is rewritten in place; otherwise (DVC's log, CI) a line is printed at most every `interval`
seconds and at the end, so logs stay short. Nothing is written to any output file: results stay byte-identical."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, what: str, interval: float = 10.0, stream: TextIO | None = None) -> None:
        self.what = what
        self.interval = interval
        self.stream = stream or sys.stderr
        self.start = self.last = time.monotonic()
        self.live = self.stream.isatty()

    def __call__(self, done: int, total: int, detail: object = None) -> None:
        now = time.monotonic()
        if done < total and not self.live and now - self.last < self.interval:
            return
        self.last = now
        elapsed = now - self.start
        left = elapsed / done * (total - done) if done else float("nan")
        line = (
            f"{self.what}: {done}/{total} ({100 * done / total:.0f}%), {elapsed:.0f} s elapsed, "
            f"~{left:.0f} s left" + (f" [{detail}]" if detail is not None else "")
        )
        if self.live:
            self.stream.write("\r" + line.ljust(100) + ("\n" if done == total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
