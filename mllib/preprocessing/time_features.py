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


def _block_times(block) -> np.ndarray:
    """The distinct times of a block (X, y, sample_weight) of one time column."""
    return np.unique(check_array(block[0])[:, 0])


class TimeFeature(ColumnwiseMixin, BaseEstimator):
    """One time column (numbers: days for dates, or an ordered number such as a year) -> a feature.

    Parameters
    ----------
    kind : {"elapsed", "index"}, default "elapsed"
        "elapsed": t - the first training time (days since it for dates, the number's own unit otherwise).
        "index": the period's index: 0 for the first distinct training time, 1 for the next, ...; a time between two
        training times is interpolated, and a time outside them continues the count by the median step between
        consecutive training times (a month after the last of monthly training times: one more).

    Fitted: origin_ and last_ (the first and the last training time), step_ (the median step between consecutive
    distinct training times; 1 with a single time), times_ (the distinct training times; "index" only, empty for
    "elapsed").
    """

    _constraints = {"kind": Options(KINDS)}

    def __init__(self, kind: str = "elapsed"):
        self.kind = kind

    def fit(self, X, y=None):
        check_hyperparameters(self)
        return self._learn(np.unique(self._one_column(check_array(X))))

    def fit_blocks(self, blocks):
        """fit from rows held in blocks (mllib.base.RowBlocks): the distinct times of every block, merged; the same
        fit as on the rows put together."""
        check_hyperparameters(self)
        return self._learn(np.unique(np.concatenate(blocks.map(_block_times))))

    def _learn(self, times: np.ndarray):
        self.n_features_in_ = 1
        self.origin_, self.last_ = float(times[0]), float(times[-1])
        self.step_ = float(np.median(np.diff(times))) if times.size > 1 else 1.0
        self.times_ = times if self.kind == "index" else np.empty(0)
        return self

    @staticmethod
    def _one_column(X: np.ndarray) -> np.ndarray:
        if X.shape[1] != 1:
            raise ValueError(f"TimeFeature takes one time column, got {X.shape[1]}")
        return X[:, 0]

    def transform(self, X):
        t = self._one_column(check_fitted_X(self, X))
        if self.kind == "elapsed":
            return (t - self.origin_)[:, None]
        positions = np.arange(self.times_.size, dtype=np.float64)
        index = np.interp(t, self.times_, positions)
        before, after = t < self.times_[0], t > self.times_[-1]
        index[before] = (t[before] - self.times_[0]) / self.step_
        index[after] = positions[-1] + (t[after] - self.times_[-1]) / self.step_
        return index[:, None]
