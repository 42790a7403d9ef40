"""StratifiedGroupKFold beside scikit-learn's StratifiedGroupKFold(shuffle=True), same seed, in one run (issue 3).

Two sets of problems: (a) 200 random grouped problems (8-60 groups of log-normal sizes, 2-4 imbalanced classes,
group-specific class mixes, 3-5 folds; tests/mllib/model_selection/grouped_problems.py, as in its tests), one
seed each; (b) the default data, data/raw/randhie.csv.gz with target binexp (positive 1) grouped by person zper,
k = 5, seeds 0..199. Per problem and library: the largest class-proportion deviation over folds and classes
(mllib.model_selection.fold_balance) and the fold-size deviation max_f |n_f - n/k| / (n/k). "worse" counts the
seeds where ours deviates more than scikit-learn's. Times are the whole fold assignment (split included), summed;
the order of the two libraries alternates per seed.
Run: .venv/bin/python benchmarks/bench_splitters.py
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from common import ROOT, write_table
from sklearn.model_selection import StratifiedGroupKFold as SkStratifiedGroupKFold

from mllib.model_selection import StratifiedGroupKFold, fold_assignment, fold_balance
from tests.mllib.model_selection.grouped_problems import make_problem

N_SEEDS = 200
RESULTS = "splitters.md"


def default_problem():
    data = pd.read_csv(ROOT / "data" / "raw" / "randhie.csv.gz", usecols=["binexp", "zper"])
    return (data["binexp"].to_numpy() == 1).astype(np.int64), data["zper"].to_numpy()


def measure(splitter, y, groups) -> tuple[float, float, float]:
    """(largest class-proportion deviation, fold-size deviation relative to n/k, seconds)."""
    start = time.perf_counter()
    fold = fold_assignment(splitter, y=y, groups=groups)
    seconds = time.perf_counter() - start
    balance = fold_balance(y, groups, fold)
    assert balance["n_groups_in_several_folds"] == 0
    sizes = np.bincount(fold)
    target = y.size / sizes.size
    return balance["max_abs_deviation"], float(np.abs(sizes - target).max() / target), seconds


def _significant(value) -> float:
    return float(f"{value:.3g}")


def compare(name: str, problems) -> dict:
    """problems: iterable of (seed, y, groups, k)."""
    ours, theirs = [], []
    for seed, y, groups, k in problems:
        pair = {
            "mllib": StratifiedGroupKFold(k, shuffle=True, random_state=seed),
            "sklearn": SkStratifiedGroupKFold(k, shuffle=True, random_state=seed),
        }
        order = ["mllib", "sklearn"] if seed % 2 == 0 else ["sklearn", "mllib"]
        result = {lib: measure(pair[lib], y, groups) for lib in order}
        ours.append(result["mllib"])
        theirs.append(result["sklearn"])
    a, b = np.array(ours), np.array(theirs)
    row = {"problems": name, "seeds": len(a)}
    for stat, column in (("dev", 0), ("size_dev", 1)):
        for reduce in ("mean", "max"):
            for lib, values in (("mllib", a), ("sklearn", b)):
                row[f"{stat}_{reduce}_{lib}"] = _significant(getattr(values[:, column], reduce)())
    row.update(
        {
            "seeds_worse": int((a[:, 0] > b[:, 0] + 1e-12).sum()),
            "seeds_better": int((a[:, 0] < b[:, 0] - 1e-12).sum()),
            "s_mllib": round(float(a[:, 2].sum()), 2),
            "s_sklearn": round(float(b[:, 2].sum()), 2),
            "time_ratio": round(float(a[:, 2].sum() / b[:, 2].sum()), 2),
        }
    )
    print(row, flush=True)
    return row


def main():
    y, groups = default_problem()
    rows = [
        compare("random (recipe of test_stratified_group.py)", ((s, *make_problem(s)) for s in range(N_SEEDS))),
        compare("randhie binexp by zper, k=5", ((s, y, groups, 5) for s in range(N_SEEDS))),
    ]
    notes = [
        "",
        "- dev: largest |class proportion in a fold - overall proportion| over folds and classes (lower is better); "
        "size_dev: max over folds of |fold rows - n/k| / (n/k).",
        "- seeds_worse / seeds_better: seeds where mllib's dev is above / below scikit-learn's (ties are neither).",
        f"- randhie: {y.size} person-years, {np.unique(groups).size} persons (zper), P(binexp = 1) = {y.mean():.4f}.",
        "- Times: the whole fold assignment summed over the seeds, both libraries in one process, order alternating "
        "per seed (machine shared with other jobs: the ratio is the figure to compare).",
    ]
    write_table(rows, RESULTS, after="\n".join(notes) + "\n")


if __name__ == "__main__":
    main()
