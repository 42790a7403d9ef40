"""The pipeline's fits beside the libraries a user would pick for the same model beyond memory, in one run per size.

Per size: a scratch project on the default data's shape (benchmarks/large_data.py, as parquet) runs validate, clean,
split and features in memory; every fit below then reads the same feature matrices (data/features/train.npy and
test.npy, the target encoded as the pipeline does) and is scored by ROC AUC on the same test rows. Each fit runs in its
own process, measured from outside: CPU of the process and its descendants (the Dask workers), wall, and the peak RSS
of the largest process in the tree (sampled every 0.1 s). The same hyperparameters on every side:
- logistic regression: l2, lam = 10 (scikit-learn and dask-ml: C = 1 / (2 lam), the same objective);
- gradient boosting: 100 trees, learning rate 0.1, 31 leaves grown best-first, 255 bins, 20 rows per leaf at least,
  no l2 term, no subsampling, no early stopping;
- the additive model: mllib's explainable boosting at its registry defaults (what model.name auto compares: 4 outer
  bags, learning rate 0.15, early stopping on a 15% hold-out of each bag, 30 ranked pairs) beside InterpretML's
  ExplainableBoostingClassifier matched to those settings (tests/interpret_peer.py; interpret has no Dask mode).
"Dask" rows run on a LocalCluster of 2 single-threaded worker processes with the rows in blocks of 500,000 read on
the workers; "in memory" rows run single-threaded in one process. The pipeline's train stage (its whole search and
refit, logistic regression, in memory) is timed too, with its number of fits, beside scikit-learn's lbfgs doing the
same search in one process: the same fold matrices the stage reads (data/features/fold_k.npy), the same grid of lam,
scored by ROC AUC on each split's validation rows, the best lam refitted on all training rows.

Run: .venv/bin/python benchmarks/bench_peers.py 1000000 5000000     (`make bench-peers` installs the peers first)
     .venv/bin/python benchmarks/bench_peers.py 1000000 5000000 --only-train-stage   (the data stages, the train
     stage and scikit-learn's same search only: results/peers_train_stage.md)
     .venv/bin/python benchmarks/bench_peers.py 1000000 5000000 --model "additive model" --results peers_additive.md
Results: benchmarks/results/peers_at_scale.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import threading
import time
from pathlib import Path

import numpy as np
from common import ROOT, roc_auc, write_table  # one thread per process: the fits inherit its pins

BLOCK_ROWS = 500_000
LAM = 10.0
TREES = dict(learning_rate=0.1, max_iter=100, max_leaf_nodes=31, max_bins=255, min_samples_leaf=20)
FITS = {  # (model, library, where): what a user would run for it
    ("logistic regression", "mllib (the pipeline)", "in memory"),
    ("logistic regression", "mllib (the pipeline)", "dask"),
    ("logistic regression", "scikit-learn lbfgs", "in memory"),
    ("logistic regression", "dask-ml newton", "dask"),
    ("gradient boosting", "mllib (the pipeline)", "in memory"),
    ("gradient boosting", "mllib (the pipeline)", "dask"),
    ("gradient boosting", "scikit-learn HistGradientBoosting", "in memory"),
    ("gradient boosting", "XGBoost hist", "dask"),
    ("gradient boosting", "LightGBM", "dask"),
    ("additive model", "mllib (the pipeline)", "in memory"),
    ("additive model", "mllib (the pipeline)", "dask"),
    ("additive model", "interpret EBM, matched", "in memory"),
}
ORDER = sorted(FITS)


# ------------------------------------------------------------------ the fits (each in its own process)


def _rows(path: str, start: int, stop: int) -> np.ndarray:
    return np.array(np.load(path, mmap_mode="r")[start:stop])


def _blocks(n: int) -> list[tuple[int, int]]:
    return [(s, min(s + BLOCK_ROWS, n)) for s in range(0, n, BLOCK_ROWS)]


def _dask_arrays(work: Path):
    """X and y of the training rows as dask arrays whose blocks are read on the workers."""
    import dask
    import dask.array as da

    X_path, y_path = str(work / "X_train.npy"), str(work / "y_train.npy")
    n, p = np.load(X_path, mmap_mode="r").shape
    read = dask.delayed(_rows, pure=True)
    X = da.concatenate([da.from_delayed(read(X_path, a, b), (b - a, p), np.float64) for a, b in _blocks(n)])
    y = da.concatenate([da.from_delayed(read(y_path, a, b), (b - a,), np.int64) for a, b in _blocks(n)])
    return X, y


def _mllib_block(k: int, bounds: tuple[int, int], X_path: str, y_path: str) -> tuple:
    """Block k of the training rows, read on a worker: (X, y, no weights), as mllib's fit_blocks takes it."""
    return _rows(X_path, *bounds), _rows(y_path, *bounds), None


def fit_one(work: Path, model: str, library: str, where: str) -> dict:
    """Fit on the training rows, score the test rows: {"auc", "fit_s"}."""
    X_test, y_test = np.load(work / "X_test.npy"), np.load(work / "y_test.npy")
    client = None
    if where == "dask":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    start = time.perf_counter()
    if library.startswith("mllib"):
        from mllib.additive import ExplainableBoostingClassifier
        from mllib.gradient_boosting import GradientBoostingClassifier
        from mllib.linear import LogisticRegression

        est = {
            "logistic regression": lambda: LogisticRegression(lam=LAM),
            "gradient boosting": lambda: GradientBoostingClassifier(**TREES),
            "additive model": lambda: ExplainableBoostingClassifier(),
        }[model]()
        if client is None:
            est.fit(np.load(work / "X_train.npy"), np.load(work / "y_train.npy"))
        else:
            from pipeline.core.partitions import ClusterBlocks

            bounds = _blocks(np.load(work / "X_train.npy", mmap_mode="r").shape[0])
            X_paths, y_paths = [str(work / "X_train.npy")] * len(bounds), [str(work / "y_train.npy")] * len(bounds)
            est.fit_blocks(ClusterBlocks.load(client, _mllib_block, list(range(len(bounds))), bounds, X_paths, y_paths))
        score = est.predict_proba(X_test)[:, 1]
    elif library == "scikit-learn lbfgs":
        from sklearn.linear_model import LogisticRegression

        est = LogisticRegression(C=1 / (2 * LAM), max_iter=1000).fit(
            np.load(work / "X_train.npy"), np.load(work / "y_train.npy")
        )
        score = est.predict_proba(X_test)[:, 1]
    elif library == "dask-ml newton":
        from dask_ml.linear_model import LogisticRegression

        X, y = _dask_arrays(work)
        # dask-glm minimises sum(loss) + lamduh * ||w||^2 / 2 with lamduh = 1 / C: C = 1 / (2 lam) is the same problem.
        # Its fastest solver here: at 100,000 rows newton took 8 s, lbfgs 16 s, the default admm 225 s (same AUC)
        est = LogisticRegression(penalty="l2", C=1 / (2 * LAM), solver="newton", max_iter=100).fit(X, y)
        score = 1 / (1 + np.exp(-(X_test @ np.asarray(est.coef_).ravel() + float(np.asarray(est.intercept_)))))
    elif library == "scikit-learn HistGradientBoosting":
        from sklearn.ensemble import HistGradientBoostingClassifier

        est = HistGradientBoostingClassifier(**TREES, l2_regularization=0.0, early_stopping=False)
        est.fit(np.load(work / "X_train.npy"), np.load(work / "y_train.npy"))
        score = est.predict_proba(X_test)[:, 1]
    elif library == "interpret EBM, matched":
        from mllib.additive import ExplainableBoostingClassifier

        sys.path.insert(0, str(ROOT / "tests"))
        from interpret_peer import interpret_model

        X = np.load(work / "X_train.npy")
        est = interpret_model(False, X.shape[1], ExplainableBoostingClassifier().get_params())
        est.fit(X, np.load(work / "y_train.npy"))
        score = est.predict_proba(X_test)[:, 1]
    elif library == "XGBoost hist":
        from xgboost import dask as dxgb

        X, y = _dask_arrays(work)
        est = dxgb.DaskXGBClassifier(
            n_estimators=100, learning_rate=0.1, max_leaves=31, grow_policy="lossguide", max_depth=0, max_bin=255,
            tree_method="hist", reg_lambda=0.0, nthread=1,
        )  # fmt: skip
        est.client = client
        est.fit(X, y)
        score = est.get_booster().inplace_predict(X_test)
    elif library == "LightGBM":
        import lightgbm as lgb

        X, y = _dask_arrays(work)
        est = lgb.DaskLGBMClassifier(
            n_estimators=100, learning_rate=0.1, num_leaves=31, max_bin=255, min_child_samples=20, reg_lambda=0.0,
            verbose=-1,
        )  # fmt: skip
        est.fit(X, y)
        score = est.to_local().predict_proba(X_test)[:, 1]
    else:
        raise SystemExit(f"unknown library {library}")
    fit_s = time.perf_counter() - start
    if client is not None:
        client.close()
        cluster.close()
    return {"auc": roc_auc(y_test, score), "fit_s": fit_s}


def sklearn_search(work: Path) -> dict:
    """scikit-learn's lbfgs through the train stage's search: every (lam, split) fit on the split's matrix, the mean
    validation AUC per lam, the best lam refitted on all training rows: {"auc": the best mean validation AUC,
    "fits"}."""
    import pandas as pd
    import yaml
    from sklearn.linear_model import LogisticRegression

    from pipeline.steps.folds import splits_of

    project = work / "project"
    grid = yaml.safe_load((project / "params.yaml").read_text())["search"]["grid"]["logistic_regression"]["lam"]
    splits = splits_of(pd.read_parquet(project / "data/processed/folds.parquet"))
    y = np.load(work / "y_train.npy")
    scores = {lam: [] for lam in grid}
    for k, (fit, valid) in enumerate(splits):
        X = np.load(project / f"data/features/fold_{k}.npy")  # one split's matrix at a time, as the stage reads them
        for lam in grid:
            est = LogisticRegression(C=1 / (2 * lam), max_iter=1000).fit(X[fit], y[fit])
            scores[lam].append(roc_auc(y[valid], est.decision_function(X[valid])))
        del X
    best = max(grid, key=lambda lam: np.mean(scores[lam]))
    LogisticRegression(C=1 / (2 * best), max_iter=1000).fit(np.load(work / "X_train.npy"), y)
    return {"auc": float(np.mean(scores[best])), "fits": len(grid) * len(splits) + 1}


# ------------------------------------------------------------------ measuring a process tree from outside


def largest_rss(pid: int, stop: threading.Event, peaks: dict) -> None:
    """peaks["rss"]: the largest RSS of any process in the tree under `pid` (the fit's, or a Dask worker's)."""
    import psutil

    try:
        root = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    while not stop.is_set():
        try:
            for process in [root, *root.children(recursive=True)]:
                try:
                    peaks["rss"] = max(peaks.get("rss", 0), process.memory_info().rss)
                except psutil.NoSuchProcess:
                    pass
        except psutil.NoSuchProcess:
            return
        time.sleep(0.1)


def measured(command: list[str], cwd: Path) -> tuple[dict, str]:
    """(CPU s of the command and its descendants, wall s, peak RSS GB of the largest process), and its stdout."""
    from bench_out_of_core import measured_run

    cpu, wall, peaks, out, code = measured_run(command, cwd, None, largest_rss)
    if code:
        raise SystemExit(f"{' '.join(command)} failed (exit {code})")
    return {"cpu_s": round(cpu, 1), "wall_s": round(wall, 1), "peak_rss_gb": round(peaks.get("rss", 0) / 1e9, 2)}, out


# ------------------------------------------------------------------ one size


def prepared(work: Path, n: int) -> tuple[Path, list[dict]]:
    """The scratch project at `n` rows after validate .. features, and the matrices every fit reads."""
    import pandas as pd
    from bench_pipeline import scratch_project

    project, rows = work / "project", []
    if not (work / "y_test.npy").exists():
        work.mkdir(parents=True, exist_ok=True)
        scratch_project(project, n)
        for stage in ("validate", "clean", "split", "features"):
            figures, _ = measured([sys.executable, "-m", f"pipeline.stages.{stage}"], project)
            rows.append({"rows": n, "model": "(data)", "library": f"pipeline {stage} stage", "where": "in memory",
                         **figures})  # fmt: skip
            print(rows[-1], flush=True)
        target = json.loads((project / "data/processed/target.json").read_text())
        index = {label: k for k, label in enumerate(target["classes"])}
        for part in ("train", "test"):
            labels = pd.read_parquet(project / f"data/processed/{part}.parquet", columns=[target["column"]])
            np.save(work / f"y_{part}.npy", labels[target["column"]].map(index).to_numpy(np.int64))
            os.replace(project / f"data/features/{part}.npy", work / f"X_{part}.npy")
    return project, rows


def train_stage(project: Path, n: int) -> dict:
    """The pipeline's train stage as params.yaml sets it (logistic regression's search and refit, in memory)."""
    for part in ("train", "test"):  # the stage reads the matrices where the features stage wrote them
        target = project / f"data/features/{part}.npy"
        if not target.exists():
            os.link(project.parent / f"X_{part}.npy", target)
    figures, out = measured([sys.executable, "-m", "pipeline.stages.train"], project)
    search = json.loads((project / "reports/search.json").read_text())
    n_fits = sum(len(c["valid_scores"]) for c in search["candidates"]) + 1  # every (candidate, fold) and the refit
    return {"rows": n, "model": "logistic regression", "library": f"pipeline train stage ({n_fits} fits)",
            "where": "in memory", **figures, "cpu_per_fit_s": round(figures["cpu_s"] / n_fits, 2),
            "auc": round(search["candidates"][search["best_index"]]["mean_valid_score"], 4)}  # fmt: skip


def one_size(n: int, work: Path, only: set, stage_only: bool) -> list[dict]:
    project, rows = prepared(work / f"rows_{n}", n)
    for model, library, where in ORDER:
        if stage_only or (only and model not in only):
            continue
        figures, out = measured(
            [sys.executable, __file__, "--fit", str(work / f"rows_{n}"), model, library, where], ROOT
        )
        result = json.loads(out.strip().splitlines()[-1])
        rows.append({"rows": n, "model": model, "library": library, "where": where, **figures,
                     "fit_s": round(result["fit_s"], 1), "auc": round(result["auc"], 4)})  # fmt: skip
        print(rows[-1], flush=True)
    if not only or "logistic regression" in only:
        rows.append(train_stage(project, n))
        print(rows[-1], flush=True)
        figures, out = measured([sys.executable, __file__, "--search", str(work / f"rows_{n}")], ROOT)
        result = json.loads(out.strip().splitlines()[-1])
        fits = result["fits"]
        rows.append({"rows": n, "model": "logistic regression", "where": "in memory", **figures,
                     "library": f"scikit-learn lbfgs, the train stage's search ({fits} fits)",
                     "auc": round(result["auc"], 4), "cpu_per_fit_s": round(figures["cpu_s"] / fits, 2)})  # fmt: skip
        print(rows[-1], flush=True)
    return rows


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    names = ["numpy", "scipy", "numba", "scikit-learn", "dask", "distributed", "dask-ml", "xgboost", "lightgbm"]
    found = []
    for name in names:  # --only-train-stage needs none of the peers
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            pass
    return ", ".join(found)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", type=int, nargs="+")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench_peers"))
    parser.add_argument("--model", action="append", default=[], choices=sorted({m for m, _, _ in FITS}))
    parser.add_argument("--only-train-stage", action="store_true", help="the train stage and its scikit-learn search")
    parser.add_argument("--results", default=None, help="the results file (default: peers_at_scale.md)")
    args = parser.parse_args()
    rows = [row for n in args.sizes for row in one_size(n, args.work, set(args.model), args.only_train_stage)]
    columns = list(dict.fromkeys(key for row in rows for key in row))  # every row's columns, in first-seen order
    rows = [{key: row.get(key, "") for key in columns} for row in rows]
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**30
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {memory:.0f} GiB"

    title = (
        "The train stage beside scikit-learn doing the same search, at scale"
        if args.only_train_stage
        else "The pipeline's fits beside the peers, at scale"
    )
    write_table(
        rows,
        args.results or ("peers_train_stage.md" if args.only_train_stage else "peers_at_scale.md"),
        before=(
            f"# {title}\n\n`benchmarks/bench_peers.py {' '.join(sys.argv[1:])}` on {time.strftime('%Y-%m-%d')}; "
            f"{machine}; Python {platform.python_version()}; {versions()}. What each row does and how it is "
            "measured: the script's docstring. cpu_s counts the process and its Dask workers; peak_rss_gb is the "
            "largest process; fit_s is the wall time inside the process from the data's first read to the fitted "
            "model; auc is ROC AUC on the same test rows (the train stage's: its cross-validated score).\n\n"
        ),
    )


if __name__ == "__main__":
    if "--search" in sys.argv:
        print(json.dumps(sklearn_search(Path(sys.argv[sys.argv.index("--search") + 1]))))
    elif "--fit" in sys.argv:
        i = sys.argv.index("--fit")
        work, model, library, where = sys.argv[i + 1 : i + 5]
        print(json.dumps(fit_one(Path(work), model, library, where)))
    else:
        main()
