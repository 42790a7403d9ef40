"""The time of a row as a model feature: time since the first training time, or the index of its period among the
training times, fitted on the training rows only (seed 004, D4:567: "everything computed from data MUST be
refitted for each fold"), so a fold's feature never knows the times it is validated on.

A later time than any training time (every test row of a time-ordered hold-out, every row a deployed model scores)
gets a value beyond the training values: the feature states how far beyond, and the model decides what that means
(a tree keeps the last training period's level, a linear model extends the trend).

Sections cited: Ghent ML notes (seed 004): 3.5 Analysis of Model Performance (567)"""

from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, ColumnwiseMixin, check_array, check_fitted_X
from ..base.constraints import Options, check_hyperparameters

KINDS = ("elapsed", "index")


def _block_times(block) -> list[np.ndarray]:
    """Each column's distinct times in a block (X, y, sample_weight)."""
    X = check_array(block[0])
    return [np.unique(X[:, j]) for j in range(X.shape[1])]


class TimeFeature(ColumnwiseMixin, BaseEstimator):
    """Time columns (numbers: days for dates, or an ordered number such as a year) -> features, column by column.

    Parameters
    ----------
    kind : {"elapsed", "index"}, default "elapsed"
        "elapsed": t - the first training time (days since it for dates, the number's own unit otherwise).
        "index": the period's index: 0 for the first distinct training time, 1 for the next, ...; a time between two
        training times is interpolated, and a time outside them continues the count by the median step between
        consecutive training times (a month after the last of monthly training times: one more).

    Attributes
    ----------
    origin_ : ndarray
        Per column, the first training time.
    last_ : ndarray
        Per column, the last training time.
    step_ : ndarray
        Per column, the median step between consecutive distinct training times; 1 with a single time.
    times_ : list of ndarray
        Per column, the distinct training times ("index" only; an empty list for "elapsed").
    """

    _constraints = {"kind": Options(KINDS)}

    def __init__(self, kind: str = "elapsed"):
        self.kind = kind

    def fit(self, X, y=None):
        check_hyperparameters(self)
        X = check_array(X)
        return self._learn([np.unique(X[:, j]) for j in range(X.shape[1])])

    def fit_blocks(self, blocks):
        """fit from rows held in blocks (mllib.base.RowBlocks): the distinct times of every block, merged; the same
        fit as on the rows put together."""
        check_hyperparameters(self)
        found = blocks.map(_block_times)
        return self._learn([np.unique(np.concatenate(column)) for column in zip(*found)])

    def _learn(self, times: list[np.ndarray]):
        self.n_features_in_ = len(times)
        self.origin_ = np.array([t[0] for t in times])
        self.last_ = np.array([t[-1] for t in times])
        self.step_ = np.array([np.median(np.diff(t)) if t.size > 1 else 1.0 for t in times])
        self.times_ = list(times) if self.kind == "index" else []
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        if self.kind == "elapsed":
            return X - self.origin_
        return np.column_stack([self._index(X[:, j], j) for j in range(X.shape[1])])

    def _index(self, t: np.ndarray, j: int) -> np.ndarray:
        times, step = self.times_[j], self.step_[j]
        positions = np.arange(times.size, dtype=np.float64)
        index = np.interp(t, times, positions)
        before, after = t < times[0], t > times[-1]
        index[before] = (t[before] - times[0]) / step
        index[after] = positions[-1] + (t[after] - times[-1]) / step
        return index
