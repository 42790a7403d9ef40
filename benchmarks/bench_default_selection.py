"""The pipeline's default model selection (model.name: auto) beside a scikit-learn + InterpretML script doing the same
comparison on the same folds, CPU per model and in total, in one run per size.

Per size: a scratch project on the default data's shape (benchmarks/large_data.py, as parquet; bench_pipeline's
scratch_project: this checkout's code and params.yaml) runs validate, clean, split and features in memory; both sides
then read the same matrices: data/features/fold_k.npy (every training row in the features fitted on split k's
training part, memory-mapped and sliced split by split), the same 5 grouped splits (data/processed/folds.parquet),
the target encoded as the pipeline does, and data/features/train.npy for the refit.

Ours: the train stage itself (pipeline.stages.train.main, in its process, in the scratch project, on that project's copy
of the code), with timers wrapped around its calls and nothing else changed: each model's search_model
(mllib.model_selection.evaluate_candidates over FoldData with the groups, the model built by pipeline.core.build.model
from params.yaml: logistic_regression over lam in {0.1, 1, 10, 100}; explainable_boosting, the registry's defaults, one
candidate (its bags one by one, and the fits in train's process: compute.n_workers 1, as theirs); gradient_boosting with
early stopping, max_iter 500, over max_leaf_nodes in {7, 31}; each fit's early-stopping hold-outs take whole data.group
groups), then the choice (model.selection one_se), the no-skill baseline, the chosen configuration's out-of-fold scores,
the refit of the chosen model on every training row (mllib.base.fit_with_groups) and the stage's outputs (models,
reports). Each (candidate, split) task also scores the split's training rows (the train / validation gap the stage
reports) and keeps the fitted model's state.
Theirs, one script, on the same matrices and splits: scikit-learn's LogisticRegression (lbfgs, l2, C = 1 / (2 lam):
the same objective, max_iter 1000), InterpretML's ExplainableBoostingClassifier (interpret-core, n_jobs=1, set up
by tests/interpret_peer.py from mllib's registry defaults), scikit-learn's HistGradientBoostingClassifier
(early_stopping on, validation_fraction 0.1, n_iter_no_change 10, tol 1e-7, max_iter 500, learning_rate 0.1,
min_samples_leaf 20, no l2, 255 bins, max_leaf_nodes 7 and 31), each candidate fitted on each split's training part
and scored by ROC AUC on its validation part; the same one-standard-error choice (the corrected resampled standard
error of the paired fold differences, simplest model first), and the refit of the chosen model on all training rows.
Their early-stopping hold-outs (EBM's 15% per bag, HistGradientBoosting's 10%) are drawn by rows, not by groups.

Both sides run in one process each, one thread (benchmarks/common.py pins BLAS and OpenMP before numpy, scikit-learn
and interpret are imported), measured the same way from outside: CPU of the process and its descendants, wall, peak
RSS of the largest process (sampled every 0.1 s), and the mean 1-minute load average while it ran. Inside each
process the same timers split it: per model the CPU of its search (time.process_time), of its fits alone, and the peak
RSS while it ran (VmHWM, reset per part); the refit of the chosen model; "rest" is the remainder (interpreter start,
imports, reading the target and splits, the choice; ours also the baseline, the out-of-fold scores and writing the
stage's outputs). mllib's numba kernels come from the machine's compile cache (mllib/_numba_cache.py): the first run
on a machine compiles them once (~25 s), not counted here.

Run: .venv/bin/python benchmarks/bench_default_selection.py 100000 1000000   (2 cores: ~1 h at 1M rows)
Results: benchmarks/results/default_selection.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
from common import ROOT, _peak_rss_reset, _status_mb, write_table  # one thread per process: the children inherit it

MODELS = ("logistic_regression", "explainable_boosting", "gradient_boosting")  # the binary task's default set


# ------------------------------------------------------------------ timing inside a process (both sides alike)


class Parts:
    """CPU (process_time), wall and peak RSS of the named parts of one process, and the CPU of its fits alone."""

    def __init__(self):
        self.figures: dict[str, dict] = {}
        self.fit_cpu = 0.0

    def run(self, part: str, fn, *args, **kwargs):
        _peak_rss_reset()
        cpu, wall, fits = time.process_time(), time.perf_counter(), self.fit_cpu
        out = fn(*args, **kwargs)
        self.figures[part] = {
            "cpu_s": time.process_time() - cpu,
            "wall_s": time.perf_counter() - wall,
            "fit_cpu_s": self.fit_cpu - fits,
            "peak_rss_gb": _status_mb("VmHWM") * 2**20 / 1e9,
        }
        return out

    def fit(self, fit, *args, **kwargs):
        start = time.process_time()
        try:
            return fit(*args, **kwargs)
        finally:
            self.fit_cpu += time.process_time() - start


# ------------------------------------------------------------------ ours: the train stage, timers around its calls


def ours(project: Path) -> dict:
    """pipeline.stages.train.main in `project` (its copy of the code), each model's search and the refit timed."""
    os.chdir(project)
    sys.path.insert(0, str(project))  # the scratch project's code, as `python -m pipeline.stages.train` there imports
    import mllib.model_selection.search as search_module
    import pipeline.steps.feature_blocks as rows_module
    from pipeline.stages import train

    parts, found = Parts(), {}
    fit_with_groups, search_model, training_rows = (
        search_module.fit_with_groups,
        train.search_model,
        train.training_rows,
    )

    def timed_search(name, *args, **kwargs):
        results, best = parts.run(name, search_model, name, *args, **kwargs)
        found[name] = {"auc": results[best]["mean_valid_score"], "params": results[best]["params"],
                       "fits": sum(len(r["valid_scores"]) for r in results)}  # fmt: skip
        return results, best

    def timed_rows(*args, **kwargs):
        fold_data, runner, refit = training_rows(*args, **kwargs)
        return fold_data, runner, lambda model: parts.run("refit", refit, model)

    timed_fit = lambda *a, **k: parts.fit(fit_with_groups, *a, **k)  # noqa: E731
    search_module.fit_with_groups = rows_module.fit_with_groups = timed_fit  # what evaluate_one and the refit call
    train.search_model, train.training_rows = timed_search, timed_rows
    assert str(Path(train.__file__).resolve()).startswith(str(project.resolve())), train.__file__
    cpu = time.process_time()
    train.main()
    chosen = json.loads(Path("reports/metrics/train.json").read_text())
    return {"parts": parts.figures, "models": found, "chosen": chosen["model"], "chosen_params": chosen["best_params"],
            "in_process_cpu_s": time.process_time() - cpu}  # fmt: skip


# ------------------------------------------------------------------ theirs: scikit-learn + interpret


def one_se(best: dict, n_train: float, n_test: float) -> str:
    """The first model (simplest first) whose mean validation AUC is within one corrected standard error (Nadeau &
    Bengio: var(d) (1/k + n_test/n_train) of the paired split differences d) of the best's: model.selection one_se."""
    top = max(best, key=lambda n: np.mean(best[n]))  # ties: the first listed
    for name, scores in best.items():
        d = np.asarray(best[top]) - np.asarray(scores)
        se = np.sqrt(d.var(ddof=1) * (1 / d.size + n_test / n_train))
        if name == top or not d.mean() > se:
            return name
    return top


def theirs(project: Path, settings: dict) -> dict:
    """The same comparison with scikit-learn and interpret: every candidate on every split, the one-SE choice, the
    chosen configuration refitted on every training row."""
    import pandas as pd
    from sklearn.base import clone
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    sys.path.insert(0, str(ROOT / "tests"))
    from interpret_peer import interpret_model

    target = json.loads((project / "data/processed/target.json").read_text())
    labels = pd.read_parquet(project / "data/processed/train.parquet", columns=[target["column"]])[target["column"]]
    y = labels.map({label: k for k, label in enumerate(target["classes"])}).to_numpy(np.int64)
    membership = pd.read_parquet(project / "data/processed/folds.parquet")
    rows = np.arange(len(membership), dtype=np.int32)
    k_splits = sum(c.startswith("valid_") for c in membership.columns)
    splits = [(np.repeat(rows, membership[f"train_{k}"].to_numpy()), rows[membership[f"valid_{k}"].to_numpy()])
              for k in range(k_splits)]  # fmt: skip
    n_features = np.load(project / "data/features/fold_0.npy", mmap_mode="r").shape[1]
    hgb = HistGradientBoostingClassifier(**settings["gradient_boosting"])
    candidates = {  # name: [(params, estimator)]
        "logistic_regression": [
            ({"lam": lam}, LogisticRegression(C=1 / (2 * lam), max_iter=1000)) for lam in settings["lam"]
        ],
        "explainable_boosting": [({}, interpret_model(False, n_features, settings["explainable_boosting"]))],
        "gradient_boosting": [
            ({"max_leaf_nodes": m}, clone(hgb).set_params(max_leaf_nodes=m)) for m in settings["max_leaf_nodes"]
        ],
    }
    parts, found = Parts(), {}

    def search(name: str) -> list[list[float]]:
        scores = [[] for _ in candidates[name]]
        for k, (fit, valid) in enumerate(splits):  # split by split, each matrix read when reached (as the stage)
            X = np.load(project / f"data/features/fold_{k}.npy", mmap_mode="r")
            X_fit, X_valid = np.asarray(X[fit]), np.asarray(X[valid])
            for i, (_, estimator) in enumerate(candidates[name]):
                model = parts.fit(clone(estimator).fit, X_fit, y[fit])
                score = model.decision_function(X_valid) if name == "logistic_regression" else None
                score = model.predict_proba(X_valid)[:, 1] if score is None else score
                scores[i].append(float(roc_auc_score(y[valid], score)))
            del X, X_fit, X_valid
        return scores

    best = {}
    for name in MODELS:
        scores = parts.run(name, search, name)
        i = int(np.argmax([np.mean(s) for s in scores]))  # ties: the first candidate
        best[name] = scores[i]
        found[name] = {"auc": float(np.mean(scores[i])), "params": candidates[name][i][0],
                       "fits": len(scores) * len(splits), "index": i}  # fmt: skip
    n_train, n_test = (float(np.mean([len(part) for part in parts_])) for parts_ in zip(*splits))
    chosen = one_se(best, n_train, n_test)
    estimator = candidates[chosen][found[chosen]["index"]][1]
    parts.run("refit", lambda: parts.fit(clone(estimator).fit, np.load(project / "data/features/train.npy"), y))
    return {"parts": parts.figures, "models": found, "chosen": chosen, "chosen_params": found[chosen]["params"]}


def their_settings(project: Path) -> dict:
    """Theirs' hyperparameters from the scratch project's params.yaml and mllib's registry defaults (worked out here,
    outside the timed process, which imports neither mllib nor the pipeline); refused if params.yaml has changed."""
    import yaml

    from mllib import registry

    params = yaml.safe_load((project / "params.yaml").read_text())
    model, grid = params["model"], params["search"]["grid"]
    assert model["name"] == "auto" and not model["candidates"] and params["search"]["method"] == "grid", model
    ebm_params = model["params"].get("explainable_boosting", {})  # threads only: the same model for any n_jobs
    assert set(ebm_params) <= {"n_jobs"} and "explainable_boosting" not in grid, ebm_params
    assert set(grid["logistic_regression"]) == {"lam"} and set(grid["gradient_boosting"]) == {"max_leaf_nodes"}
    ebm = registry.get("explainable_boosting")(**ebm_params).get_params()
    ebm.pop("random_state")
    gb = {**registry.get("gradient_boosting")().get_params(), **model["params"]["gradient_boosting"]}
    assert gb["early_stopping"] and gb["subsample"] == 1.0 and gb["max_depth"] is None, gb
    hgb = {key: gb[key] for key in ("learning_rate", "max_iter", "min_samples_leaf", "l2_regularization", "max_bins",
                                     "validation_fraction", "n_iter_no_change", "tol")}  # fmt: skip
    hgb.update(early_stopping=True, scoring="loss", random_state=0)
    return {"lam": grid["logistic_regression"]["lam"], "max_leaf_nodes": grid["gradient_boosting"]["max_leaf_nodes"],
            "explainable_boosting": ebm, "gradient_boosting": hgb}  # fmt: skip


# ------------------------------------------------------------------ measuring a process from outside


def sampled(pid: int, stop: threading.Event, peaks: dict) -> None:
    """bench_peers' largest RSS of the process tree, and the 1-minute load average every 5 s (peaks["load"])."""
    from bench_peers import largest_rss

    loads = peaks.setdefault("load", [os.getloadavg()[0]])

    def load():
        while not stop.wait(5.0):
            loads.append(os.getloadavg()[0])

    thread = threading.Thread(target=load)
    thread.start()
    largest_rss(pid, stop, peaks)
    thread.join()


def measured(command: list[str], cwd: Path) -> tuple[dict, str]:
    from bench_out_of_core import measured_run

    cpu, wall, peaks, out, code = measured_run(command, cwd, None, sampled)
    if code:
        raise SystemExit(f"{' '.join(command)} failed (exit {code})")
    return {"cpu_s": cpu, "wall_s": wall, "peak_rss_gb": peaks.get("rss", 0) / 1e9,
            "load": float(np.mean(peaks["load"]))}, out  # fmt: skip


# ------------------------------------------------------------------ one size


def prepared(work: Path, n: int) -> tuple[Path, list[dict]]:
    """The scratch project at `n` rows after validate .. features (kept between runs of the same size)."""
    from bench_pipeline import scratch_project

    project, stages = work / "project", []
    if not (project / "data/features/train.npy").exists():
        if project.exists():
            subprocess.run(["rm", "-rf", str(project)], check=True)
        work.mkdir(parents=True, exist_ok=True)
        scratch_project(project, n)
        one_thread(project / "params.yaml")
        for stage in ("validate", "clean", "split", "features"):
            figures, _ = measured([sys.executable, "-m", f"pipeline.stages.{stage}"], project)
            stages.append({"stage": stage, **figures})
            print(n, stages[-1], flush=True)
    return project, stages


def one_thread(path: Path) -> None:
    """The project's params with train's fits one by one in its process (compute.n_workers 1) and the additive model's
    bags one by one (n_jobs 1): both sides single-threaded, as theirs is (the defaults use every core; the fits and
    their results are the same)."""
    import yaml

    params = yaml.safe_load(path.read_text())
    params["compute"]["n_workers"] = 1
    params["model"]["params"]["explainable_boosting"] = {"n_jobs": 1}
    path.write_text(yaml.safe_dump(params, sort_keys=False))


def one_size(n: int, work: Path) -> tuple[list[dict], dict]:
    project, stages = prepared(work / f"rows_{n}", n)
    settings = work / f"rows_{n}" / "their_settings.json"
    settings.write_text(json.dumps(their_settings(project)))
    runs = {}
    for side in ("ours", "theirs"):
        figures, out = measured([sys.executable, __file__, f"--{side}", str(project), str(settings)], ROOT)
        runs[side] = {**json.loads(out.strip().splitlines()[-1]), "outside": figures}
        print(n, side, json.dumps(runs[side]), flush=True)
    a, b = runs["ours"], runs["theirs"]
    train_rows = int(np.load(project / "data/features/train.npy", mmap_mode="r").shape[0])
    rows = []

    def row(part: str, fits, x: dict, y: dict, auc=("", ""), params=("", "")) -> dict:
        return {"rows": n, "part": part, "fits": fits, "cpu_ours_s": round(x["cpu_s"], 1),
                "cpu_theirs_s": round(y["cpu_s"], 1), "ratio": round(x["cpu_s"] / y["cpu_s"], 2),
                "fit_cpu_ours_s": round(x["fit_cpu_s"], 1) if "fit_cpu_s" in x else "",
                "fit_cpu_theirs_s": round(y["fit_cpu_s"], 1) if "fit_cpu_s" in y else "",
                "wall_ours_s": round(x["wall_s"], 1), "wall_theirs_s": round(y["wall_s"], 1),
                "rss_ours_gb": round(x["peak_rss_gb"], 2) if "peak_rss_gb" in x else "",
                "rss_theirs_gb": round(y["peak_rss_gb"], 2) if "peak_rss_gb" in y else "",
                "auc_ours": auc[0], "auc_theirs": auc[1],
                "params_ours": params[0], "params_theirs": params[1]}  # fmt: skip

    def shown(params: dict) -> str:
        return ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"

    for name in MODELS:
        mine, peer = a["models"][name], b["models"][name]
        rows.append(row(name, mine["fits"], a["parts"][name], b["parts"][name],
                        (round(mine["auc"], 4), round(peer["auc"], 4)),
                        (shown(mine["params"]), shown(peer["params"]))))  # fmt: skip
    rows.append(row("refit of the chosen", 1, a["parts"]["refit"], b["parts"]["refit"],
                    params=(f"{a['chosen']} {shown(a['chosen_params'])}",
                            f"{b['chosen']} {shown(b['chosen_params'])}")))  # fmt: skip
    rest = [
        {"cpu_s": side["outside"]["cpu_s"] - sum(p["cpu_s"] for p in side["parts"].values()),
         "wall_s": side["outside"]["wall_s"] - sum(p["wall_s"] for p in side["parts"].values())}
        for side in (a, b)
    ]  # fmt: skip
    rows.append(row("rest of the process", "", *rest))
    total = [{**side["outside"], "fit_cpu_s": sum(p["fit_cpu_s"] for p in side["parts"].values())} for side in (a, b)]
    rows.append(row("**total**", sum(r["fits"] for r in rows if r["fits"] != ""), *total))
    meta = {"rows": n, "train_rows": train_rows, "stages": stages, "load": (a["outside"]["load"], b["outside"]["load"])}
    return rows, meta


def versions() -> str:
    from importlib.metadata import version

    names = ["numpy", "scipy", "numba", "scikit-learn", "interpret-core"]
    return ", ".join(f"{name} {version(name)}" for name in names)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", type=int, nargs="+")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench_default_selection"))
    args = parser.parse_args()
    rows, metas = [], []
    for n in args.sizes:
        size_rows, meta = one_size(n, args.work)
        rows += size_rows
        metas.append(meta)
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**30
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {memory:.0f} GiB"
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    sizes = "; ".join(
        f"{m['rows']:,} rows ({m['train_rows']:,} training rows): mean 1-min load {m['load'][0]:.1f} (ours) / "
        f"{m['load'][1]:.1f} (theirs)"
        for m in metas
    )
    write_table(
        rows,
        "default_selection.md",
        before=(
            "# The default model selection beside scikit-learn + interpret doing the same comparison\n\n"
            f"`benchmarks/bench_default_selection.py {' '.join(sys.argv[1:])}` on {time.strftime('%Y-%m-%d')}, "
            f"commit {commit.stdout.strip()}; {machine}, shared ({sizes}); Python {platform.python_version()}; "
            f"{versions()}. What each side does and how it is measured: the script's docstring. Ours: the train "
            "stage (model.name auto) in the scratch project; theirs: LogisticRegression (lbfgs), interpret's "
            "ExplainableBoostingClassifier, HistGradientBoostingClassifier, on the same fold matrices and splits. "
            "cpu_*: process CPU (the totals: the process and its descendants, from outside); fit_cpu_*: the fits "
            "alone; ratio: ours / theirs CPU; auc_*: the best candidate's mean validation ROC AUC over the 5 "
            "grouped splits; params_*: the best candidate (refit row: the chosen model, one-SE rule).\n\n"
        ),
    )


if __name__ == "__main__":
    if "--ours" in sys.argv or "--theirs" in sys.argv:
        side = "ours" if "--ours" in sys.argv else "theirs"
        i = sys.argv.index(f"--{side}")
        project, settings = Path(sys.argv[i + 1]), json.loads(Path(sys.argv[i + 2]).read_text())
        print(json.dumps(ours(project) if side == "ours" else theirs(project, settings), default=float))
    else:
        main()
