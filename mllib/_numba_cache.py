"""Where numba keeps mllib's compiled kernels: one folder per machine, not one per checkout.

numba's default cache sits in each source folder's __pycache__, so every clone of the project (and every scratch
copy, CI run or `dvc exp` workspace) compiled the kernels again, ~25 s on a first run. Here the cache is
$XDG_CACHE_HOME/mllib/numba (default ~/.cache/mllib/numba; override with MLLIB_NUMBA_CACHE), outside any git or
DVC workspace, with one sub-folder per mllib sub-package. numba checks each kernel's source file by content hash
and its target CPU, so two checkouts with the same source share the compiled code and an edited file compiles
again. NUMBA_CACHE_DIR, when set, still wins; a folder that cannot be written falls back to __pycache__.
"""

from __future__ import annotations

import os
from pathlib import Path

from numba.core.caching import InTreeCacheLocator

PACKAGE = Path(__file__).resolve().parent


def cache_root() -> Path:
    if os.environ.get("MLLIB_NUMBA_CACHE"):
        return Path(os.environ["MLLIB_NUMBA_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mllib" / "numba"


class MachineCacheLocator(InTreeCacheLocator):
    """numba's in-tree locator, moved to cache_root() / <the sub-package's path inside mllib>."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = str(cache_root() / Path(py_file).resolve().parent.relative_to(PACKAGE.parent))

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(PACKAGE):
            return None
        return super().from_function(py_func, py_file)
