"""mllib: the project's own machine-learning library, written from the lecture notes (numpy + scipy only).

numba compiles its kernels once per machine (mllib/_numba_cache.py): the locator is named here because numba
reads the setting when it is first imported, which mllib's kernel modules do after this file has run.
"""

import os

__version__ = "0.1.0"

os.environ.setdefault(
    "NUMBA_CACHE_LOCATOR_CLASSES",
    "UserProvidedCacheLocator,mllib._numba_cache.MachineCacheLocator,InTreeCacheLocator,UserWideCacheLocator",
)
