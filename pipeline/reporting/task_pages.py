"""Each task's report page: the sections, figures and model-card lines that differ by task, found by the task's
name in the stage files (the stages' Target kinds, pipeline/core/task.py, own the computations; these their
reading)."""

from __future__ import annotations

from .classification_page import BinaryPage, MulticlassPage
from .regression_page import RegressionPage

PAGES = {"binary": BinaryPage(), "multiclass": MulticlassPage(), "regression": RegressionPage()}


def page_of(task: str) -> BinaryPage | MulticlassPage | RegressionPage:
    return PAGES[task]
