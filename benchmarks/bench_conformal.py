"""CV+ intervals: the selection in the K folds' sorted residuals (mllib/conformal/_kernels.py) beside partitioning the
new x training matrix (what predict_interval did before, and still does for jackknife+), side by side in one run.

Both ways take the same order statistics of the same floats; the benchmark checks the bounds are byte-identical and
reports microseconds per new row (both bounds) and their ratio. Residuals are heavy-tailed (t, 4 degrees of
freedom), the fold predictions normal.
Run: .venv/bin/python benchmarks/bench_conformal.py
Results: benchmarks/results/out_of_core.md (ridge at 1M rows)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mllib.conformal import CVPlusRegressor, regression  # noqa: E402 (after the path)

CASES = [  # training rows, folds, new rows timed
    (2_000, 5, 2_000),
    (20_000, 5, 2_000),
    (200_000, 5, 2_000),
    (616_000, 5, 1_000),
    (20_000, 100, 500),
    (500, 500, 200),
]


def per_row(intervals: CVPlusRegressor, P: np.ndarray, selection: bool) -> tuple[float, tuple]:
    with mock.patch.object(regression, "_searches_beat_partition", lambda n, k: selection):
        intervals.predict_interval(P[:2])  # compile, and sort the folds' residuals once
        start = time.perf_counter()
        bounds = intervals.predict_interval(P)
        return (time.perf_counter() - start) / P.shape[0] * 1e6, bounds


def main() -> None:
    rng = np.random.default_rng(0)
    print("| training rows n | folds K | selection (us) | partition (us) | ratio | chosen |")
    print("|---|---|---|---|---|---|")
    for n, K, m in CASES:
        y = rng.normal(size=n)
        intervals = CVPlusRegressor(0.9).fit(y, y + rng.standard_t(4, size=n), np.arange(n) % K)
        P = rng.normal(size=(m, K))
        (fast, a), (slow, b) = per_row(intervals, P, True), per_row(intervals, P, False)
        if any(x.tobytes() != z.tobytes() for x, z in zip(a, b)):
            raise SystemExit(f"n={n}, K={K}: the two ways disagree")
        chosen = "selection" if regression._searches_beat_partition(n, K) else "partition"
        print(f"| {n:,} | {K} | {fast:.1f} | {slow:.1f} | {slow / fast:.1f}x | {chosen} |", flush=True)


if __name__ == "__main__":
    main()
