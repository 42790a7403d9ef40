"""The monitor's false-alarm rate and power on the default data, in one run.

False alarms: batches drawn from the default data's test rows (rows the model never saw, drawn like the training
rows: the split is a probability sample of persons), 1, 3, 10, 30 and 300 rows, 200 seeded draws each, the target
left out (the drift checks: the README's promise "without drift, the chance of any flag is at most 0.05"). A false
alarm is a batch the monitor fails (its exit status 1: any failure line). Power: 300-row batches with one column
shifted (income plus half its training standard deviation), 20 seeds: the shifted column must be named.

Each batch is checked by pipeline.steps.batch_check.check_batch, what `python -m pipeline.stages.monitor FILE` runs
before it logs its MLflow run (left out: 1,020 runs would only fill the store).

Run (after `dvc repro` of the default data, from the project's root or naming it):
    python benchmarks/bench_monitor_false_alarms.py [PROJECT_ROOT] [--draws 200]
Results: benchmarks/results/monitor_false_alarms.md (in this checkout)
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
from scipy import stats

HERE = Path(__file__).resolve().parent
SIZES = (1, 3, 10, 30, 300)
SHIFTED_COLUMN, SHIFT_SDS, SHIFT_ROWS, SHIFT_SEEDS = "income", 0.5, 300, 20


def _check(params: dict, batch: pd.DataFrame, folder: Path):
    from pipeline.steps.batch_check import check_batch

    path = folder / "batch.parquet"
    batch.to_parquet(path, index=False)
    return check_batch(params, str(path))


def false_alarms(params: dict, test: pd.DataFrame, draws: int, folder: Path) -> list[dict]:
    rows = []
    for n in SIZES:
        failed, first_lines, started = 0, {}, time.perf_counter()
        for draw in range(draws):
            rng = np.random.default_rng([params["seed"], n, draw])
            batch = test.iloc[np.sort(rng.choice(len(test), n, replace=False))]
            record = _check(params, batch, folder)
            if record.failures:
                failed += 1
                kind = record.failures[0].split(" (")[0]
                first_lines[kind] = first_lines.get(kind, 0) + 1
        low, high = stats.binomtest(failed, draws).proportion_ci(0.95, method="exact")
        rows.append({"rows": n, "draws": draws, "failed": failed, "rate": failed / draws, "interval": (low, high),
                     "first failures": first_lines, "seconds": time.perf_counter() - started})  # fmt: skip
        print(f"{n} rows: {failed}/{draws} failed {first_lines}", flush=True)
    return rows


def shifted(params: dict, test: pd.DataFrame, train: pd.DataFrame, folder: Path) -> list[dict]:
    sd = float(train[SHIFTED_COLUMN].std())
    out = []
    for seed in range(SHIFT_SEEDS):
        rng = np.random.default_rng([params["seed"], 99, seed])
        batch = test.iloc[np.sort(rng.choice(len(test), SHIFT_ROWS, replace=False))].copy()
        batch[SHIFTED_COLUMN] = batch[SHIFTED_COLUMN] + SHIFT_SDS * sd
        record = _check(params, batch, folder)
        flagged = list(record.drift.flagged)
        out.append({"seed": seed, "found": SHIFTED_COLUMN in flagged, "other columns": [c for c in flagged
                    if c != SHIFTED_COLUMN], "failures": len(record.failures)})  # fmt: skip
        print(f"shift seed {seed}: flagged {flagged}", flush=True)
    return out


def report(alarms: list[dict], power: list[dict], fdr: float) -> str:
    lines = [
        "# The monitor's false alarms and power on the default data",
        "",
        "`python benchmarks/bench_monitor_false_alarms.py` (module docstring: how batches are drawn). A false alarm: "
        "a batch of test rows (target left out) that the monitor fails. The README's bound: at most "
        f"{fdr:g} without drift.",
        "",
        "| rows per batch | draws | failed | rate | 95% interval (Clopper-Pearson) | first failure lines |",
        "|---|---|---|---|---|---|",
    ]
    for r in alarms:
        seen = "; ".join(f"{k}: {v}" for k, v in r["first failures"].items()) or "none"
        lines.append(f"| {r['rows']} | {r['draws']} | {r['failed']} | {r['rate']:.1%} | "
                     f"{r['interval'][0]:.1%} to {r['interval'][1]:.1%} | {seen} |")  # fmt: skip
    found = sum(r["found"] for r in power)
    others = sum(bool(r["other columns"]) for r in power)
    lines += [
        "",
        f"Shifted batches ({SHIFT_ROWS} test rows, `{SHIFTED_COLUMN}` + {SHIFT_SDS:g} training sd, {len(power)} "
        f"seeds): the shifted column named in **{found} of {len(power)}**; another column flagged beside it in "
        f"{others} of {len(power)} ({', '.join(sorted({c for r in power for c in r['other columns']})) or 'none'}).",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", nargs="?", default=str(HERE.parent))
    parser.add_argument("--draws", type=int, default=200)
    args = parser.parse_args()
    os.chdir(args.root)  # the pipeline's paths are relative to the project's root
    sys.path.insert(0, args.root)
    from pipeline.core.config import load_params

    params = load_params()
    target = params["data"]["target"]
    test = pd.read_parquet("data/processed/test.parquet").drop(columns=["_row_id", target])
    train = pd.read_parquet("data/processed/train.parquet")
    with tempfile.TemporaryDirectory() as tmp:
        alarms = false_alarms(params, test, args.draws, Path(tmp))
        power = shifted(params, test, train, Path(tmp))
    text = report(alarms, power, params["monitor"]["fdr"])
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results/monitor_false_alarms.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
