"""Nested CV never lets an outer validation row into an inner fit: a recording model notes the row ids (column 0) of
every fit; over random group layouts (hypothesis), no fit made while handling an outer split contains that split's
validation rows, inner folds never split a group, and the outer score comes from the outer validation rows only."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mllib.baseline import PriorClassifier
from mllib.model_selection import GridSearch, GroupKFold, StratifiedGroupKFold, nested_cv

FITS: list[np.ndarray] = []


class RecordingPrior(PriorClassifier):
    def __init__(self, shrink=0.0):
        self.shrink = shrink

    def fit(self, X, y, sample_weight=None):
        FITS.append(np.asarray(X)[:, 0].astype(int))
        return super().fit(X, y)


@settings(max_examples=25, deadline=None)
@given(n_groups=st.integers(8, 30), seed=st.integers(0, 10_000), outer_k=st.integers(2, 4), inner_k=st.integers(2, 3))
def test_outer_validation_rows_never_reach_an_inner_fit(n_groups, seed, outer_k, inner_k):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, size=n_groups)
    groups = np.repeat(rng.permutation(n_groups), sizes)
    n = groups.size
    y = np.tile([0, 1], n)[:n]
    X = np.column_stack([np.arange(n), rng.normal(size=n)])
    outer = list(GroupKFold(outer_k, shuffle=True, random_state=seed).split(X, y, groups))
    search = GridSearch(RecordingPrior(), {"shrink": [0.0, 1.0]}, cv=GroupKFold(inner_k), scoring="accuracy")
    for fit_rows, valid_rows in outer:
        FITS.clear()
        result = nested_cv(search, X, y, [(fit_rows, valid_rows)], groups)
        assert len(FITS) == 2 * inner_k + 1  # every candidate on every inner fold, then the refit
        held_out = set(valid_rows.tolist())
        for rows in FITS:
            assert not held_out & set(rows.tolist())
        np.testing.assert_array_equal(np.sort(FITS[-1]), fit_rows)  # the refit: the whole outer training part
        majority = np.bincount(y[fit_rows]).argmax()
        assert result["outer_scores"][0] == np.mean(y[valid_rows] == majority)


def test_inner_folds_keep_groups_whole():
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(20), 3)
    y = np.tile([0, 1, 1], 20)
    X = np.column_stack([np.arange(60), rng.normal(size=60)])
    outer = list(GroupKFold(3).split(X, y, groups))
    search = GridSearch(
        RecordingPrior(),
        {"shrink": [0.0]},
        cv=StratifiedGroupKFold(2, shuffle=True, random_state=0),
        scoring="accuracy",
    )
    FITS.clear()
    nested_cv(search, X, y, outer, groups)
    for rows in FITS:
        fitted = set(groups[rows].tolist())
        assert all(np.isin(np.flatnonzero(np.isin(groups, list(fitted))), rows)), "a group was split by an inner fold"
