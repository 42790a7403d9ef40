"""The whole pipeline beside a scikit-learn script that does the same core job, CPU and wall time, in one run.

The script (below, `sklearn_job`): the default data read and cleaned as the pipeline does, the same hold-out and
person-grouped folds (read from data/processed, so both see the same rows), median imputation with missing
indicators + scaling + one-hot encoding in a ColumnTransformer refitted per fold, logistic regression searched over
the same 4-candidate grid by ROC AUC, Platt scaling on the out-of-fold scores, the test metrics, per-group rates of
the sensitive attributes and permutation importance (5 repeats). The pipeline's `dvc repro -f` does that and more
(validation, conformal sets, the leakage estimate and learning curve, bootstrap intervals, Shapley values, the
report and the MLflow run); the stages that do the script's work are timed on their own too.

Run: .venv/bin/python benchmarks/bench_pipeline.py   (after `make run`; single thread both sides)
     .venv/bin/python benchmarks/bench_pipeline.py --rows 100000 1000000   (larger data made by
     benchmarks/large_data.py, each size in a scratch DVC project; results/pipeline_scaling.md)
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, write_table

PROJECT_FILES = [
    "mllib",
    "pipeline",
    "dvc.yaml",
    ".dvc/config",
    ".dvc/plots",
    ".dvcignore",
    ".gitignore",
    "data/schemas",
]
SCRIPT_STAGES = ("validate", "clean", "split", "features", "train", "calibrate", "evaluate", "fairness", "explain")


MEASURE = """
import resource, subprocess, sys, time
wall = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
wall = time.perf_counter() - wall
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, code)
"""


def timed(args: list[str], cwd=ROOT, **environ: str) -> tuple[float, float, float]:
    """(CPU seconds of the command and all its descendants, wall seconds, peak RSS in MB of the largest process among
    them), measured by a fresh wrapper process so that nothing else counts; `environ`: extra variables."""
    env = {
        **os.environ,
        **environ,
        "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "DVC_NO_ANALYTICS": "1",
        "MLFLOW_DISABLE_TELEMETRY": "true",
    }
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    cpu, wall, peak_mb, code = out.stdout.split()
    if code != "0":
        raise SystemExit(f"{' '.join(args)} failed in {cwd} (exit {code})")
    return float(cpu), float(wall), float(peak_mb)


def sklearn_job(project: Path) -> None:
    """The scikit-learn script on the project at `project` (run in a subprocess by main, so its imports are timed
    too)."""
    import numpy as np
    import pandas as pd
    import yaml
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.inspection import permutation_importance
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, brier_score_loss, log_loss, roc_auc_score
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    params = yaml.safe_load((project / "params.yaml").read_text())
    data = params["data"]
    raw = (pd.read_parquet if data["path"].endswith(".parquet") else pd.read_csv)(project / data["path"])
    train = pd.read_parquet(project / "data/processed/train.parquet")
    test = pd.read_parquet(project / "data/processed/test.parquet")
    membership = pd.read_parquet(project / "data/processed/folds.parquet")
    assert len(raw) > len(train)  # the raw file is read (and parsed) as the pipeline's validate does
    features = [c for c in train.columns if c not in (data["target"], data["group"], "_row_id", *data["drop"])]
    numeric = [c for c in features if c not in data["categorical"]]
    y, y_test = train[data["target"]].to_numpy(), test[data["target"]].to_numpy()

    def make(C):
        prep = ColumnTransformer(
            [
                (
                    "num",
                    Pipeline([("imp", SimpleImputer(strategy="median", add_indicator=True)), ("sc", StandardScaler())]),
                    numeric,
                ),
                (
                    "cat",
                    Pipeline(
                        [
                            ("imp", SimpleImputer(strategy="most_frequent")),
                            ("oh", OneHotEncoder(handle_unknown="ignore")),
                        ]
                    ),
                    data["categorical"],
                ),
            ]
        )
        return Pipeline([("prep", prep), ("lr", LogisticRegression(C=C, max_iter=1000))])

    k = sum(c.startswith("valid_") for c in membership.columns)
    splits = [
        (np.flatnonzero(membership[f"train_{i}"] > 0), np.flatnonzero(membership[f"valid_{i}"])) for i in range(k)
    ]
    grid = [1 / (2 * lam) for lam in params["search"]["grid"]["logistic_regression"]["lam"]]
    scores = {
        C: [
            roc_auc_score(
                y[va], make(C).fit(train.iloc[tr][features], y[tr]).decision_function(train.iloc[va][features])
            )
            for tr, va in splits
        ]
        for C in grid
    }
    best = max(grid, key=lambda C: np.mean(scores[C]))
    oof = np.empty(len(y))
    for tr, va in splits:
        oof[va] = make(best).fit(train.iloc[tr][features], y[tr]).decision_function(train.iloc[va][features])
    platt = LogisticRegression().fit(oof[:, None], y)
    model = make(best).fit(train[features], y)
    p = platt.predict_proba(model.decision_function(test[features])[:, None])[:, 1]
    decision = (p >= 0.5).astype(int)
    metrics = {
        "roc_auc": roc_auc_score(y_test, p),
        "accuracy": accuracy_score(y_test, decision),
        "log_loss": log_loss(y_test, p),
        "brier": brier_score_loss(y_test, p),
    }
    for attribute in data["sensitive"]:
        for g in np.unique(test[attribute]):
            rows = (test[attribute] == g).to_numpy()
            metrics[f"{attribute}={g}"] = (decision[rows].mean(), decision[rows & (y_test == 1)].mean())
    permutation_importance(model, test[features], y_test, scoring="roc_auc", n_repeats=5, random_state=0)
    print(metrics["roc_auc"])


def ratio_row(run: str, cpu: float, wall: float, peak: float, script_cpu: float, **extra) -> dict:
    return {
        "run": run,
        **extra,
        "cpu_s": round(cpu, 1),
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(peak),
        "cpu_ratio": round(cpu / script_cpu, 2),
    }


def default_data() -> list[dict]:
    """The default data in this repository (after `make run`): the script, `dvc repro -f`, the script's stages."""
    python = str(ROOT / ".venv" / "bin" / "python")
    job = [python, str(Path(__file__)), "--sklearn-job", str(ROOT)]
    # the script before, between and after the pipeline's runs, its median compared: this machine's speed drifts by
    # up to a third within minutes, and a single run of a 6-second job caught at the wrong moment moves every ratio
    scripts = [timed(job)]
    pipeline = timed(["dvc", "repro", "-f"])
    with tempfile.TemporaryDirectory(prefix="bench_numba_") as empty:  # a machine's first run: every kernel compiles
        first = timed(["dvc", "repro", "-f"], MLLIB_NUMBA_CACHE=empty)
    scripts.append(timed(job))
    stages = [timed([python, "-m", f"pipeline.stages.{stage}"]) for stage in SCRIPT_STAGES]
    scripts.append(timed(job))
    script = sorted(scripts)[1]
    print("script runs (CPU s):", [round(run[0], 1) for run in scripts], flush=True)
    # the median of 5: a single process's import time varies by +-0.3 s with the file cache and the machine
    import_cpu = statistics.median(timed([python, "-c", "import pipeline.stages.validate"])[0] for _ in range(5))
    rows = [
        ratio_row("scikit-learn script (the median of 3 runs)", *script, script[0]),
        ratio_row("dvc repro -f (12 stages, report and MLflow run)", *pipeline, script[0]),
        ratio_row("dvc repro -f, numba's cache empty (the kernels compile, once per machine)", *first, script[0]),
        ratio_row(
            "the stages doing the script's work (validate to explain)",
            sum(s[0] for s in stages),
            sum(s[1] for s in stages),
            max(s[2] for s in stages),
            script[0],
        ),
    ]
    rows.append({"run": "python -c 'import pipeline.stages.validate' (median of 5)", "cpu_s": round(import_cpu, 2)})
    rows.append(ratio_row("dvc repro -f, DVC's own work (every stage's command a copy of its outputs)",
                          *dvc_bookkeeping(), script[0]))  # fmt: skip
    return rows


def dvc_bookkeeping() -> tuple[float, float, float]:
    """`dvc repro -f` of this repository's dvc.yaml and dvc.lock in a scratch project whose stage commands only copy
    the outputs back (`cp -a`, ~0.03 s each): what DVC itself costs for the 12 stages (reading and rewriting
    dvc.lock per stage, hashing and caching the outputs), with none of the pipeline's work."""
    outputs = ["data", "reports", "models"]
    with tempfile.TemporaryDirectory(prefix="bench_dvc_") as tmp:
        project, saved = Path(tmp) / "project", Path(tmp) / "saved"
        for item in PROJECT_FILES + ["params.yaml", "dvc.lock", *outputs]:
            src, dst = ROOT / item, project / item
            dst.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
        for item in outputs:
            shutil.copytree(ROOT / item, saved / item, ignore=shutil.ignore_patterns("raw"))
        dvc_yaml = project / "dvc.yaml"
        dvc_yaml.write_text(re.sub(r"(?m)^(\s*cmd:).*$", rf"\1 cp -a {saved}/. .", dvc_yaml.read_text()))
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "-c", "user.name=b", "-c", "user.email=b@b",
                                                                "commit", "-qm", "scratch"]):  # fmt: skip
            subprocess.run(cmd, cwd=project, check=True, capture_output=True)
        timed(["dvc", "repro"], cwd=project)  # the commands changed: one run to record them
        return timed(["dvc", "repro", "-f"], cwd=project)


def copy_code(root: Path) -> None:
    """This repository's code and pipeline definition into `root` (a scratch DVC project)."""
    for item in PROJECT_FILES:
        src, dst = ROOT / item, root / item
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, dst)


def commit_all(root: Path) -> Path:
    """`root` as a git repository with everything in it committed (DVC records the commit)."""
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "-c", "user.name=b", "-c", "user.email=b@b",
                                                            "commit", "-qm", "scratch"]):  # fmt: skip
        subprocess.run(cmd, cwd=root, check=True, capture_output=True)
    return root


def scratch_project(root: Path, rows: int) -> Path:
    """A DVC project in `root`: this repository's code and params.yaml with data.path pointing at `rows` rows made by
    benchmarks/large_data.py (the schema is the default data's)."""
    from large_data import generate

    copy_code(root)
    (root / "data/raw").mkdir(parents=True)
    generate(rows).to_parquet(root / "data/raw/large.parquet", index=False)
    params = (ROOT / "params.yaml").read_text().replace("path: data/raw/randhie.csv.gz", "path: data/raw/large.parquet")
    (root / "params.yaml").write_text(params)
    return commit_all(root)


LIMIT = "max_refit_rows: 100000"


def without_refits(project: Path) -> tuple[float, float, float]:
    """`dvc repro -f` with nested CV and the validation curve skipped (assess.max_refit_rows: 1), as they are above
    100,000 training rows: the same work at every size, for the cost per row."""
    params = project / "params.yaml"
    text = params.read_text()
    if LIMIT not in text:
        raise SystemExit(f"params.yaml has no {LIMIT!r}; update benchmarks/bench_pipeline.py")
    params.write_text(text.replace(LIMIT, "max_refit_rows: 1"))
    try:
        return timed(["dvc", "repro", "-f"], cwd=project)
    finally:
        params.write_text(text)


def larger_data(sizes: list[int]) -> list[dict]:
    """Per size: a scratch project; its first `dvc repro` (numba's kernels come from the machine's cache), the script
    on the same splits, then `dvc repro -f` (the figure compared) and the stages doing the script's work. The cost
    per row is measured on the same work at every size (`dvc repro -f` once more with nested CV and the validation
    curve skipped, as they are above 100,000 training rows): the CPU beyond the default data's (20,190 rows, in a
    scratch project too) per row beyond its rows."""
    python = str(ROOT / ".venv" / "bin" / "python")
    base_rows = 20_190
    with tempfile.TemporaryDirectory(prefix="bench_base_") as tmp:
        project = scratch_project(Path(tmp), base_rows)  # replicate 0 alone: the default data as parquet
        timed(["dvc", "repro"], cwd=project)
        base_cpu = without_refits(project)[0]
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix=f"bench_{n}_") as tmp:
            project = scratch_project(Path(tmp), n)
            first = timed(["dvc", "repro"], cwd=project)
            script = timed([python, str(Path(__file__)), "--sklearn-job", str(project)], cwd=project)
            pipeline = timed(["dvc", "repro", "-f"], cwd=project)
            stages = [timed([python, "-m", f"pipeline.stages.{stage}"], cwd=project) for stage in SCRIPT_STAGES]
            same = without_refits(project)
            per_row_ms = round(1000 * (same[0] - base_cpu) / (n - base_rows), 3)
            rows.append(ratio_row("scikit-learn script", *script, script[0], rows=n, ms_per_row=""))
            rows.append(ratio_row("dvc repro, first in a new project", *first, script[0], rows=n, ms_per_row=""))
            rows.append(ratio_row("dvc repro -f", *pipeline, script[0], rows=n, ms_per_row=""))
            stage_sums = (sum(s[0] for s in stages), sum(s[1] for s in stages), max(s[2] for s in stages))
            rows.append(ratio_row("the stages doing the script's work (validate to explain)", *stage_sums, script[0],
                                  rows=n, ms_per_row=""))  # fmt: skip
            rows.append(ratio_row("dvc repro -f, no nested CV / validation curve", *same, script[0], rows=n,
                                  ms_per_row=per_row_ms))  # fmt: skip
            for row in rows[-5:]:
                print(row, flush=True)
    return rows


def main() -> None:
    os.environ.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if "--rows" in sys.argv:
        sizes = [int(v) for v in sys.argv[sys.argv.index("--rows") + 1 :]]
        write_table(
            larger_data(sizes),
            "pipeline_scaling.md",
            before=(
                "# The pipeline beside a scikit-learn script on larger data\n\nThe default data's persons replicated "
                "under new ids with small noise (benchmarks/large_data.py), as parquet; default params.yaml otherwise "
                "(logistic regression, its 4-candidate grid, single thread); each size in a scratch DVC project, "
                "measured in one run (benchmarks/bench_pipeline.py --rows ...). CPU = user + system of the command "
                "and all its processes; peak RSS = the largest process. Above 100,000 training rows assess's leakage "
                "estimate, single features and learning curve work on a seeded sample of 100,000 (assess.max_rows) "
                "and nested CV and the validation curve are skipped (assess.max_refit_rows); ms_per_row compares the "
                "same work at every size: the CPU of `dvc repro -f` with those two skipped beyond the default data's "
                "(20,190 rows) per row beyond its rows.\n\n"
            ),
        )
        return
    rows = default_data()
    for row in rows:
        print(row, flush=True)
    write_table(
        rows,
        "pipeline.md",
        before=(
            "# The pipeline beside a scikit-learn script\n\nDefault data (20,190 rows), logistic regression with the "
            "default 4-candidate grid, single thread, measured in one run (benchmarks/bench_pipeline.py: the script "
            "does the pipeline's core job; the pipeline also validates, assesses, bootstraps, explains, reports and "
            "tracks). CPU = user + system of the command and its children; peak RSS = the largest process.\n\n"
        ),
    )


if __name__ == "__main__":
    if "--sklearn-job" in sys.argv:
        sklearn_job(Path(sys.argv[sys.argv.index("--sklearn-job") + 1]))
    else:
        main()
