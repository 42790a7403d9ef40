"""Partitioned or in memory is chosen once per run (pipeline/core/partitions.py: `data_mode(params)` gives InMemory
or OnParts), and a stage whose work differs by it registers one function per mode (functools.singledispatch) instead
of testing it (issue 44). This counts the branches on the mode left outside the modules where the rows are
(pipeline/core/partitions.py, pipeline/steps/feature_blocks.py): an `if`, a conditional expression, a comprehension
filter, a `while` or a `match` whose test calls `partitioned` / `data_mode`, asks whether a table of pipeline/core/
paths.py is a directory, checks an object against a mode or a block type, asks `hasattr(x, "map")`, or reads a
variable named after the mode. Before this (2026-11-29) there were 11, in 8 files; the two left are
pipeline/core/build.fit_features' (the features fitted from blocks, or from a matrix)."""

from __future__ import annotations

import ast

from conftest import REPO
from test_task_branches import branch_tests

PARTITION_MODULES = {REPO / "pipeline" / "core" / "partitions.py", REPO / "pipeline" / "steps" / "feature_blocks.py"}
MODE_CALLS = {"partitioned", "partitioned_split", "data_mode"}
MODE_TYPES = {"InMemory", "OnParts", "Blocks", "RowBlocks", "ClusterBlocks", "BlockFolds"}
MODE_NAMES = {"partitioned", "from_blocks", "on_parts", "in_memory"}
BUDGET = 2  # issue 44: at most two outside the partition modules


def asks_the_mode(test: ast.AST) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in MODE_CALLS:
                return True
            if name == "is_dir" and isinstance(f, ast.Attribute) and ast.unparse(f.value).startswith("paths."):
                return True
            if name == "isinstance" and len(node.args) == 2:
                kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
                if any(ast.unparse(k).split(".")[-1] in MODE_TYPES for k in kinds):
                    return True
            if name == "hasattr" and len(node.args) == 2 and ast.unparse(node.args[1]) == "'map'":
                return True  # the duck-typed block test (a model's fit_blocks is a capability, not the mode)
        if isinstance(node, ast.Name) and node.id in MODE_NAMES:
            return True
    return False


def mode_branches(source: str) -> list[tuple[int, str]]:
    """(line, test) of every branch on the mode in `source`."""
    return [(t.lineno, ast.unparse(t)) for t in branch_tests(source) if asks_the_mode(t)]


def test_the_counter_finds_each_way_of_asking_the_mode():
    source = """
if partitioned(data, compute): pass
if paths.VALIDATED.is_dir(): pass
x = a if isinstance(X_fit, Blocks) else b
from_blocks = hasattr(X_fit, "map")
if from_blocks: pass
y = [r for r in rows if isinstance(r, (np.ndarray, OnParts))]
if path.is_dir(): pass
if hasattr(model, "fit_blocks"): pass
if hasattr(X, "map"): pass
if target.classifies: pass
"""
    assert sorted(line for line, _ in mode_branches(source)) == [2, 3, 4, 6, 7, 10]


def test_at_most_two_branches_on_the_mode_outside_the_partition_modules():
    found = [
        f"{path.relative_to(REPO)}:{line}: {test}"
        for path in sorted((REPO / "pipeline").rglob("*.py"))
        if path not in PARTITION_MODULES
        for line, test in mode_branches(path.read_text())
    ]
    assert len(found) <= BUDGET, "branches on the data's mode outside the partition modules:\n" + "\n".join(found)


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
