"""Partitioned or in memory is chosen once per run (pipeline/core/partitions.py: `data_mode(params)` gives InMemory
or OnParts), and a stage whose work differs by it registers one function per mode (functools.singledispatch) instead
of testing it (issue 44): every such function has a registration for both modes."""

from __future__ import annotations


def test_both_modes_register_every_function_that_differs_by_mode():
    import importlib
    import pkgutil

    import pipeline
    from pipeline.core.dispatch import DISPATCHED, unregistered
    from pipeline.core.partitions import InMemory, Mode, OnParts

    for module in pkgutil.walk_packages(pipeline.__path__, "pipeline."):
        importlib.import_module(module.name)
    per_mode = [name for name, _, base in DISPATCHED if base is Mode]
    assert len(per_mode) == 6, per_mode  # validate, clean, split, features, train, evaluate's test outputs
    assert unregistered(InMemory) == [] and unregistered(OnParts) == []

    class Elsewhere(Mode):
        pass

    assert sorted(unregistered(Elsewhere)) == sorted(per_mode)
