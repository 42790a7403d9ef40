"""Variants of the default comparison's models on the real-data corpus's cross-validation folds, not its test rows.

A default changes only when the change beats it by more than its noise on cross-fitted data (the developers' guide);
a small file's one test set (40 to 90 rows on auto, glass, hitters, diabetes, grunfeld) moves by a few hundredths
between seeds, so the test table (benchmarks/results/real_data.md) cannot decide a default. Here each file is brought
as a user would (params.yaml's `data` edited) into a scratch project, `dvc repro features` makes the project's folds
(data/processed/folds.parquet: grouped, stratified or forward-chaining as the pipeline split it) and each split's
feature matrix (data/features/fold_k.npy), and each model below is fitted on every split's training part
(data.group's values as the groups of its early-stopping hold-out, as the train stage fits it) and scored on its
validation part by the task's headline (ROC AUC, macro one-vs-rest AUC, R^2):

- gradient boosting as the default runs it (early stopping on an inner 10% hold-out, max_iter 500) and without early
  stopping at scikit-learn's fixed 100 iterations (HistGradientBoosting turns early stopping off below 10,000 rows):
  each at max_leaf_nodes 7 and 31 (search.grid), the better of the two by CV mean;
- the additive model (mllib.additive, registry defaults) and InterpretML's EBM matched to its settings
  (tests/interpret_peer.py): whether the test table's gaps between the two (auto, glass, hitters) are the fit's or
  the test rows'.

Each comparison is the paired difference of the 5 splits' scores: its mean and the standard error corrected for the
splits' overlapping training rows (Nadeau & Bengio; mllib.comparison.corrected_resampled_t_test), as model.selection
one_se reads it. CPU ratio: the variant's fit CPU over the default's, summed over the splits.

    .venv/bin/python benchmarks/bench_corpus_folds.py [names...] [--keep DIR]
        writes benchmarks/results/corpus_folds.md (files of fewer than 10,000 training rows by default: where
        scikit-learn would stop early no more)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pipeline  # noqa: E402, F401, I001  the stages' numerical environment (one BLAS thread, numba's target) first

import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from datetime import date  # noqa: E402

import numpy as np  # noqa: E402
from bench_pipeline import timed  # noqa: E402
from bench_real_data import project_for  # noqa: E402
from bench_additive_corpus import machine  # noqa: E402
from common import ROOT, r2, roc_auc, write_table  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from interpret_peer import interpret_model  # noqa: E402
from real_data import BY_NAME, CORPUS  # noqa: E402

WIDE = 500  # columns beyond which interpret's matched EBM is not run: it ranks every pair (khan: 2.7 million)
SMALL = 10_000  # training rows below which scikit-learn's HistGradientBoosting does not stop early
STOPPING = {"early stopping, max_iter 500 (default)": dict(early_stopping=True, max_iter=500),
            "no early stopping, max_iter 100": dict(early_stopping=False, max_iter=100)}  # fmt: skip


def featured_project(dataset, root: Path) -> Path:
    """The file's scratch project after `dvc repro features` (reused when its fold matrices are there)."""
    if not (root / "data/features/fold_0.npy").exists():
        root.mkdir(parents=True, exist_ok=True)
        project_for(dataset, root)
        timed(["dvc", "repro", "features"], cwd=root)
    return root


class Folds:
    """A featured project's splits, encoded target and groups, read as the train stage reads them."""

    def __init__(self, project: Path):
        import pandas as pd
        import yaml

        from pipeline.core.task import Target
        from pipeline.steps.folds import splits_of

        self.project = project
        self.params = yaml.safe_load((project / "params.yaml").read_text())
        data = self.params["data"]
        self.target = Target.read(project / "data/processed/target.json")
        self.regression = self.target.task == "regression"
        train = pd.read_parquet(project / "data/processed/train.parquet")
        self.y = self.target.encode(train[data["target"]])
        self.groups = train[data["group"]].to_numpy() if data["group"] else None
        self.splits = list(splits_of(pd.read_parquet(project / "data/processed/folds.parquet")))

    def scores(self, make) -> tuple[np.ndarray, float, list]:
        """(each split's validation score, the fits' CPU seconds, the fitted models) of make(k) on every split."""
        from mllib.base import fit_with_groups

        scores, cpu, models = [], 0.0, []
        for k, (train, valid) in enumerate(self.splits):
            X = np.load(self.project / f"data/features/fold_{k}.npy")
            model, start = make(k, X), time.process_time()
            groups = None if self.groups is None else self.groups[train]  # fitted with them when fit takes them
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit_with_groups(model, X[train], self.y[train], groups)
            cpu += time.process_time() - start
            scores.append(self.score(model, X[valid], self.y[valid]))
            models.append(model)
        return np.array(scores), cpu, models

    def score(self, model, X, y) -> float:
        if self.regression:
            return r2(y, model.predict(X))
        P = model.predict_proba(X)
        return roc_auc(y, P[:, 1] if P.shape[1] == 2 else P)

    def ours(self, which: str, **settings):
        from pipeline.core import build

        name = which + ("_regressor" if self.regression else "")
        return build.model(name, self.params["model"], self.params["seed"], **settings)

    def paired(self, a: np.ndarray, b: np.ndarray) -> str:
        """a - b over the splits: mean (overlap-corrected standard error)."""
        from mllib.comparison import corrected_resampled_t_test

        n_train = np.mean([len(t) for t, _ in self.splits])
        n_valid = np.mean([len(v) for _, v in self.splits])
        t = corrected_resampled_t_test(a, b, n_train, n_valid)
        return f"{t['mean_difference']:+.4f} ({t['standard_error']:.4f})"


def measure(folds: Folds) -> dict:
    gb = {}
    for variant, settings in STOPPING.items():
        runs = {leaves: folds.scores(lambda k, X: folds.ours("gradient_boosting", max_leaf_nodes=leaves, **settings))
                for leaves in (7, 31)}  # fmt: skip
        leaves = max(runs, key=lambda n: runs[n][0].mean())
        gb[variant] = (leaves, *runs[leaves][:2])
    (default_leaves, default, default_cpu), (other_leaves, other, other_cpu) = gb.values()
    additive, _, fitted = folds.scores(lambda k, X: folds.ours("explainable_boosting"))

    def matched(k, X):
        inner = getattr(fitted[k], "regressor_", fitted[k])
        return interpret_model(folds.regression, X.shape[1], inner.get_params())

    wide = np.load(folds.project / "data/features/fold_0.npy", mmap_mode="r").shape[1] > WIDE
    theirs = None if wide else folds.scores(matched)[0]
    return {
        "file": folds.project.name,
        "training rows": len(folds.y),
        "GB default CV (leaves)": f"{default.mean():.4f} ({default_leaves})",
        "GB no early stopping CV (leaves)": f"{other.mean():.4f} ({other_leaves})",
        "no early stopping - default (SE)": folds.paired(other, default),
        "CPU ratio": f"{other_cpu / default_cpu:.2f}",
        "additive CV": f"{additive.mean():.4f}",
        "interpret matched - additive (SE)": "not run (wide)" if theirs is None else folds.paired(theirs, additive),
    }


def main(names: list[str], keep: Path | None) -> None:
    datasets = [BY_NAME[n] for n in names] if names else CORPUS
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for dataset in datasets:
            root = featured_project(dataset, (keep or Path(scratch)) / dataset.name)
            folds = Folds(root)
            if not names and len(folds.y) >= SMALL:
                continue
            rows.append(measure(folds))
            print(rows[-1], flush=True)
    before = (
        "# The default comparison's models on the corpus's cross-validation folds\n\n"
        f"{date.today().isoformat()}, {machine()}; benchmarks/bench_corpus_folds.py (its docstring says how). "
        "Each cell: the mean over the project's 5 splits; a difference: its mean (overlap-corrected standard error). "
        "R^2 for regression targets, ROC AUC (macro one-vs-rest for classes) otherwise.\n\n"
    )
    write_table(rows, "corpus_folds.md", before=before)


if __name__ == "__main__":
    args = sys.argv[1:]
    keep = None
    if "--keep" in args:
        at = args.index("--keep")
        keep = Path(args[at + 1]).resolve()
        args = args[:at] + args[at + 2 :]
    main(args, keep)
