"""What a task kind is (pipeline/core/task_base.py): an abstract base class whose abstract members, what encodes and
describes the target and its defaults, every kind implements; abc refuses to instantiate a kind missing one. What a
step does differently by task is looked up by the task's name in a table beside it: every table covers every task
(a table of what only classification does, every classification task), and a fourth kind is named by each table
that lacks it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import pipeline
from pipeline.core.task import KINDS, Binary, Classification, Regression, Target

MEMBERS = sorted(Target.__abstractmethods__)  # what every kind implements
CLASSIFICATION = sorted(Classification.__abstractmethods__ - Target.__abstractmethods__)  # what classification adds
TASK_NAMES = {"binary", "multiclass", "regression", "toy"}


def tables() -> dict[str, dict]:
    """{module.NAME: table} of every table by task under pipeline/: an upper-case constant defined in its module (not
    imported), a dict whose keys are task names."""
    found = {}
    for info in pkgutil.walk_packages(pipeline.__path__, "pipeline."):
        module = importlib.import_module(info.name)
        source = inspect.getsource(module)
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, dict) and value and set(value) <= TASK_NAMES:
                if value is not Target.kinds and re.search(rf"^{name}\b[^\n]*=", source, re.MULTILINE):
                    found[f"{info.name}.{name}"] = value
    return found


def lacking(task: str) -> list[str]:
    """The tables by task that serve every kind (not what only classification does) and have no entry for `task`."""
    return sorted(name for name, table in tables().items() if "regression" in table and task not in table)


def toy_members(base: type, leave_out: str | None = None) -> dict:
    """Every abstract member of `base`, taken from a kind that implements it, except `leave_out`."""
    source = Binary if issubclass(base, Classification) else Regression
    return {name: inspect.getattr_static(source, name) for name in base.__abstractmethods__ if name != leave_out}


@pytest.fixture
def no_toy_left():
    yield
    Target.kinds.pop("toy", None)


def test_a_kind_encodes_and_describes_the_target_and_holds_its_defaults():
    assert MEMBERS == sorted([
        "calibration_record", "check_fits", "class_counts", "classifies", "counts", "default_models", "describe",
        "distribution", "encode", "estimators", "fairness_record", "from_values", "headline_metric", "response",
        "shares", "split_strategy", "strata", "test_metrics", "test_record",
    ])  # fmt: skip
    assert CLASSIFICATION == ["calibration_view", "metric_probabilities", "ranking_metric"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_implements_every_abstract_member(kind):
    assert KINDS[kind].__abstractmethods__ == frozenset()
    classes = [] if kind == "regression" else ["a", "b", "c"][: 2 if kind == "binary" else 3]
    assert type(Target(kind, "y", classes, "set by data.task")) is KINDS[kind]


@pytest.mark.parametrize("leave_out", MEMBERS)
def test_a_kind_missing_one_member_cannot_be_instantiated(leave_out, no_toy_left):
    type("Toy", (Target,), toy_members(Target, leave_out), kind="toy")
    with pytest.raises(TypeError, match=f"Can't instantiate abstract class Toy with abstract method {leave_out}$"):
        Target("toy", "y", [], "set by data.task")


@pytest.mark.parametrize("leave_out", CLASSIFICATION)
def test_a_classification_kind_missing_what_classification_adds_cannot_be_instantiated(leave_out, no_toy_left):
    type("Toy", (Classification,), toy_members(Classification, leave_out), kind="toy")
    with pytest.raises(TypeError, match=f"Can't instantiate abstract class Toy with abstract method {leave_out}$"):
        Target("toy", "y", ["a", "b"], "set by data.task")


def test_every_table_by_task_covers_every_task():
    classifying = {task for task, kind in KINDS.items() if kind.classifies}
    found = tables()
    assert {name: sorted(table) for name, table in found.items() if set(table) not in (set(KINDS), classifying)} == {}
    # the wording, the gate's checks, the page and the stages' and steps' own work by task are all found
    for name in (
        "pipeline.reporting.task_pages.PAGES",
        "pipeline.reporting.headline.QUALITY_FIGURES",
        "pipeline.tracking.promotion.QUALITY_CHECKS",
        "pipeline.steps.explanations.EXPLAINED",
        "pipeline.stages.calibrate.CALIBRATE",
        "pipeline.steps.evaluation.SCORES",
        "pipeline.steps.fairness_audit.AUDIT",
    ):
        assert name in found


def test_a_complete_new_kind_is_instantiated_and_named_by_every_table_that_lacks_it(no_toy_left):
    toy = type("Toy", (Target,), toy_members(Target), kind="toy")
    target = Target("toy", "y", [], "set by data.task")
    assert type(target) is toy and target.describe() == "regression target"
    missing = lacking("toy")
    assert "pipeline.reporting.task_pages.PAGES" in missing and "pipeline.stages.calibrate.CALIBRATE" in missing
    assert "pipeline.steps.fairness_audit.AUDIT" not in missing  # what only classification does
    assert lacking("regression") == []
