"""pipeline.core.progress.Progress: counts, elapsed and estimated time left; one line per interval off a terminal."""

from __future__ import annotations

import io

from pipeline.core.progress import Progress


def test_lines_off_a_terminal_at_most_every_interval_and_at_the_end():
    out = io.StringIO()
    progress = Progress("train: search", interval=3600, stream=out)
    for done in range(1, 21):
        progress(done, 20, {"lam": 1.0})
    lines = out.getvalue().splitlines()
    assert (
        len(lines) == 1 and lines[0].startswith("train: search: 20/20 (100%)") and "s left [{'lam': 1.0}]" in lines[0]
    )
    every = io.StringIO()
    fine = Progress("x", interval=0.0, stream=every)
    for done in range(1, 4):
        fine(done, 3)
    assert [line.split(":")[1].split()[0] for line in every.getvalue().splitlines()] == ["1/3", "2/3", "3/3"]
