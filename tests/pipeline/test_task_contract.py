"""The contract of a task kind (pipeline/core/task_base.py): a kind defined without a member of the contract fails at
once, naming each missing member by role; a kind without a registration of a @per_kind function is named by
`unregistered`. A fourth kind added here is refused until it provides everything, then runs through the report's
dispatch like the three real ones."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import pipeline
from pipeline.core.task import KINDS, Binary, Classification, Regression, Target, unregistered
from pipeline.core.task_base import missing_members


def import_every_module() -> None:
    """Every @per_kind function registers itself when its module is imported (the stages' too: importing one does
    not run it): import them all."""
    for module in pkgutil.walk_packages(pipeline.__path__, "pipeline."):
        importlib.import_module(module.name)


CONTRACT = [name for names in missing_members(Target).values() for name in names]


def toy_members(leave_out: str | None = None) -> dict:
    """Every member of the contract, taken from the regression kind, except `leave_out`."""
    return {name: inspect.getattr_static(Regression, name) for name in CONTRACT if name != leave_out}


@pytest.fixture
def no_toy_left():
    yield
    Target.kinds.pop("toy", None)


def test_the_contract_lists_every_role():
    roles = missing_members(Target)
    assert list(roles) == [
        "the target", "the split", "the models", "the metrics", "the explanations", "fairness", "the gate"
    ]  # fmt: skip
    assert len(CONTRACT) == 35 and "headline_metric" in roles["the metrics"] and "strata" in roles["the split"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_provides_the_contract_and_every_registration(kind):
    import_every_module()
    assert missing_members(KINDS[kind]) == {}
    assert unregistered(KINDS[kind]) == []


def test_an_empty_kind_is_refused_naming_every_member(no_toy_left):
    with pytest.raises(TypeError) as refused:
        type("Toy", (Target,), {}, kind="toy")
    message = str(refused.value)
    assert message.startswith("task kind 'toy' (Toy) does not provide the target: encode, describe,")
    assert all(name in message for name in CONTRACT)
    assert "toy" not in Target.kinds


def test_a_classification_kind_also_provides_what_classification_adds(no_toy_left):
    members = {name: inspect.getattr_static(Binary, name) for name in CONTRACT}
    with pytest.raises(TypeError) as refused:
        type("Toy", (Classification,), members, kind="toy")
    added = missing_members(Classification)["classification"]
    assert str(refused.value).endswith("does not provide classification: " + ", ".join(added))
    assert "metric_probabilities" in added and "ranking_metric" in added


@pytest.mark.parametrize("leave_out", CONTRACT)
def test_a_kind_missing_one_member_is_refused_naming_it(leave_out, no_toy_left):
    with pytest.raises(TypeError, match=rf"does not provide [a-z ]+: {leave_out}$"):
        type("Toy", (Target,), toy_members(leave_out), kind="toy")


def test_a_complete_kind_is_held_to_every_registration_then_runs_through_the_report(no_toy_left):
    from pipeline.reporting.regression_page import RegressionPage
    from pipeline.reporting.task_pages import page

    import_every_module()
    toy = type("Toy", (Target,), toy_members(), kind="toy")
    missing = unregistered(toy)
    # every function that differs by kind and serves any kind (not the classification-only ones) is named
    assert "pipeline.reporting.task_pages.page" in missing
    assert "pipeline.steps.measures.measure" in missing and "pipeline.stages.calibrate.calibrate" in missing
    assert "pipeline.steps.fairness_audit.audit" not in missing  # @per_kind(Classification)
    target = Target("toy", "y", [], "set by data.task")
    assert type(target) is toy
    with pytest.raises(TypeError, match="pipeline.reporting.task_pages.page has no registration for Toy"):
        page(target)
    functions = {name: f for name, f, _ in _per_kind_functions()}
    for i, name in enumerate(missing):
        functions[name].register(toy, functions[name].dispatch(Regression))
        assert unregistered(toy) == missing[i + 1 :]
    assert isinstance(page(target), RegressionPage)


def _per_kind_functions():
    from pipeline.core.dispatch import DISPATCHED

    return DISPATCHED
