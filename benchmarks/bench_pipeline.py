"""The whole pipeline beside a scikit-learn script that does the same core job, CPU and wall time, in one run.

The script (below, `sklearn_job`): the default data read and cleaned as the pipeline does, the same hold-out and
person-grouped folds (read from data/processed, so both see the same rows), median imputation with missing
indicators + scaling + one-hot encoding in a ColumnTransformer refitted per fold, logistic regression searched over
the same 4-candidate grid by ROC AUC, Platt scaling on the out-of-fold scores, the test metrics, per-group rates of
the sensitive attributes and permutation importance (5 repeats). The pipeline's `dvc repro -f` does that and more
(validation, conformal sets, the leakage estimate and learning curve, bootstrap intervals, Shapley values, the
report and the MLflow run); the stages that do the script's work are timed on their own too.

Run: .venv/bin/python benchmarks/bench_pipeline.py   (after `make run`; single thread both sides)
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

from common import ROOT, write_table

SCRIPT_STAGES = ("validate", "clean", "split", "features", "train", "calibrate", "evaluate", "fairness", "explain")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(args: list[str]) -> tuple[float, float]:
    """(CPU seconds of the command and its children, wall seconds)."""
    env = {
        **os.environ,
        "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "DVC_NO_ANALYTICS": "1",
        "MLFLOW_DISABLE_TELEMETRY": "true",
    }
    cpu, wall = children_cpu(), time.perf_counter()
    subprocess.run(args, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return children_cpu() - cpu, time.perf_counter() - wall


def sklearn_job() -> None:
    """The scikit-learn script (run in a subprocess by main, so its imports are timed too)."""
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

    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    data = params["data"]
    raw = pd.read_csv(ROOT / data["path"])
    train = pd.read_parquet(ROOT / "data/processed/train.parquet")
    test = pd.read_parquet(ROOT / "data/processed/test.parquet")
    membership = pd.read_parquet(ROOT / "data/processed/folds.parquet")
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


def main() -> None:
    os.environ.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    python = str(ROOT / ".venv" / "bin" / "python")
    rows = []
    script_cpu, script_wall = timed([python, str(ROOT / "benchmarks" / "bench_pipeline.py"), "--sklearn-job"])
    pipeline_cpu, pipeline_wall = timed(["dvc", "repro", "-f"])
    stages_cpu = stages_wall = 0.0
    for stage in SCRIPT_STAGES:
        cpu, wall = timed([python, "-m", f"pipeline.stages.{stage}"])
        stages_cpu, stages_wall = stages_cpu + cpu, stages_wall + wall
    # the median of 5: a single process's import time varies by +-0.3 s with the file cache and the machine
    import_cpu = statistics.median(timed([python, "-c", "import pipeline.stages.validate"])[0] for _ in range(5))
    rows.append(
        {"run": "scikit-learn script", "cpu_s": round(script_cpu, 1), "wall_s": round(script_wall, 1), "cpu_ratio": 1.0}
    )
    rows.append(
        {
            "run": "dvc repro -f (12 stages, report and MLflow run)",
            "cpu_s": round(pipeline_cpu, 1),
            "wall_s": round(pipeline_wall, 1),
            "cpu_ratio": round(pipeline_cpu / script_cpu, 2),
        }
    )
    rows.append(
        {
            "run": "the stages doing the script's work (validate to explain)",
            "cpu_s": round(stages_cpu, 1),
            "wall_s": round(stages_wall, 1),
            "cpu_ratio": round(stages_cpu / script_cpu, 2),
        }
    )
    rows.append(
        {
            "run": "python -c 'import pipeline.stages.validate' (median of 5)",
            "cpu_s": round(import_cpu, 2),
            "wall_s": "",
            "cpu_ratio": "",
        }
    )
    for row in rows:
        print(row, flush=True)
    write_table(
        rows,
        "pipeline.md",
        before=(
            "# The pipeline beside a scikit-learn script\n\nDefault data (20,190 rows), logistic regression with the "
            "default 4-candidate grid, single thread, measured in one run (benchmarks/bench_pipeline.py: the script "
            "does the pipeline's core job; the pipeline also validates, assesses, bootstraps, explains, reports and "
            "tracks). CPU = user + system of the command and its children.\n\n"
        ),
    )


if __name__ == "__main__":
    if "--sklearn-job" in sys.argv:
        sklearn_job()
    else:
        main()
