"""Wide files: the validate and clean stages on 100 rows x {1,000, 2,000, 5,000} columns, in this process (imports
paid once), and the exponent of their cost in the columns fitted on a log-log scale (1: linear).

Before this benchmark existed they were quadratic: validate updated the pandera schema one column at a time (each
update copies the whole schema: 100 / 200 / 400 columns took 0.96 / 3.65 / 16.4 s) and clean compared every pair of
columns for duplicates; a 83 x 2,309 file spent 24 minutes in validate. Now the schema is updated once and columns
are compared by their hashes.

Run: .venv/bin/python benchmarks/bench_wide.py [--columns 1000 2000 5000] [--rows 100]
(writes benchmarks/results/wide.md)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from common import ROOT, write_table

sys.path.insert(0, str(ROOT))


def wide_frame(rows: int, columns: int, seed: int = 0) -> pd.DataFrame:
    """Gene-expression-like numbers, one in ten columns a copy of its neighbour (clean finds and removes them), a
    two-class target."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, columns)).round(6)
    X[:, 1::10] = X[:, 0::10][:, : X[:, 1::10].shape[1]]
    frame = pd.DataFrame(X, columns=[f"g{j:05d}" for j in range(columns)])
    frame.insert(0, "label", np.where(X[:, :5].sum(axis=1) > 0, "yes", "no"))
    return frame


def timed_stages(directory: Path, frame: pd.DataFrame) -> dict[str, float]:
    """CPU seconds of validate's and clean's main in `directory` (a params.yaml for the file)."""
    from pipeline.stages import clean, validate

    frame.to_csv(directory / "wide.csv", index=False)
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["data"] = {"path": "wide.csv", "target": "label", "task": "auto", "positive_label": "yes", "group": None,
                      "time": None, "time_feature": "none", "sensitive": [], "drop": [], "categorical": [],
                      "schema": None}  # fmt: skip
    (directory / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    here = Path.cwd()
    os.chdir(directory)
    try:
        out = {}
        for name, stage in (("validate", validate), ("clean", clean)):
            start = time.process_time()
            stage.main()
            out[name] = time.process_time() - start
        return out
    finally:
        os.chdir(here)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, nargs="+", default=[1000, 2000, 5000])
    parser.add_argument("--rows", type=int, default=100)
    args = parser.parse_args()
    rows = []
    for columns in args.columns:
        with tempfile.TemporaryDirectory() as tmp:
            seconds = timed_stages(Path(tmp), wide_frame(args.rows, columns))
        rows.append({"columns": columns, **{f"{k} CPU s": round(v, 2) for k, v in seconds.items()}})
        print(rows[-1], flush=True)
    logc = np.log([r["columns"] for r in rows])
    exponents = {
        stage: float(np.polyfit(logc, np.log([r[f"{stage} CPU s"] for r in rows]), 1)[0])
        for stage in ("validate", "clean")
    }
    both = np.log([r["validate CPU s"] + r["clean CPU s"] for r in rows])
    exponents["validate + clean"] = float(np.polyfit(logc, both, 1)[0])
    print("fitted exponents (cost ~ columns^k):", {k: round(v, 2) for k, v in exponents.items()})
    import platform

    write_table(
        rows,
        "wide.md",
        before=f"# Wide files: validate and clean on {args.rows} rows\n\n"
        "CPU seconds of each stage's main in one process (imports paid once), one width after another on this machine "
        f"({platform.machine()}, {os.cpu_count()} cores); one column in ten repeats its neighbour (clean removes "
        "them). Run: `.venv/bin/python benchmarks/bench_wide.py`.\n\n",
        after="\nFitted exponent of the cost in the columns (log-log least squares): "
        + ", ".join(f"{k} {v:.2f}" for k, v in exponents.items())
        + " (1 = linear).\n\nBefore: validate copied the schema once per column (100 / 200 / 400 columns: 0.96 / "
        "3.65 / 16.4 s, exponent ~2) and clean compared every pair of columns; a 83 x 2,309 file spent 189 s in "
        "validate and 92 s in clean (measured on landed main, this session).\n",
    )


if __name__ == "__main__":
    main()
