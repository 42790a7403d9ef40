"""Runs the tutorial's experiments (docs/tutorial/experiment.md) as written (queued, two at a time) in a scratch clone
of this repository, then checks that each changed only the params its `-S` options name, prints each one's headline test
metric, the time the queue took, and the tutorial's `dvc exp show` table; exits 1 when the queue's workers stop with
experiments still queued.

    python scripts/check_readme_experiments.py [--keep DIR]

It takes a few minutes per experiment on a 2-core machine; tests/test_readme_layout.py checks the
same commands against the params contract in a second."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pipeline.core.config import flatten  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


PAGE = ROOT / "docs" / "tutorial" / "experiment.md"


def readme_experiments() -> list[list[str]]:
    block = (
        re.search(r"## Queue experiments\n.*?```bash\n(.*?)```", PAGE.read_text(), re.S).group(1).replace("\\\n", " ")
    )
    return [shlex.split(line.split("#")[0]) for line in block.splitlines() if "dvc exp run --queue" in line]


def readme_exp_show() -> list[str]:
    block = re.search(r"## Compare them\n.*?```bash\n(.*?)```", PAGE.read_text(), re.S).group(1).replace("\\\n", " ")
    line = next(line for line in block.splitlines() if line.startswith("dvc exp show"))
    return [*shlex.split(line), "--no-pager"]


def run(cwd: Path, *args: str, env: dict | None = None) -> str:
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env)
    if result.returncode:
        sys.exit(f"{' '.join(args)} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return result.stdout


def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="readme-experiments-"))
    run(scratch, "git", "clone", "-q", str(ROOT), "repo")
    repo = scratch / "repo"
    (repo / ".venv").symlink_to(ROOT / ".venv")
    baseline = flatten(yaml.safe_load((repo / "params.yaml").read_text()))
    commands = readme_experiments()
    for i, command in enumerate(commands):
        run(repo, *command, "--name", f"readme-{i:02d}")
    start, idle = time.monotonic(), 0
    run(repo, "dvc", "queue", "start", "-j", "2")
    while "Running" in (status := run(repo, "dvc", "queue", "status")) or "Queued" in status:
        # the tutorial's promise: one `dvc queue start` runs them all; workers gone with tasks still queued is a stall
        idle = idle + 1 if "Worker status: 0 active, 0 idle" in status else 0
        if idle >= 6:
            print(status)
            sys.exit(f"stalled after {time.monotonic() - start:.0f} s: no worker left, tasks still queued")
        time.sleep(10)
    print(f"all {len(commands)} experiments done in {time.monotonic() - start:.0f} s with one `dvc queue start -j 2`")
    print(run(repo, *readme_exp_show(), env={**os.environ, "COLUMNS": "1000"}))  # the whole width, as a pager shows
    shown = json.loads(run(repo, "dvc", "exp", "show", "--json", "--no-fetch"))
    found = {}
    for entry in shown:
        for exp in entry.get("experiments") or []:
            for rev in exp.get("revs", []):
                data = rev.get("data") or {}
                params = (data.get("params") or {}).get("params.yaml", {}).get("data", {})
                metrics = (data.get("metrics") or {}).get("reports/metrics.json", {}).get("data", {})
                found[rev.get("name")] = (flatten(params), metrics)
    failures = 0
    for i, command in enumerate(commands):
        name = f"readme-{i:02d}"
        keys = [c.partition("=")[0].lstrip("+") for j, c in enumerate(command) if j and command[j - 1] == "-S"]
        if name not in found:
            print(f"{name}: did not run ({' '.join(command)}); see `dvc queue logs {name}`")
            failures += 1
            continue
        params, metrics = found[name]
        changed = sorted(k for k in set(params) | set(baseline) if params.get(k) != baseline.get(k))
        stray = [
            k
            for k in changed
            if not any(k == key or f"{key}.".startswith(f"{k}.") or k.startswith(f"{key}.") for key in keys)
        ]
        test = metrics.get("test", {})
        headline = next((f"{m} {test[m]:.4f}" for m in ("roc_auc", "roc_auc_ovr", "r2") if m in test), "no metrics")
        print(f"{name}: -S {', '.join(keys)}: changed {len(changed)} params, {headline}"
              + (f"; ALSO CHANGED {stray}" if stray else ""))  # fmt: skip
        failures += bool(stray)
    if "--keep" not in sys.argv:
        shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
