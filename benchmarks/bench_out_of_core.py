"""Every stage part by part against in memory (pipeline/core/partitions.py), side by side in one run.

For each size, generated rows (benchmarks/large_data.py: the default data's persons replicated under new ids) are
written as a directory of Parquet parts of `--part-rows` rows, and the stages (`--stages`, default all but track) run
in a scratch project on it twice: on the dask backend (a LocalCluster of `--workers`: the stages work part by part and
write parts) and, where it fits (`--in-memory-up-to` rows), on the local backend (the same parts read as one table).
Per stage and path: wall time, CPU of the stage process and its workers, the peak RSS of the stage process and of
the largest worker (the process tree sampled every 0.1 s), and the disk its outputs take. Where both paths ran, their
outputs are compared: the same rows, values and folds; the fitted features and model within 1e-9.

`--repro`: the project is a git clone of this repository with DVC's cache linking; each stage runs as
`dvc repro --single-item` (DVC's own work included), track too, then a whole `dvc repro` must find nothing to do,
and the disk the run wrote (outputs, DVC's cache, the MLflow store; each inode once) is reported. Such a project runs
its own copy of the code, this repository's code as of the clone. `--set key=value`: a params.yaml setting, as
`dvc exp run -S`.

Run: .venv/bin/python benchmarks/bench_out_of_core.py 1000000 5000000 20000000
     .venv/bin/python benchmarks/bench_out_of_core.py 20000000 --repro --set model.name=gradient_boosting
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

from pipeline.stages.table import STAGES as TABLE  # noqa: E402
from pipeline.stages.table import compute_stages  # noqa: E402

STAGES = compute_stages()  # all but track and monitor (MLflow)
OUTPUTS = {stage.name: [out.path for out in stage.outs] for stage in TABLE}  # each stage's declared outputs (outs)
DATA_STAGES = ["validate", "clean", "split"]  # their outputs equal to the bit on both paths
# the fitted features and models, relative to the value's size (at least 1): sums over parts and over the whole table
# differ in the last bits
TOLERANCE = 1e-9


def peak_rss(pid: int, stop: threading.Event, peaks: dict) -> None:
    """Sample the process tree under `pid`: peaks["stage"] the largest RSS of a stage module's process (the tree's
    root when it is one), peaks["worker"] the largest of any other descendant (Dask workers, search workers)."""
    try:
        root = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    kinds = {}  # pid -> "stage" | "worker" | None (dvc and its shell: not counted)
    while not stop.is_set():
        try:
            for process in [root, *root.children(recursive=True)]:  # parents before their children
                try:
                    if process.pid not in kinds:
                        parent = kinds.get(process.ppid()) if process != root else None
                        stage_module = any("pipeline.stages." in part for part in process.cmdline())
                        # forked workers keep the stage's command line: below the stage, every process is a worker
                        kinds[process.pid] = "worker" if parent else "stage" if stage_module else None
                    if kinds[process.pid]:
                        kind = kinds[process.pid]
                        peaks[kind] = max(peaks.get(kind, 0), process.memory_info().rss)
                except psutil.NoSuchProcess:
                    pass
        except psutil.NoSuchProcess:
            return
        time.sleep(0.1)


def measured_run(command: list[str], cwd: Path, env: dict | None, sample) -> tuple[float, float, dict, str, int]:
    """Run `command`: (CPU s of it and all its descendants, wall s, the peaks sample(pid, stop, peaks) recorded while it
    ran, its stdout, its exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, text=True)
    stop, peaks = threading.Event(), {}
    sampler = threading.Thread(target=sample, args=(process.pid, stop, peaks))
    sampler.start()
    out, _ = process.communicate()
    stop.set()
    sampler.join()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return cpu, wall, peaks, out, process.returncode


def run_stage(project: Path, stage: str, repro: bool = False) -> dict:
    """One stage: its module run directly, or (repro) `dvc repro --single-item` in the project, a clone of this one."""
    if repro:
        command, env = ["dvc", "repro", "--single-item", stage], dict(os.environ)
    else:
        command, env = [sys.executable, "-m", f"pipeline.stages.{stage}"], {**os.environ, "PYTHONPATH": str(ROOT)}
    cpu, wall, peaks, out, code = measured_run(command, project, env, peak_rss)
    if code:
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
        "cpu_s": cpu,
        "stage_rss_gb": peaks.get("stage", 0) / 1e9,
        "worker_rss_gb": peaks.get("worker", 0) / 1e9,
        "outputs_gb": disk / 1e9,
        "said": ([line for line in out.splitlines() if line.startswith(f"{stage}:")] or [""])[-1],  # not dvc's own
    }


def project(
    root: Path, parts: Path, backend: str, workers: int, settings: dict, keep: bool = False, repro: bool = False
) -> Path:
    """A scratch project on the parts (keep: an earlier run's, its params brought up to this code's; repro: a git clone
    of this repository with DVC's cache linking, not copying, so `dvc repro` runs there)."""
    if not (keep and root.exists()):
        if root.exists():
            shutil.rmtree(root)
        if repro:
            subprocess.run(["git", "clone", "--quiet", str(ROOT), str(root)], check=True)
            subprocess.run(["dvc", "config", "--local", "cache.type", "hardlink,symlink"], cwd=root, check=True)
        (root / "data/raw/parts").mkdir(parents=True)
        for part in parts.iterdir():  # hard links: the data inside the project without a copy
            os.link(part, root / "data/raw/parts" / part.name)
        if not repro:
            shutil.copytree(ROOT / "data/schemas", root / "data/schemas")
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["data"]["path"] = "data/raw/parts"
    params["compute"].update(backend=backend, n_workers=workers)
    for key, value in settings.items():  # dotted keys, as `dvc exp run -S`
        *path, last = key.split(".")
        node = params
        for name in path:
            node = node[name]
        node[last] = value
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def written_by_run(root: Path, before: set) -> float:
    """GB of the files under `root` (outputs, DVC's cache, the tracking store) that the run made: each inode once, so
    a cache entry linked to its output counts once, and the raw parts (linked in before the run) not at all."""
    seen, size = set(before), 0
    for f in root.rglob("*"):
        if f.is_file() and not f.is_symlink() and ".git" not in f.relative_to(root).parts[:1]:
            stat = f.stat()
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                size += stat.st_size
    return size / 1e9


def inodes(root: Path) -> set:
    return {(f.stat().st_dev, f.stat().st_ino) for f in root.rglob("*") if f.is_file() and not f.is_symlink()}


def same_outputs(a: Path, b: Path, stages: list[str]) -> dict:
    """Whether the two paths' outputs agree: the data stages' tables and reports equal, the fitted transformers' and
    model's arrays and the search's scores within TOLERANCE (the largest difference is reported)."""
    import numpy as np

    from pipeline.core.io import read_parquet

    found = {}
    for name in [n for stage in DATA_STAGES if stage in stages for n in OUTPUTS[stage] if n.endswith(".parquet")]:
        pd.testing.assert_frame_equal(read_parquet(a / name, "bench"), read_parquet(b / name, "bench"), obj=name)
    found["data stages equal"] = all(
        json.loads((a / f).read_text()) == json.loads((b / f).read_text())
        for f in ("reports/validation.json", "reports/cleaning.json", "reports/split.json")
    )
    arrays = {"features": ["models/features.npz"], "train": ["models/model.npz"]}
    for stage in ("features", "train"):
        if stage in stages:
            largest = 0.0
            for name in arrays[stage]:
                with np.load(a / name) as x, np.load(b / name) as y:
                    for key in x.files:
                        if np.issubdtype(x[key].dtype, np.floating):
                            relative = np.abs(x[key] - y[key]) / np.maximum(1.0, np.abs(x[key]))
                            largest = max(largest, float(np.max(relative, initial=0.0)))
            found[f"{stage} largest difference"] = largest
    for name in ("train", "test", "calibration", "fairness"):
        files = [p / f"reports/metrics/{name}.json" for p in (a, b)]
        if all(f.exists() for f in files):
            found[f"{name}.json largest difference"] = largest_difference(*(json.loads(f.read_text()) for f in files))
    if "train" in stages:
        metrics = [json.loads((p / "reports/metrics/train.json").read_text()) for p in (a, b)]
        found["cv_mean difference"] = abs(metrics[0]["cv_mean"] - metrics[1]["cv_mean"])
        found["same best params"] = metrics[0]["best_params"] == metrics[1]["best_params"]
        oof = [read_parquet(p / "data/predictions/oof.parquet", "bench")["score"].to_numpy() for p in (a, b)]
        found["oof largest difference"] = float(np.nanmax(np.abs(oof[0] - oof[1])))
    found["within tolerance"] = all(v <= TOLERANCE for k, v in found.items() if "difference" in k)
    return found


def largest_difference(a, b) -> float:
    """The largest difference between the numbers of two JSON documents of the same shape, relative to the number's
    size (at least 1); inf where their shapes or texts differ."""
    if isinstance(a, dict):
        if not isinstance(b, dict) or a.keys() != b.keys():
            return float("inf")
        return max((largest_difference(a[k], b[k]) for k in a), default=0.0)
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return float("inf")
        return max((largest_difference(x, y) for x, y in zip(a, b)), default=0.0)
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if a != a and b != b:  # both NaN
            return 0.0
        return abs(a - b) / max(1.0, abs(a))
    return 0.0 if a == b else float("inf")


def main() -> None:
    from large_data import write_parts

    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", type=int, nargs="+")
    parser.add_argument("--part-rows", type=int, default=1_000_000)
    parser.add_argument("--in-memory-up-to", type=int, default=5_000_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench_out_of_core"))
    parser.add_argument("--workers", type=int, default=2, help="compute.n_workers (the in-memory search's too)")
    parser.add_argument("--stages", nargs="+", default=STAGES, choices=STAGES, help="the stages, in pipeline order")
    parser.add_argument("--keep", action="store_true", help="reuse the projects of an earlier run (later stages)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a params.yaml setting, as `dvc exp run -S` (e.g. model.name=gradient_boosting)",
    )
    parser.add_argument(
        "--repro",
        action="store_true",
        help="run each stage as `dvc repro --single-item` in a git clone, track included, then a whole "
        "`dvc repro` that must find nothing to do; reports the disk the run wrote with DVC's cache",
    )
    args = parser.parse_args()
    settings = {key: yaml.safe_load(value) for key, value in (s.split("=", 1) for s in args.set)}
    stages = [*args.stages, "track"] if args.repro else args.stages
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
            where = args.work / f"project_{size}_{backend}{'_repro' if args.repro else ''}"
            paths[backend] = project(where, parts.resolve(), backend, args.workers, settings, args.keep, args.repro)
            before = inodes(paths[backend])
            for stage in stages:
                row = {
                    "rows": size,
                    "path": "parts" if backend == "dask" else "in memory",
                    **run_stage(paths[backend], stage, args.repro),
                }
                row["raw_gb"] = raw_gb
                rows.append(row)
                print(json.dumps(row), flush=True)
            if args.repro:
                again = subprocess.run(["dvc", "repro"], cwd=paths[backend], capture_output=True, text=True)
                row = {
                    "rows": size,
                    "path": rows[-1]["path"],
                    "stage": "the run",
                    "raw_gb": raw_gb,
                    "written_gb": written_by_run(paths[backend], before),
                    "dvc repro again": again.stdout.strip().splitlines()[-1:] if not again.returncode else "failed",
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
        if len(paths) == 2:
            print(f"{size} rows: {json.dumps(same_outputs(paths['dask'], paths['local'], stages))}", flush=True)
    results = args.work / "results.json"  # every run's rows, appended
    earlier = json.loads(results.read_text()) if results.exists() else []
    results.write_text(json.dumps(earlier + rows, indent=1))


if __name__ == "__main__":
    main()
