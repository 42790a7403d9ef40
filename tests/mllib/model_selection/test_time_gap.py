"""The gap of time-ordered splits is "strictly more than gap" in the times as written (issue 62, item 11): with times
3.9 and 10.9 and gap 7, 10.9 - 7 is 3.9000000000000004 in binary floating point, so `t < start - gap` let the time
exactly 7 before the first validation time into the fitting part."""

from __future__ import annotations

import numpy as np

from mllib.model_selection import ForwardChainingSplit, more_than_gap_before, time_holdout_indices

TIMES = np.array([1.0, 3.9, 5.0, 8.0, 10.9, 12.0])


def test_forward_chaining_leaves_out_a_time_exactly_gap_before():
    splits = list(ForwardChainingSplit(n_splits=2, gap=7).split(time=TIMES))
    fit, valid = splits[-1]
    assert TIMES[valid].min() == 10.9
    assert TIMES[fit].tolist() == [1.0]  # 3.9 is 7 before 10.9: not more than the gap


def test_time_holdout_puts_a_time_exactly_gap_before_the_cut_in_the_gap():
    held = time_holdout_indices(TIMES[[0, 1, 2, 4, 5]], test_size=0.4, gap=7)
    assert held["cut"] == 10.9
    assert held["train"].tolist() == [0]
    assert held["in_gap"].tolist() == [1, 2]


def test_more_than_gap_before_is_strict_and_keeps_what_is_further():
    t = np.array([3.8, 3.9, 3.9000001, 10.9])
    assert more_than_gap_before(t, 10.9, 7).tolist() == [True, False, False, False]
    assert more_than_gap_before(t, 10.9, 0).tolist() == [True, True, True, False]


def test_dates_as_days_keep_whole_days():
    start = 19_723.0  # 2024-01-01 in days since 1970
    t = start - np.array([7.0, 7.5, 6.5, 8.0])
    assert more_than_gap_before(t, start, 7).tolist() == [False, True, False, True]
