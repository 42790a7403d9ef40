"""The data stages part by part against in memory (pipeline/core/partitions.py), side by side in one run.

For each size, generated rows (benchmarks/large_data.py: the default data's persons replicated under new ids) are
written as a directory of Parquet parts of `--part-rows` rows, and validate, clean and split run in a scratch
project on it twice: on the dask backend (a 2-worker LocalCluster: the stages work part by part and write parts) and,
where it fits (`--in-memory-up-to` rows), on the local backend (the same parts read as one table). Per stage and
path: wall time, CPU of the stage process and its workers, the peak RSS of the stage process and of the largest
worker (the process tree sampled every 0.1 s), and the disk its outputs take. Where both paths ran, their outputs
are compared: the same rows, values and folds.

Run: .venv/bin/python benchmarks/bench_out_of_core.py 1000000 5000000 20000000
Results: benchmarks/results/out_of_core.md
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import psutil
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

STAGES = ["validate", "clean", "split"]
OUTPUTS = {
    "validate": ["data/interim/validated.parquet", "data/interim/quarantine.parquet"],
    "clean": ["data/interim/clean.parquet"],
    "split": ["data/processed/train.parquet", "data/processed/test.parquet", "data/processed/folds.parquet"],
}


def peak_rss(pid: int, stop: threading.Event, peaks: dict) -> None:
    """Sample the process tree under `pid`: peaks["stage"] its own RSS, peaks["worker"] the largest descendant's."""
    try:
        root = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    while not stop.is_set():
        try:
            peaks["stage"] = max(peaks.get("stage", 0), root.memory_info().rss)
            for child in root.children(recursive=True):
                try:
                    peaks["worker"] = max(peaks.get("worker", 0), child.memory_info().rss)
                except psutil.NoSuchProcess:
                    pass
        except psutil.NoSuchProcess:
            return
        time.sleep(0.1)


def run_stage(project: Path, stage: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", f"pipeline.stages.{stage}"], cwd=project, env=env, stdout=subprocess.PIPE, text=True
    )
    stop, peaks = threading.Event(), {}
    sampler = threading.Thread(target=peak_rss, args=(process.pid, stop, peaks))
    sampler.start()
    out, _ = process.communicate()
    stop.set()
    sampler.join()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode:
        raise SystemExit(f"{stage} failed in {project}")
    disk = sum(
        f.stat().st_size
        for name in OUTPUTS[stage]
        for f in ([project / name] if (project / name).is_file() else (project / name).rglob("*"))
        if f.is_file()
    )
    return {
        "stage": stage,
        "wall_s": wall,
        "cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
        "stage_rss_gb": peaks.get("stage", 0) / 1e9,
        "worker_rss_gb": peaks.get("worker", 0) / 1e9,
        "outputs_gb": disk / 1e9,
        "said": out.strip().splitlines()[-1] if out.strip() else "",
    }


def project(root: Path, parts: Path, backend: str) -> Path:
    if root.exists():
        shutil.rmtree(root)
    (root / "data/raw").mkdir(parents=True)
    (root / "data/raw/parts").mkdir()
    for part in parts.iterdir():  # hard links: the data inside the project without a copy
        os.link(part, root / "data/raw/parts" / part.name)
    shutil.copy(ROOT / "data/raw/randhie.schema.yaml", root / "data/raw/randhie.schema.yaml")
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["data"]["path"] = "data/raw/parts"
    params["compute"].update(backend=backend, n_workers=2)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def same_outputs(a: Path, b: Path) -> bool:
    from pipeline.core.io import read_parquet

    for name in [n for stage in STAGES for n in OUTPUTS[stage]]:
        pd.testing.assert_frame_equal(read_parquet(a / name, "bench"), read_parquet(b / name, "bench"), obj=name)
    return all(
        json.loads((a / f).read_text()) == json.loads((b / f).read_text())
        for f in ("reports/validation.json", "reports/cleaning.json", "reports/split.json")
    )


def main() -> None:
    from large_data import write_parts

    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", type=int, nargs="+")
    parser.add_argument("--part-rows", type=int, default=1_000_000)
    parser.add_argument("--in-memory-up-to", type=int, default=5_000_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench_out_of_core"))
    args = parser.parse_args()
    rows = []
    for size in args.sizes:
        parts = args.work / f"raw_{size}"
        if not parts.exists():
            write_parts(size, parts, min(args.part_rows, max(size // 4, 1)))
        raw_gb = sum(f.stat().st_size for f in parts.iterdir()) / 1e9
        paths = {}
        for backend in ("dask", "local"):
            if backend == "local" and size > args.in_memory_up_to:
                continue
            paths[backend] = project(args.work / f"project_{size}_{backend}", parts.resolve(), backend)
            for stage in STAGES:
                row = {
                    "rows": size,
                    "path": "parts" if backend == "dask" else "in memory",
                    **run_stage(paths[backend], stage),
                }
                row["raw_gb"] = raw_gb
                rows.append(row)
                print(json.dumps(row), flush=True)
        if len(paths) == 2:
            print(f"{size} rows: outputs equal: {same_outputs(paths['dask'], paths['local'])}", flush=True)
    (args.work / "results.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
