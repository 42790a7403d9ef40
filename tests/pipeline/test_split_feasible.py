"""pipeline.steps.folds.check_feasible (the split stage's checks): a request the training rows cannot satisfy stops the
stage with a message naming the key."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.core.errors import PipelineError
from pipeline.core.task import Target
from pipeline.steps.folds import check_feasible

DATA = {"target": "binexp", "group": "zper"}
BINARY = Target(task="binary", column="binexp", classes=[0, 1], reason="two classes")
THREE = Target(task="multiclass", column="grade", classes=["a", "b", "c"], reason="3 classes")


def check(y, groups, cfg, target=BINARY):
    check_feasible(np.asarray(y), groups, target, cfg, cfg["strategy"], DATA)


def cfg(strategy="stratified_group", n_splits=5):
    return {"strategy": strategy, "n_splits": n_splits, "test_size": 0.2, "shuffle": True}


def test_fewer_groups_than_folds():
    y = np.array([0, 1] * 10)
    groups = np.repeat([0, 1, 2, 3], 5)  # 4 groups, as codes
    with pytest.raises(PipelineError) as info:
        check(y, groups, cfg("group", 5))
    message = str(info.value)
    assert "data.group" in message and "'zper'" in message and "split.n_splits" in message
    assert "4 groups" in message and "5" in message


def test_exactly_as_many_groups_as_folds_is_fine():
    y = np.array([0, 1] * 10)
    check(y, np.repeat([1, 2, 3, 4, 5], 4), cfg("group", 5))


@pytest.mark.parametrize("strategy", ["stratified", "stratified_group"])
def test_smallest_class_smaller_than_folds(strategy):
    y = np.array([1] * 30 + [0] * 3)
    groups = np.arange(33) if strategy == "stratified_group" else None
    with pytest.raises(PipelineError) as info:
        check(y, groups, cfg(strategy, 4))
    message = str(info.value)
    assert "split.n_splits" in message and "'binexp'" in message and " 3 " in message


def test_class_without_any_row_counts_as_zero():
    with pytest.raises(PipelineError, match="split.n_splits"):
        check(np.ones(20, dtype=np.int64), None, cfg("stratified", 2))


@pytest.mark.parametrize("strategy", ["kfold", "group"])
def test_every_kfold_strategy_needs_each_class_in_every_fold(strategy):
    y = np.array([1] * 30 + [0] * 1)
    with pytest.raises(PipelineError, match="class 0 .* 1 training rows, fewer than split.n_splits = 5"):
        check(y, np.arange(31) % 6 if strategy == "group" else None, cfg(strategy, 5))


def test_multiclass_names_the_small_class():
    y = np.array([0] * 20 + [1] * 20 + [2] * 2)
    with pytest.raises(PipelineError, match="class 'c' of data.target 'binexp' has 2 training rows"):
        check(y, None, cfg("stratified", 3), THREE)
    check(y, None, cfg("stratified", 2), THREE)


def test_leave_out_and_shuffle_strategies_need_only_each_class_present():
    check(np.array([1] * 30 + [0] * 1), None, cfg("shuffle", 5))
    with pytest.raises(PipelineError, match="class 'c' .* no training rows"):
        check(np.array([0] * 20 + [1] * 20), None, cfg("bootstrap", 5), THREE)


def test_smallest_class_equal_to_folds_is_fine():
    check(np.array([1] * 20 + [0] * 5), None, cfg("stratified", 5))


def test_a_dominant_group_makes_the_test_fraction_a_warning():
    """One group holding 65% of the rows: whole groups move together, so a 0.2 hold-out can hold 71% of the rows;
    the run and the card say so with the achieved share, instead of a split.json that says test_size 0.2."""
    import numpy as np

    from pipeline.steps.folds import test_fraction_note

    groups = np.r_[np.zeros(650, dtype=np.int64), np.arange(1, 351)]  # group codes
    note = test_fraction_note(0.71, 0.2, "firm", groups)
    assert "71.0% of the rows" in note and "asks for 20.0%" in note and "largest firm holds 65.0%" in note
    assert test_fraction_note(0.23, 0.2, "firm", groups) is None  # within 0.05 of the asked share
    assert "largest" not in test_fraction_note(0.4, 0.2, None, None)
