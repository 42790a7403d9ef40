"""split.check_feasible: a request the training rows cannot satisfy stops the stage with a message naming the key."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.errors import PipelineError
from pipeline.stages.split import check_feasible

DATA = {"target": "binexp", "group": "zper"}


def cfg(strategy="stratified_group", n_splits=5):
    return {"strategy": strategy, "n_splits": n_splits, "test_size": 0.2, "shuffle": True}


def test_fewer_groups_than_folds():
    y = np.array([0, 1] * 10)
    groups = np.repeat([10, 20, 30, 40], 5)  # 4 groups
    with pytest.raises(PipelineError) as info:
        check_feasible(y, groups, cfg("group", 5), DATA)
    message = str(info.value)
    assert "data.group" in message and "'zper'" in message and "split.n_splits" in message
    assert "4 groups" in message and "5" in message


def test_exactly_as_many_groups_as_folds_is_fine():
    y = np.array([0, 1] * 10)
    check_feasible(y, np.repeat([1, 2, 3, 4, 5], 4), cfg("group", 5), DATA)


@pytest.mark.parametrize("strategy", ["stratified", "stratified_group"])
def test_smallest_class_smaller_than_folds(strategy):
    y = np.array([1] * 30 + [0] * 3)
    groups = np.arange(33) if strategy == "stratified_group" else None
    with pytest.raises(PipelineError) as info:
        check_feasible(y, groups, cfg(strategy, 4), DATA)
    message = str(info.value)
    assert "split.n_splits" in message and "'binexp'" in message and " 3 " in message


def test_class_without_any_row_counts_as_zero():
    with pytest.raises(PipelineError, match="split.n_splits"):
        check_feasible(np.ones(20, dtype=np.int64), None, cfg("stratified", 2), DATA)


def test_unstratified_strategies_ignore_class_counts():
    y = np.array([1] * 30 + [0] * 1)
    check_feasible(y, None, cfg("kfold", 5), DATA)
    check_feasible(y, np.arange(31) % 6, cfg("group", 5), DATA)


def test_smallest_class_equal_to_folds_is_fine():
    check_feasible(np.array([1] * 20 + [0] * 5), None, cfg("stratified", 5), DATA)
