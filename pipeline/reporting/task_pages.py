"""Each task kind's report page: the sections, figures and model-card lines that differ by kind. `page(target)`
dispatches on the target's kind like the stages do (a @per_kind function: tests/pipeline/test_task_contract.py holds
every kind to a registration); the kinds, pipeline/core/task.py, own the computations, these their reading."""

from __future__ import annotations

from ..core.task import Binary, Multiclass, Regression, Target, per_kind
from .classification_page import BinaryPage, MulticlassPage
from .regression_page import RegressionPage


@per_kind
def page(target: Target) -> BinaryPage | MulticlassPage | RegressionPage:
    """The report page of the target's kind."""


@page.register
def _binary(target: Binary) -> BinaryPage:
    return BinaryPage()


@page.register
def _multiclass(target: Multiclass) -> MulticlassPage:
    return MulticlassPage()


@page.register
def _regression(target: Regression) -> RegressionPage:
    return RegressionPage()
