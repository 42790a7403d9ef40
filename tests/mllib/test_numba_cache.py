"""numba compiles mllib's kernels once per machine: the cache sits outside the checkout, so a second copy of the
package at another path loads the compiled code instead of compiling again (mllib/_numba_cache.py)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import mllib

RUN = """
import numpy as np
from mllib.model_selection._greedy import greedy_folds
greedy_folds(np.ones((4, 2, 1)), np.ones(4), np.full(2, 2.0), np.arange(4))
print(len(greedy_folds.stats.cache_hits), len(greedy_folds.stats.cache_misses))
"""


def _run(checkout: Path, cache: Path) -> tuple[int, int]:
    env = {**os.environ, "MLLIB_NUMBA_CACHE": str(cache), "PYTHONPATH": str(checkout)}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", RUN], cwd=checkout, env=env, capture_output=True, text=True, check=True)
    hits, misses = map(int, out.stdout.split())
    return hits, misses


def test_a_second_checkout_loads_the_kernels_the_first_compiled(tmp_path):
    package = Path(mllib.__file__).parent
    first, second, cache = tmp_path / "first", tmp_path / "second", tmp_path / "cache"
    for checkout in (first, second):
        shutil.copytree(package, checkout / "mllib", ignore=shutil.ignore_patterns("__pycache__"))
    assert _run(first, cache) == (0, 1)  # compiled, and written to the machine's cache
    assert list((cache / "mllib" / "model_selection").glob("_greedy.greedy_folds-*.nbc"))
    assert _run(second, cache) == (1, 0)  # another path: loaded, not compiled
    (second / "mllib/model_selection/_greedy.py").write_text(
        (second / "mllib/model_selection/_greedy.py").read_text() + "\n# edited\n"
    )
    assert _run(second, cache) == (0, 1)  # an edited source compiles again
