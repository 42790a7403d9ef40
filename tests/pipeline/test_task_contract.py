"""What a task kind is (pipeline/core/task_base.py): an abstract base class whose abstract members every kind
implements; abc refuses to instantiate a kind missing one, naming it. A kind without a registration of a @per_kind
function is named by `unregistered`."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import pipeline
from pipeline.core.task import KINDS, Binary, Classification, Regression, Target, unregistered

MEMBERS = sorted(Target.__abstractmethods__)  # what every kind implements
CLASSIFICATION = sorted(Classification.__abstractmethods__ - Target.__abstractmethods__)  # what classification adds


def import_every_module() -> None:
    """Every @per_kind function registers itself when its module is imported (the stages' too: importing one does
    not run it): import them all."""
    for module in pkgutil.walk_packages(pipeline.__path__, "pipeline."):
        importlib.import_module(module.name)


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
def test_every_kind_implements_every_abstract_member_and_registration(kind):
    import_every_module()
    assert KINDS[kind].__abstractmethods__ == frozenset()
    assert isinstance(Target(kind, "y", [0, 1, 2][: 0 if kind == "regression" else 2], ""), KINDS[kind])
    assert unregistered(KINDS[kind]) == []


@pytest.mark.parametrize("leave_out", MEMBERS)
def test_a_kind_missing_one_member_cannot_be_instantiated(leave_out, no_toy_left):
    type("Toy", (Target,), toy_members(Target, leave_out), kind="toy")
    with pytest.raises(TypeError, match=f"Can't instantiate abstract class Toy with abstract method {leave_out}$"):
        Target("toy", "y", [], "set by data.task")


@pytest.mark.parametrize("leave_out", CLASSIFICATION)
def test_a_classification_kind_missing_what_classification_adds_cannot_be_instantiated(leave_out, no_toy_left):
    type("Toy", (Classification,), toy_members(Classification, leave_out), kind="toy")
    with pytest.raises(TypeError, match=f"abstract method {leave_out}$"):
        Target("toy", "y", [0, 1], "set by data.task")


def test_a_complete_kind_is_instantiated(no_toy_left):
    toy = type("Toy", (Target,), toy_members(Target), kind="toy")
    target = Target("toy", "y", [], "set by data.task")
    assert type(target) is toy and target.describe() == "regression target"
