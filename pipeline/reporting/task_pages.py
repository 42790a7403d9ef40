"""Each task's report page: the sections, figures and model-card lines that differ by task, looked up by the task's
name (`PAGES[target.task]()`); the kinds (pipeline/core/task.py) encode and describe the target, these read the
stages' records."""

from __future__ import annotations

from .classification_page import BinaryPage, MulticlassPage
from .regression_page import RegressionPage

PAGES: dict[str, type[BinaryPage] | type[MulticlassPage] | type[RegressionPage]] = {
    "binary": BinaryPage,
    "multiclass": MulticlassPage,
    "regression": RegressionPage,
}
