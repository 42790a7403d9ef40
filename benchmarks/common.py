"""Shared benchmark harness: mllib beside scikit-learn on the same person-grouped 5-fold CV, in one run.

The folds and feature matrices are the pipeline's own (run `make run` first): `data/features/fold_k.npy`
holds every training row transformed by the features fitted on fold k's training part, and
`data/processed/folds.parquet` says which rows fit and which validate split k (pipeline/steps/folds.py). Both libraries
see exactly the same matrices, single-threaded. Times are fit + predict summed over the folds; the figure that
matters is the ratio mllib / reference measured in the same process, not the absolute seconds.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # single thread for both libraries, before numpy is imported

import gc
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@dataclass
class Fold:
    X_train: np.ndarray
    y_train: np.ndarray
    X_valid: np.ndarray
    y_valid: np.ndarray
    train_rows: np.ndarray | None = None  # positions in data/processed/train.parquet (for another target)
    valid_rows: np.ndarray | None = None


def load_folds(limit_rows: int | None = None) -> list[Fold]:
    """The pipeline's 5 person-grouped CV folds (binary target as 0/1). limit_rows: first rows only (quick runs)."""
    features_dir, processed = ROOT / "data" / "features", ROOT / "data" / "processed"
    if not (processed / "folds.parquet").exists():
        raise SystemExit("benchmarks need the pipeline's outputs: run `make run` first")
    import yaml

    from pipeline.steps.folds import splits_of

    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    data = pd.read_parquet(processed / "train.parquet")
    membership = pd.read_parquet(processed / "folds.parquet")
    target = data[params["data"]["target"]].to_numpy()
    positive = params["data"]["positive_label"]
    y = (target == (positive if positive is not None else target.max())).astype(np.int64)
    assert (membership["_row_id"].to_numpy() == data["_row_id"].to_numpy()).all()
    out = []
    for k, (train, valid) in enumerate(splits_of(membership)):
        X = np.load(features_dir / f"fold_{k}.npy")
        if limit_rows is not None:
            train, valid = train[train < limit_rows], valid[valid < limit_rows]
        out.append(Fold(X[train], y[train], X[valid], y[valid], train, valid))
    return out


VISIT_CLASSES = "0 / 1-2 / 3-5 / 6+ physician visits"


def visit_classes(folds: list[Fold]) -> list[Fold]:
    """The same rows and features with a 4-class target: the year's physician visits mdvis binned 0 / 1-2 / 3-5 /
    6+ (dropped from the features as a same-year outcome; the validated data still holds it)."""
    visits = pd.read_parquet(ROOT / "data" / "interim" / "validated.parquet", columns=["_row_id", "mdvis"])
    rows = pd.read_parquet(ROOT / "data" / "processed" / "train.parquet", columns=["_row_id"])["_row_id"]
    y = np.searchsorted([0, 2, 5], visits.set_index("_row_id").loc[rows, "mdvis"].to_numpy(), side="left")
    return [Fold(f.X_train, y[f.train_rows], f.X_valid, y[f.valid_rows], f.train_rows, f.valid_rows) for f in folds]


def continuous_target(folds: list[Fold], column: str, transform=None) -> list[Fold]:
    """The same rows and features with a continuous target read from the validated data, optionally transformed
    (e.g. np.log1p of meddol, the year's medical spending, which the binary task drops as a same-year outcome)."""
    values = pd.read_parquet(ROOT / "data" / "interim" / "validated.parquet", columns=["_row_id", column])
    rows = pd.read_parquet(ROOT / "data" / "processed" / "train.parquet", columns=["_row_id"])["_row_id"]
    y = values.set_index("_row_id").loc[rows, column].to_numpy(np.float64)
    y = y if transform is None else transform(y)
    return [Fold(f.X_train, y[f.train_rows], f.X_valid, y[f.valid_rows], f.train_rows, f.valid_rows) for f in folds]


def roc_auc(y, score) -> float:
    """ROC AUC; for class probabilities (n, K > 2) the macro average of the one-vs-rest AUCs."""
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, score, multi_class="ovr") if np.ndim(score) == 2 else roc_auc_score(y, score))


def positive_score(model, X) -> np.ndarray:
    """The positive class's probability (binary), all class probabilities (multiclass), else the decision function."""
    if hasattr(model, "predict_proba"):
        P = model.predict_proba(X)
        return P[:, 1] if P.shape[1] == 2 else P
    return model.decision_function(X)


@dataclass
class Result:
    library: str
    model: str
    auc_mean: float
    auc_std: float
    seconds: float
    peak_rss_mb: float | None = None


def _peak_rss_reset() -> float | None:
    """Reset the kernel's peak-RSS counter (Linux) and return the current RSS in MB."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return _status_mb("VmRSS")
    except OSError:
        return None


def _status_mb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(key)


def r2(y, prediction) -> float:
    from sklearn.metrics import r2_score

    return float(r2_score(y, prediction))


def cross_validate(
    make_model, folds: list[Fold], library: str, name: str, measure_memory: bool = False, regression: bool = False
) -> Result:
    """Fit on each fold's training part, score its validation part (ROC AUC, or R^2 for a regression target);
    time fit + predict only."""
    aucs, seconds, peak = [], 0.0, None
    for i, fold in enumerate(folds):
        model = make_model()
        gc.collect()
        base = _peak_rss_reset() if measure_memory and i == 0 else None
        start = time.perf_counter()
        model.fit(fold.X_train, fold.y_train)
        score = model.predict(fold.X_valid) if regression else positive_score(model, fold.X_valid)
        seconds += time.perf_counter() - start
        if base is not None:
            peak = _status_mb("VmHWM") - base
        aucs.append(r2(fold.y_valid, score) if regression else roc_auc(fold.y_valid, score))
        del model
    return Result(library, name, float(np.mean(aucs)), float(np.std(aucs)), seconds, peak)


def compare(
    pairs: dict, folds: list[Fold], measure_memory: bool = False, warmup=None, regression: bool = False
) -> list[dict]:
    """pairs: name -> (make_mllib_model, make_reference_model). Alternates the order per pair to share drift.
    regression: score R^2 (columns r2_*) instead of ROC AUC (auc_*).

    warmup: optional callable run once before timing (e.g. to compile an accelerator); its time is reported.
    """
    rows = []
    if warmup is not None:
        start = time.perf_counter()
        warmup()
        print(f"warm-up (one-time compilation): {time.perf_counter() - start:.1f} s", flush=True)
    for i, (name, (ours, ref)) in enumerate(pairs.items()):
        order = [("mllib", ours), ("sklearn", ref)] if i % 2 == 0 else [("sklearn", ref), ("mllib", ours)]
        results = {lib: cross_validate(make, folds, lib, name, measure_memory, regression) for lib, make in order}
        a, b = results["mllib"], results["sklearn"]
        q = "r2" if regression else "auc"
        row = {
            "model": name,
            f"{q}_mllib": round(a.auc_mean, 4),
            f"{q}_sklearn": round(b.auc_mean, 4),
            f"{q}_diff": round(a.auc_mean - b.auc_mean, 4),
            "s_mllib": round(a.seconds, 2),
            "s_sklearn": round(b.seconds, 2),
            "time_ratio": round(a.seconds / b.seconds, 2),
        }
        if measure_memory:
            row["peak_mb_mllib"] = None if a.peak_rss_mb is None else round(a.peak_rss_mb, 1)
            row["peak_mb_sklearn"] = None if b.peak_rss_mb is None else round(b.peak_rss_mb, 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def cold_compile_seconds(module: str, function: str) -> float:
    """Seconds benchmarks/<module>.py's function() takes in a fresh interpreter with an empty numba cache: the
    one-time compilation of the kernels it runs (later runs load numba's on-disk cache)."""
    code = f"import time, {module} as m; t = time.perf_counter(); m.{function}(); print(time.perf_counter() - t)"
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=Path(__file__).parent, env=env, check=True, capture_output=True, text=True
        )
    return float(out.stdout.strip().splitlines()[-1])


def best_of(fn, repeats: int = 10) -> float:
    """The fastest of `repeats` wall-clock runs of fn() (a kernel's time, least disturbed by the shared cores)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def write_table(rows: list[dict], path: str | Path, before: str = "", after: str | None = None) -> None:
    """Markdown table of the rows (benchmarks/results/<name>.md) for the closing notes and README, with `before`
    above it and `after` below it; after=None keeps everything that followed the file's previous first table (notes
    and tables written by hand survive a rerun)."""
    path = ROOT / "benchmarks" / "results" / path
    path.parent.mkdir(parents=True, exist_ok=True)
    if after is None:
        old = path.read_text().splitlines() if path.exists() else []
        first = next((i for i, line in enumerate(old) if line.startswith("|")), len(old))
        end = next((i for i in range(first, len(old)) if not old[i].startswith("|")), len(old))
        after = "\n".join(old[end:]) + "\n" if end < len(old) else ""
    cols = list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r.get(c, "")) for c in cols) + " |" for r in rows]
    path.write_text(before + "\n".join(lines) + "\n" + after)
    print(f"wrote {path.relative_to(ROOT)}")
