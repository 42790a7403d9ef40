"""What `make run` costs on a fresh clone of the default data, at two commits side by side: each run clones the
repository at its commit into a scratch folder and times `dvc repro` there (every stage, the MLflow run included),
the two commits in turn (A B A B ...), so a drift of the machine's speed falls on both; the ratio is taken pair by
pair and the median quoted. Both use this checkout's .venv (the install step of `make run` is left out: it is the same
for both and would only dilute the ratio) and the machine's numba cache (mllib/_numba_cache.py), warm for both.

    .venv/bin/python benchmarks/bench_fresh_clone.py NEW OLD [--pairs 2]
        writes benchmarks/results/fresh_clone.md: wall and CPU (the command and its descendants) per run, and the
        medians of NEW / OLD
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import ROOT, timed  # noqa: E402


def fresh_run(commit: str, scratch: Path) -> tuple[float, float]:
    """(CPU s, wall s) of `dvc repro` in a fresh clone of this repository at `commit`."""
    folder = scratch / commit
    subprocess.run(["rm", "-rf", str(folder)], check=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(folder)], check=True)
    subprocess.run(["git", "checkout", "-q", commit], cwd=folder, check=True)
    cpu, wall, _ = timed(["dvc", "repro"], cwd=folder)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("new")
    parser.add_argument("old")
    parser.add_argument("--pairs", type=int, default=2)
    args = parser.parse_args()
    rows, ratios = [], {"wall": [], "cpu": []}
    with tempfile.TemporaryDirectory(prefix="fresh_clone_") as scratch:
        for pair in range(1, args.pairs + 1):
            (cpu_new, wall_new), (cpu_old, wall_old) = (fresh_run(c, Path(scratch)) for c in (args.new, args.old))
            ratios["wall"].append(wall_new / wall_old)
            ratios["cpu"].append(cpu_new / cpu_old)
            rows.append(f"| {pair} | {wall_new:.1f} | {wall_old:.1f} | {ratios['wall'][-1]:.2f} | {cpu_new:.1f} | "
                        f"{cpu_old:.1f} | {ratios['cpu'][-1]:.2f} |")  # fmt: skip
            print(rows[-1], flush=True)
    text = "\n".join(
        [
            "# `dvc repro` of the default data on a fresh clone, two commits side by side",
            "",
            f"{date.today().isoformat()}, `benchmarks/bench_fresh_clone.py {args.new} {args.old} --pairs {args.pairs}` "
            "(the script's docstring says what is timed); new = "
            f"{args.new}, old = {args.old}.",
            "",
            "| pair | new wall s | old wall s | wall new / old | new CPU s | old CPU s | CPU new / old |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            f"Median wall ratio {statistics.median(ratios['wall']):.2f}, "
            f"CPU ratio {statistics.median(ratios['cpu']):.2f}.",
            "",
        ]
    )
    path = ROOT / "benchmarks" / "results" / "fresh_clone.md"
    path.write_text(text)
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
