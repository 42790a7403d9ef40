"""TimeFeature: a time column as time since the first training time, or as the index of its period among the
training times, continued beyond them by the median step; fitted on the training rows (or their blocks) only."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.base import RowBlocks
from mllib.preprocessing import TimeFeature

MONTHS = np.array([0.0, 31, 59, 90, 120, 151])  # days since 2000-01-01 of January to June 2000


def test_elapsed_is_the_time_since_the_first_training_time():
    feature = TimeFeature("elapsed").fit(MONTHS[:, None] + 10957)
    assert feature.transform(np.array([[10957.0], [11200.0]])).ravel().tolist() == [0.0, 243.0]
    assert feature.origin_.tolist() == [10957.0] and feature.last_.tolist() == [10957.0 + 151]


def test_index_counts_the_training_periods_and_continues_by_the_median_step():
    feature = TimeFeature("index").fit(np.repeat(MONTHS, 3)[:, None])  # three rows per month
    assert feature.step_.tolist() == [31.0]
    index = feature.transform(np.array([[0.0], [59.0], [151.0], [151.0 + 31], [151.0 + 62], [-31.0], [45.0]])).ravel()
    assert index.tolist() == pytest.approx([0, 2, 5, 6, 7, -1, 1.5])  # between January and March: interpolated


def test_a_single_training_time_steps_by_one_unit():
    feature = TimeFeature("index").fit(np.full((4, 1), 2003.0))
    assert feature.transform(np.array([[2005.0]])).ravel().tolist() == [2.0]


def test_fitted_from_blocks_as_from_the_rows_put_together():
    X = np.repeat(MONTHS, 2)[:, None]
    blocks = RowBlocks([(X[:5], None, None), (X[5:], None, None)])
    for kind in ("elapsed", "index"):
        whole, parts = TimeFeature(kind).fit(X), TimeFeature(kind).fit_blocks(blocks)
        Z = np.array([[-5.0], [70.0], [400.0]])
        assert parts.transform(Z).tolist() == whole.transform(Z).tolist()


def test_a_missing_time_is_refused():
    with pytest.raises(ValueError):
        TimeFeature().fit(np.array([[1.0], [np.nan]]))
