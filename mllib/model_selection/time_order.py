"""Time-ordered validation: the hold-out is the latest share of time, and cross-validation chains forward.

Rule: a model that will be used on the future is judged on rows from after everything it was fitted on. Random
splits of time-ordered rows break the independence the validation rests on (seed 004, D4:500: "validation and/or
test data not sampled independently from train data"): rows next to each other in time share the period's
conditions, so a random split lets the model recognise the period and flatters the score.

- Hold-out (`time_holdout_indices`): the test set is every row at or after a cut time, chosen among the distinct
  times so that its share of the rows is closest to test_size; no time value is on both sides. Rows within `gap`
  time units before the cut are in neither part, and rows of a group that reappears after the cut leave the
  training part (a person's earlier years would let the model recognise the person).
- Forward chaining (`ForwardChainingSplit`, expanding windows): the rows, in time order, are cut into n_splits + 1
  consecutive blocks of equal size (the first takes the remainder), moved to whole times (all rows of one time in
  one block); split k fits on every row more than `gap` time units before block k + 1's first time and validates on
  block k + 1. With groups, a group validated in split k leaves split k's fitting part. With one row per time and no
  groups the splits equal scikit-learn's TimeSeriesSplit(n_splits, gap) on the rows in time order.

Times are numbers (the pipeline passes dates as days); `gap` is in the same units.

Sections cited:
- Ghent ML notes (seed 004): 3.3 Risks of Data Splitting and IID Assumption Fulfillment (500, 509)"""

from __future__ import annotations

import numpy as np

from mllib.base import (
    OPEN_UNIT,
    BaseEstimator,
    GroupLabels,
    Interval,
    check_array,
    check_int,
    check_value,
    checked_arguments,
)

from ._checks import check_enough, check_no_group_overlap, column

__all__ = ["ForwardChainingSplit", "more_than_gap_before", "time_holdout_indices", "time_values"]


def time_values(time, n: int | None = None) -> np.ndarray:
    """Times as a finite float64 column (raises on a missing or non-numeric time, naming the first)."""
    return check_array(column(time, "time", n), ndim=1, name="time (numbers: dates as days)")


# time units between the last fitting time and the first validation time
GAP = Interval(False, 0, None, "left", "a number of time units >= 0")


def more_than_gap_before(t: np.ndarray, start: float, gap: float) -> np.ndarray:
    """Which times lie strictly more than `gap` before `start` (the rows a split may fit on).

    Parameters
    ----------
    t : ndarray of float64
        The rows' times.
    start : float
        The first validation (or test) time.
    gap : float
        Time units that must separate a fitting time from `start`.

    Returns
    -------
    ndarray of bool
        ``start - t > gap``, where a difference within a few units in the last place of the times counts as equal to
        `gap`: times are read from decimal text, and 10.9 - 3.9 is 7.000000000000001 in binary floating point, so the
        time 3.9 is exactly 7 before 10.9 and stays out with gap 7. Without a gap, plain ``t < start``.
    """
    if gap == 0:
        return t < start
    rounding = 16 * np.finfo(np.float64).eps * max(abs(start), float(np.abs(t).max(initial=0.0)), gap)
    return start - t > gap + rounding


def _purged(train: np.ndarray, valid: np.ndarray, groups: np.ndarray | None) -> np.ndarray:
    """The training rows whose group has no row in the validation part."""
    if groups is None:
        return train
    return train[~np.isin(groups[train], np.unique(groups[valid]))]


@checked_arguments(test_size=OPEN_UNIT, gap=GAP)
def time_holdout_indices(time, test_size: float, gap: float = 0.0, groups=None) -> dict:
    """The latest share of time as the test set: {"train", "test", "in_gap", "purged"} sorted int64 row indices
    (rows within the gap before the cut; training rows left out for a group that reappears in the test part) and
    "cut", the first test time."""
    t = time_values(time)
    distinct, counts = np.unique(t, return_counts=True)
    if distinct.size < 2:
        raise ValueError(f"time has a single value ({distinct[0]:g}): no later period to test on")
    later_share = counts[::-1].cumsum()[::-1] / t.size  # share of rows at or after each distinct time
    j = 1 + int(np.argmin(np.abs(later_share[1:] - test_size)))  # the cut, leaving at least one time before it
    cut = distinct[j]
    test = np.flatnonzero(t >= cut)
    before = np.flatnonzero(t < cut)
    earlier = before[more_than_gap_before(t[before], cut, gap)]
    train = _purged(earlier, test, None if groups is None else column(groups, "groups", t.size))
    return {
        "train": train,
        "test": test,
        "in_gap": np.setdiff1d(before, earlier),
        "purged": np.setdiff1d(earlier, train),
        "cut": float(cut),
    }


class ForwardChainingSplit(BaseEstimator):
    """Expanding-window forward chaining over time: split k fits on the rows before block k + 1 (less the gap) and
    validates on block k + 1, of n_splits + 1 consecutive blocks of whole times.

    Parameters
    ----------
    n_splits : int, default 5
        Number of splits (fewer when the rows hold fewer than n_splits + 1 distinct times, or a time holds so many
        rows that a block is empty: get_n_splits says how many).
    gap : float, default 0
        Time units between the last fitting time and the first validation time (strictly more than gap).
    """

    def __init__(self, n_splits=5, gap=0.0):
        self.n_splits = n_splits
        self.gap = gap

    def _blocks(self, t: np.ndarray) -> np.ndarray:
        """Block id per row, 0..n_splits, constant within a time."""
        k = check_int(self.n_splits, "n_splits", 2)
        n = t.size
        check_enough(n, k + 1, "rows", f"n_splits={k} (forward chaining: k + 1 blocks)")
        size = n // (k + 1)
        order = np.argsort(t, kind="stable")
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n)
        first_block = n - k * size  # the first block takes the remainder, as scikit-learn's TimeSeriesSplit
        by_position = np.maximum(0, (position - first_block) // size + 1)
        # every row of a time takes the block of the time's first row in time order
        distinct, first_row = np.unique(t[order], return_index=True)
        block_of_time = by_position[order][first_row]
        return block_of_time[np.searchsorted(distinct, t)]

    def _pairs(self, t: np.ndarray, groups):
        check_value(type(self).__name__, "gap", self.gap, GAP)
        gap = float(self.gap)
        blocks = self._blocks(t)
        for b in range(1, int(blocks.max()) + 1):
            valid = np.flatnonzero(blocks == b)
            if valid.size == 0:
                continue
            start = t[valid].min()
            train = _purged(np.flatnonzero(more_than_gap_before(t, start, gap)), valid, groups)
            if train.size:
                yield train, valid

    def split(self, X=None, y=None, groups=None, time=None):
        """Yield (train_idx, test_idx) as sorted int64 arrays; time: each row's time (required)."""
        if time is None:
            raise ValueError("ForwardChainingSplit orders rows by time: pass time (each row's time) to split()")
        t = time_values(time)
        groups = None if groups is None else column(groups, "groups", t.size)
        labels = None if groups is None else GroupLabels.of(groups)
        for train, valid in self._pairs(t, groups):
            if labels is not None:
                check_no_group_overlap(train, valid, labels, splitter=type(self).__name__)
            yield train.astype(np.int64), valid.astype(np.int64)

    def get_n_splits(self, X=None, y=None, groups=None, time=None) -> int:
        """The requested n_splits, or with time the splits these rows give."""
        if time is None:
            return int(self.n_splits)
        t = time_values(time)
        return sum(1 for _ in self._pairs(t, None if groups is None else column(groups, "groups", t.size)))
