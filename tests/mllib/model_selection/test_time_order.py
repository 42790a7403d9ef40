"""Time-ordered validation (mllib/model_selection/time_order.py): forward chaining equals scikit-learn's
TimeSeriesSplit where both apply (one row per time, no groups), and in general every split fits on rows strictly more
than `gap` before its first validation time, keeps each group on one side and validates blocks of whole times; the
hold-out is the latest share of time with no time on both sides."""

import numpy as np
import pytest
from sklearn.model_selection import TimeSeriesSplit

from mllib.model_selection import ForwardChainingSplit, time_holdout_indices


@pytest.mark.parametrize("n, k, gap", [(100, 5, 0), (103, 4, 3), (20, 3, 1), (7, 6, 0), (50, 2, 10)])
def test_equals_time_series_split_with_one_row_per_time(n, k, gap):
    ours = list(ForwardChainingSplit(k, gap).split(time=np.arange(n)))
    theirs = list(TimeSeriesSplit(n_splits=k, gap=gap).split(np.zeros((n, 1))))
    assert len(ours) == len(theirs)
    for (fit, valid), (fit_sk, valid_sk) in zip(ours, theirs):
        np.testing.assert_array_equal(fit, fit_sk)
        np.testing.assert_array_equal(valid, valid_sk)


def test_rows_out_of_order_give_the_splits_of_their_times():
    rng = np.random.default_rng(0)
    t = rng.permutation(60).astype(float)
    for fit, valid in ForwardChainingSplit(4, 2).split(time=t):
        assert t[fit].max() < t[valid].min() - 2
        assert np.array_equal(np.sort(t[valid]), np.arange(t[valid].min(), t[valid].max() + 1))  # one block


@pytest.mark.parametrize("gap", [0.0, 1.0, 2.5])
def test_ties_groups_and_gap(gap):
    rng = np.random.default_rng(1)
    t = rng.integers(0, 40, 500).astype(float)  # many rows per time
    groups = rng.integers(0, 60, 500)
    splits = list(ForwardChainingSplit(5, gap).split(time=t, groups=groups))
    assert len(splits) >= 4
    for fit, valid in splits:
        assert t[fit].max() < t[valid].min() - gap  # every fitting time more than gap before every validation time
        assert not set(groups[fit]) & set(groups[valid])  # a validated group left the fitting part
        inside = (t >= t[valid].min()) & (t <= t[valid].max())
        assert set(np.flatnonzero(inside)) == set(valid)  # whole times: no time split between blocks
    firsts = [t[valid].min() for _, valid in splits]
    assert firsts == sorted(firsts)  # expanding: later splits validate later blocks


def test_few_distinct_times_give_fewer_splits():
    years = np.repeat([2001, 2002, 2003, 2004], [242, 252, 252, 252])
    splitter = ForwardChainingSplit(5)
    splits = list(splitter.split(time=years))
    assert splitter.get_n_splits(time=years) == len(splits) == 3
    assert [np.unique(years[v]).tolist() for _, v in splits] == [[2002], [2003], [2004]]
    assert [np.unique(years[f]).tolist() for f, _ in splits][-1] == [2001, 2002, 2003]


def test_holdout_is_the_latest_share_of_time():
    years = np.repeat([2001, 2002, 2003, 2004, 2005], [242, 252, 252, 252, 252])
    held = time_holdout_indices(years, 0.2)
    assert held["cut"] == 2005 and set(years[held["test"]]) == {2005}
    assert years[held["train"]].max() == 2004 and held["train"].size + held["test"].size == years.size
    days = np.arange(1000.0)
    held = time_holdout_indices(days, 0.25, gap=10)
    assert held["test"].size == 250 and days[held["test"]].min() == 750
    assert held["in_gap"].size == 10 and days[held["train"]].max() == 739  # 740..749 within the gap


def test_holdout_leaves_out_the_earlier_rows_of_groups_seen_later():
    t = np.array([1, 1, 2, 2, 3, 3, 4, 4], dtype=float)
    groups = np.array(["a", "b", "a", "c", "d", "e", "a", "f"])
    held = time_holdout_indices(t, 0.25, groups=groups)
    assert set(groups[held["test"]]) == {"a", "f"}
    assert not set(groups[held["train"]]) & {"a", "f"}
    np.testing.assert_array_equal(held["purged"], [0, 2])  # a's rows at times 1 and 2


def test_bad_times_are_refused():
    with pytest.raises(ValueError, match="single value"):
        time_holdout_indices(np.ones(10), 0.2)
    with pytest.raises(ValueError, match="NaN"):
        list(ForwardChainingSplit(2).split(time=np.array([1.0, np.nan, 3.0, 4.0])))
    with pytest.raises(ValueError, match="pass time"):
        list(ForwardChainingSplit(2).split(np.zeros((4, 1))))
    with pytest.raises(ValueError, match="gap"):
        list(ForwardChainingSplit(2, gap=-1).split(time=np.arange(10)))
