"""The search on 1 and 2 local worker processes and on a 2-worker Dask LocalCluster, side by side in one run: the
train stage of the pipeline with model.name gradient_boosting and its default grid (16 candidates x 5 folds) on the
default data. Wall time and the md5 of the stage's outputs (byte-identical across backends is the contract).

Goal (issue 18): 2 workers take at most 0.6x the wall time of 1 worker, local and dask.
Run: .venv/bin/python benchmarks/bench_compute.py   (after `make run`; it restores params.yaml afterwards)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time

import yaml
from common import ROOT, write_table

OUTPUTS = ("models/model.npz", "data/predictions/oof.parquet", "reports/search.json")


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
    rows = []
    try:
        for label, backend, n in (
            ("local, 1 worker", "local", 1),
            ("local, 2 workers", "local", 2),
            ("dask LocalCluster, 2 workers", "dask", 2),
        ):
            params["compute"].update(backend=backend, n_workers=n, scheduler=None)
            wall, digest = run_train(params)
            rows.append({"backend": label, "wall_s": round(wall, 1), "outputs_md5": digest[:12]})
            print(rows[-1], flush=True)
    finally:
        (ROOT / "params.yaml").write_text(original)
    for row in rows:
        row["ratio_to_1_worker"] = round(row["wall_s"] / rows[0]["wall_s"], 2)
    assert len({r["outputs_md5"] for r in rows}) == 1, "the backends gave different outputs"
    write_table(
        rows,
        "compute.md",
        before=(
            "# The search on worker processes and Dask\n\nThe train stage with model.name gradient_boosting and "
            "its default "
            "grid (16 candidates x 5 folds, 80 fits) on the default data, 2-core machine; wall time of the whole stage "
            "(process or cluster start-up, the final refit and the out-of-fold refits included); outputs_md5 over "
            f"{', '.join(OUTPUTS)}. Goal (issue 18): 2 workers <= 0.6x 1 worker, outputs byte-identical.\n\n"
        ),
    )


if __name__ == "__main__":
    main()
