"""What differs by task is either the task kind's (pipeline/core/task.py: Binary, Multiclass; task_regression.py:
Regression: what encodes and describes the target, and its defaults) or looked up by the task's name in a table beside
the code that uses it (`EXPLAINED[target.task]`, an upper-case module constant; tests/pipeline/test_task_contract.py
holds every table to every task): the one dispatch mechanism, not counted here. This counts what is left elsewhere
under pipeline/:
- branches: an `if`, a conditional expression, a comprehension filter, a `match` or a lookup in a literal table whose
  test (or key) names a task ("binary", "multiclass", "regression", "classification"), reads a `.task` /
  `.regression` attribute or a `["task"]` key, or a variable named after a task;
- lookups: a subscript, `.get(...)` or `getattr(...)` whose key is the task's name (`KINDS[task]`,
  `cfg["min_headline"][target.task]`, `PAGES.get(r["test"]["task"])`; reading the `"task"` field itself is not one,
  nor a subscript of a table), and a call handed the task's name (`kind_of(test["task"])`, `scorers_for(target.task)`)
  other than the Target's constructor and a record's `task=` field, which turn a name into a kind and a kind into a
  name;
- key tests: `"key" in result` where the key is one that some kinds write and others do not (a binary target's
  Brier decomposition, a regression target's intervals): the kind read from the shape of its files."""

from __future__ import annotations

import ast

from conftest import REPO

TASK_NAMES = {"binary", "multiclass", "regression", "classification"}
TASK_ATTRIBUTES = {"task", "regression", "is_regression", "is_binary", "is_multiclass"}
# the task modules: the kinds, and the inference of data.task from the target's values
TASK_MODULES = {
    REPO / "pipeline" / "core" / name for name in ("task.py", "task_base.py", "task_regression.py", "task_inference.py")
}
BUDGET = 3  # issue 44: at most three branches, lookups and key tests together outside the task modules


def is_table(node: ast.AST) -> bool:
    """A module's table by task (an upper-case constant, `PAGES`): the dispatch mechanism, not a lookup counted.
    KINDS, the task's name turned into its kind, is counted (the Target's constructor does that)."""
    return isinstance(node, ast.Name) and node.id.isupper() and node.id != "KINDS"


def walk(node: ast.AST):
    """ast.walk, without what a lookup in a table by task reads (`EXPLAINED[target.task]`) and without a record's
    `"task"` field given as a dict (`Record.of({"task": target.task, ...})`, as `task=` is)."""
    yield node
    if isinstance(node, ast.Subscript) and is_table(node.value):
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(node, ast.Dict) and child in node.values:
            key = node.keys[node.values.index(child)]
            if isinstance(key, ast.Constant) and key.value == "task":
                continue
        yield from walk(child)


def names_a_task(test: ast.AST) -> bool:
    for node in walk(test):
        if isinstance(node, ast.Constant) and node.value in TASK_NAMES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in TASK_ATTRIBUTES:
            return True
        if isinstance(node, ast.Name) and node.id in TASK_NAMES | TASK_ATTRIBUTES:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "task":
            return True
    return False


def branch_tests(source: str) -> list[ast.AST]:
    """The test of every branch in `source`: an `if`, a conditional expression or a `while`, a comprehension's
    filters, a `match`'s subject, and the key of a lookup in a literal table ({"binary": a, ...}[key])."""
    tests: list[ast.AST] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            tests.append(node.test)
        elif isinstance(node, ast.comprehension):
            tests += node.ifs
        elif isinstance(node, ast.Match):
            tests.append(node.subject)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict):
            tests.append(node.slice)
    return tests


def task_branches(source: str) -> list[tuple[int, str]]:
    """(line, test) of every branch on the task's name in `source`."""
    return [(t.lineno, ast.unparse(t)) for t in branch_tests(source) if names_a_task(t)]


def _reads_the_task_field(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == "task"


def _reads_the_task_name(node: ast.AST) -> bool:
    return any(
        (isinstance(n, ast.Attribute) and n.attr == "task")
        or (isinstance(n, ast.Subscript) and _reads_the_task_field(n.slice))
        or (isinstance(n, ast.Name) and n.id == "task")
        for n in walk(node)
    )


def task_lookups(source: str) -> list[tuple[int, str]]:
    """(line, expression) of every lookup by the task's name in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id == "Target"):
            handed = [*node.args, *(k.value for k in node.keywords if k.arg != "task")]
            if any(_reads_the_task_name(a) for a in handed if not isinstance(a, ast.JoinedStr)):
                found.append((node.lineno, ast.unparse(node)))
                continue
        if isinstance(node, ast.Subscript):
            keys = [] if is_table(node.value) else [node.slice]
        elif isinstance(node, ast.Call) and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == "get")
            or (isinstance(node.func, ast.Name) and node.func.id == "getattr")
        ):
            keys = node.args[:1] if isinstance(node.func, ast.Attribute) else node.args[1:2]
        else:
            keys = []
        found += [(node.lineno, ast.unparse(node)) for k in keys if not _reads_the_task_field(k) and names_a_task(k)]
    return found


def kind_keys() -> set[str]:
    """Result keys some kinds write and others do not: the test metrics not common to every kind, and the sections of
    one kind's files."""
    from pipeline.core.task import KINDS

    metrics = [set(kind.test_metrics) for kind in KINDS.values()]
    sections = {"brier_decomposition", "classwise_ece", "intervals", "conformal", "selective", "residuals"}
    return set.union(*metrics) - set.intersection(*metrics) | sections


def task_key_tests(source: str, keys: set[str]) -> list[tuple[int, str]]:
    """(line, test) of every `"key" in ...` / `not in` in `source` whose key is one of `keys`."""
    return [
        (node.lineno, ast.unparse(node))
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Compare)
        and isinstance(node.ops[0], (ast.In, ast.NotIn))
        and isinstance(node.left, ast.Constant)
        and node.left.value in keys
    ]


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
gaps = [k for k in figures if k.endswith(GAPS[target.task])]
"""
    assert sorted(line for line, _ in task_branches(source)) == [2, 3, 4, 6, 7, 10]


def test_the_counter_finds_each_lookup_and_key_test():
    source = """
kind = KINDS[task]
bound = cfg["min_headline"][target.task]
page = PAGES.get(r["test"]["task"])
wording = getattr(WORDS, target.task)
name = r["test"]["task"]
fields = test.get("task")
value = table[key]
extra = q["brier_decomposition"] if "brier_decomposition" in q else None
regression = "intervals" not in test
recorded = "recorded" in found
kind = kind_of(test["task"])
names = scorers_for(target.task)
target = Target(validation["task"], column, classes, reason)
record = TrainMetrics(task=target.task, model=name)
report = Calibration.of({"task": target.task, "n": n})
print(f"{target.task} target")
wording = EXPLAINED[target.task]
print(f"{PER_CLASS[target.task]}", len(CHECKS[target.task](figures)))
"""
    assert sorted(line for line, _ in task_lookups(source)) == [2, 3, 4, 5, 12, 13]
    assert sorted(line for line, _ in task_key_tests(source, kind_keys())) == [9, 10]


def test_at_most_three_task_branches_lookups_and_key_tests_outside_the_task_modules():
    keys = kind_keys()
    found = [
        f"{path.relative_to(REPO)}:{line}: {test}"
        for path in sorted((REPO / "pipeline").rglob("*.py"))
        if path not in TASK_MODULES
        for count in (task_branches, task_lookups, lambda source: task_key_tests(source, keys))
        for line, test in count(path.read_text())
    ]
    assert len(found) <= BUDGET, "the task's name tested or looked up outside the task modules:\n" + "\n".join(found)
