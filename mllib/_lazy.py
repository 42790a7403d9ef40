"""Package namespaces whose classes load on first use: `from mllib.linear import LogisticRegression` imports the
logistic module and what it needs, not the perceptron's numba kernels; a stage pays only for what it runs."""

from __future__ import annotations

import sys
from importlib import import_module


def lazy_namespace(package: str, exports: dict[str, list[str]]):
    """(__getattr__, __dir__, __all__) for the package __init__ `package`, exporting {submodule: [names]}."""
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str):
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{where[name]}"), name)
        setattr(sys.modules[package], name, value)  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(where)

    return __getattr__, __dir__, sorted(where)
