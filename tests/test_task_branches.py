"""What differs by task lives in the task kinds (pipeline/core/task.py: Binary, Multiclass; task_regression.py:
Regression) and the report's task pages: the stages and steps ask the target (a method, or a function registered per
kind with functools.singledispatch) instead of testing its name. This counts the branches on the task's name that are
left elsewhere under pipeline/: an `if`, a conditional expression, a comprehension filter, a `match` or a lookup in a
literal table whose test (or key) names a
task ("binary", "multiclass", "regression", "classification"), reads a `.task` / `.regression` attribute or a
`["task"]` key, or a variable named after a task."""

from __future__ import annotations

import ast

from conftest import REPO

TASK_NAMES = {"binary", "multiclass", "regression", "classification"}
TASK_ATTRIBUTES = {"task", "regression", "is_regression", "is_binary", "is_multiclass"}
# the task modules: the kinds, and the inference of data.task from the target's values
TASK_MODULES = {
    REPO / "pipeline" / "core" / name for name in ("task.py", "task_base.py", "task_regression.py", "task_inference.py")
}
BUDGET = 5  # issue 28: at most five outside the task module


def names_a_task(test: ast.AST) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Constant) and node.value in TASK_NAMES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in TASK_ATTRIBUTES:
            return True
        if isinstance(node, ast.Name) and node.id in TASK_NAMES | TASK_ATTRIBUTES:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "task":
            return True
    return False


def task_branches(source: str) -> list[tuple[int, str]]:
    """(line, test) of every branch on the task's name in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            tests = [node.test]
        elif isinstance(node, ast.comprehension):
            tests = node.ifs
        elif isinstance(node, ast.Match):
            tests = [node.subject]
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict):
            tests = [node.slice]  # {"binary": a, "regression": b}[target.task]: a branch written as a table
        else:
            tests = []
        found += [(t.lineno, ast.unparse(t)) for t in tests if names_a_task(t)]
    return found


def test_the_counter_finds_each_way_of_branching_on_the_task():
    source = """
if target.task == "binary": pass
x = a if test["task"] == "regression" else b
y = [c for c in cs if target.regression]
binary = P.shape[1] == 2
if binary: pass
match task:
    case "multiclass": pass
if model.fitted: pass
z = {"binary": a, "regression": b}[target.task]
w = {"a": 1}[key]
"""
    assert sorted(line for line, _ in task_branches(source)) == [2, 3, 4, 6, 7, 10]


def test_at_most_five_branches_on_the_task_outside_the_task_modules():
    found = [
        f"{path.relative_to(REPO)}:{line}: {test}"
        for path in sorted((REPO / "pipeline").rglob("*.py"))
        if path not in TASK_MODULES
        for line, test in task_branches(path.read_text())
    ]
    assert len(found) <= BUDGET, "branches on the task's name outside the task modules:\n" + "\n".join(found)
