"""The search on 1 and 2 local worker processes and on a 2-worker Dask LocalCluster, side by side in one run: the
train stage of the pipeline with model.name gradient_boosting and its default grid (16 candidates x 5 folds) on the
default data. Wall time and the md5 of the stage's outputs (byte-identical across backends is the contract).

Goal (issue 18): 2 workers take at most 0.6x the wall time of 1 worker, local and dask.
Run: .venv/bin/python benchmarks/bench_compute.py   (after `make run`; it restores params.yaml and
     train's outputs afterwards)
"""

from __future__ import annotations

import hashlib
import os
import statistics
import subprocess
import time

import yaml
from common import ROOT, write_table

OUTPUTS = ("models/model.npz", "data/predictions/oof.parquet", "reports/search.json")
REPEATS = 3


def run_train(params: dict) -> tuple[float, str]:
    (ROOT / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    start = time.perf_counter()
    subprocess.run(
        [str(ROOT / ".venv/bin/python"), "-m", "pipeline.stages.train"],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    digest = hashlib.md5(b"".join((ROOT / p).read_bytes() for p in OUTPUTS)).hexdigest()
    return wall, digest


def main() -> None:
    original = (ROOT / "params.yaml").read_text()
    params = yaml.safe_load(original)
    params["model"]["name"] = "gradient_boosting"
    backends = (
        ("local, 1 worker", "local", 1),
        ("local, 2 workers", "local", 2),
        ("dask LocalCluster, 2 workers", "dask", 2),
    )
    walls: dict[str, list[float]] = {label: [] for label, _, _ in backends}
    digests = set()
    try:
        for repeat in range(REPEATS):  # interleaved, so a slow spell of the machine hits every backend alike
            for label, backend, n in backends:
                params["compute"].update(backend=backend, n_workers=n, scheduler=None)
                wall, digest = run_train(params)
                walls[label].append(wall)
                digests.add(digest)
                print(f"run {repeat + 1}/{REPEATS}: {label} {wall:.1f} s, outputs {digest[:12]}", flush=True)
    finally:  # the workspace as make run left it: params.yaml, and train's outputs back from DVC's cache
        (ROOT / "params.yaml").write_text(original)
        subprocess.run([str(ROOT / ".venv/bin/dvc"), "checkout", "--force", "train"], cwd=ROOT, check=False)
    assert len(digests) == 1, "the backends gave different outputs"
    medians = {label: statistics.median(w) for label, w in walls.items()}
    single = medians[backends[0][0]]
    rows = [
        {
            "backend": label,
            "wall_s (median)": round(medians[label], 1),
            "runs": ", ".join(f"{w:.1f}" for w in walls[label]),
            "outputs_md5": digests.copy().pop()[:12],
            "ratio_to_1_worker": round(medians[label] / single, 2),
        }
        for label in walls
    ]
    write_table(
        rows,
        "compute.md",
        before=(
            "# The search on worker processes and Dask\n\nThe train stage with model.name gradient_boosting and "
            "its default "
            "grid (16 candidates x 5 folds, 80 fits) on the default data, 2-core machine; wall time of the whole stage "
            "(process or cluster start-up, the final refit and the out-of-fold refits included), the median of "
            f"{REPEATS} interleaved runs; outputs_md5 over "
            f"{', '.join(OUTPUTS)}. Goal (issue 18): 2 workers <= 0.6x 1 worker, outputs byte-identical.\n\n"
        ),
    )


if __name__ == "__main__":
    main()
