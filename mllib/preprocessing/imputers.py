"""Simple and group-wise imputation: replace missing entries by a per-column statistic of the training rows only.

Seed 004, D4:810-823 (SimpleImputer: mean / median / most frequent / constant; missing indicators), D4:809
("filling missing values with the mean of a specific group"), and the leakage rule D4:567 ("everything computed
from data MUST be refitted for each fold").

Sections cited: Ghent ML notes (seed 004): 3.5 Analysis of Model Performance (567); 5 The Data Pipeline (DP) and
    Ramp-Up Towards Non-Linear Models (809); 5.1 DP: Cleaning (810)"""

from __future__ import annotations

import numpy as np

from ..base import (
    BaseEstimator,
    TransformerMixin,
    check_array,
    check_column_indices,
    check_is_fitted,
    check_n_features,
    is_missing,
)
from ..base.constraints import BOOLEAN, OPTIONAL, InstanceOf, Options, check_hyperparameters, positive_int

STRATEGIES = ("mean", "median", "most_frequent", "constant")


def _most_frequent(values: np.ndarray):
    uniques, counts = np.unique(values, return_counts=True)
    return uniques[np.argmax(counts)]  # ties -> the smallest value, since np.unique sorts


def _statistic(observed: np.ndarray, strategy: str):
    if strategy == "mean":
        return observed.mean()
    if strategy == "median":
        return np.median(observed)
    return _most_frequent(observed)


def _validate_strategy(X, strategy: str) -> np.ndarray:
    """Numeric for mean / median (numbers may arrive in an object array); strings stay object for the others."""
    X = np.asarray(X)
    if strategy in ("mean", "median"):
        return check_array(X, allow_nan=True)
    if X.dtype.kind in "OUS":
        return check_array(X, dtype=object)
    return check_array(X, allow_nan=True)


def _block_missing(block, strategy):
    """(whether each column has a gap in the block, the block's dtype)."""
    X = _validate_strategy(block[0], strategy)
    return is_missing(X).any(axis=0)[None, :], X.dtype


def _observed(block, j, strategy, counted):
    """Column j's observed values in the block (counted: its sorted levels and their counts, or () when none)."""
    X = _validate_strategy(block[0], strategy)
    values = X[~is_missing(X[:, j]), j]
    if counted:
        return np.unique(values, return_counts=True) if values.size else ()
    return values


def observed(values: np.ndarray, what: str) -> np.ndarray:
    """A column's observed values in the rows given to fit: some are needed, a statistic of none is undefined."""
    if values.size == 0:
        raise ValueError(f"{what} has no observed values in the rows given to fit; drop it or use strategy='constant'")
    return values


class MissingIndicatorMixin:
    """add_indicator: append one 0/1 column `<name>_missing` for each column that had missing values at fit time
    (a column complete at fit gets no indicator, even if it has gaps later, so the output width is fixed at fit)."""

    def _fit_indicator(self, missing: np.ndarray) -> None:
        self.indicator_columns_ = np.flatnonzero(missing.any(axis=0)) if self.add_indicator else np.empty(0, dtype=int)

    def _append_indicator(self, filled: np.ndarray, missing: np.ndarray) -> np.ndarray:
        if not self.indicator_columns_.size:
            return filled
        return np.hstack([filled, missing[:, self.indicator_columns_].astype(filled.dtype)])

    def get_feature_names_out(self, input_names):
        check_is_fitted(self)
        names = list(input_names)
        return names + [f"{names[j]}_missing" for j in self.indicator_columns_]


class SimpleImputer(MissingIndicatorMixin, TransformerMixin, BaseEstimator):
    """Fill missing values column by column. Numeric input may contain NaN; object input (categorical columns) may
    contain None or NaN.

    Parameters
    ----------
    strategy : {"mean", "median", "most_frequent", "constant"}, default "mean"
        The column's training mean or median (numeric columns), its most frequent value, or fill_value (any column).
    fill_value : scalar or None, default None
        The value of strategy="constant" (required then).
    add_indicator : bool, default False
        Append one 0/1 column `<name>_missing` for each column that had missing values at fit time.
    """

    _constraints = {
        "strategy": Options(STRATEGIES),
        "fill_value": [OPTIONAL, InstanceOf((str, int, float, np.number), "a number or a string")],
        "add_indicator": BOOLEAN,
    }

    def __init__(self, strategy: str = "mean", fill_value=None, add_indicator: bool = False):
        self.strategy = strategy
        self.fill_value = fill_value
        self.add_indicator = add_indicator

    def fit(self, X, y=None):
        check_hyperparameters(self)
        X = _validate_strategy(X, self.strategy)
        missing = is_missing(X)
        self.n_features_in_ = X.shape[1]
        if self.strategy == "constant":
            statistics = self._constant_statistics()
        else:
            statistics = [
                _statistic(observed(X[~missing[:, j], j], f"column {j}"), self.strategy) for j in range(X.shape[1])
            ]
        self.statistics_ = np.array(statistics, dtype=X.dtype)
        self._fit_indicator(missing)
        return self

    def fit_blocks(self, blocks):
        """fit from rows held in blocks (mllib.base.RowBlocks; a block is (X, y, sample_weight)): which columns have
        gaps, then each column's statistic from every block's observed values: the median and the mean from the
        column's values gathered (one column at a time; the mean equals fit's within rounding), the most frequent
        value from the blocks' merged counts."""
        from .encoders import merged_counts

        check_hyperparameters(self)
        found = blocks.map(_block_missing, self.strategy)
        self.n_features_in_ = found[0][0].size
        missing = np.vstack([gaps for gaps, _ in found])
        dtype = np.result_type(*[kind for _, kind in found])
        if self.strategy == "constant":
            statistics = self._constant_statistics()
        else:
            statistics = []
            for j in range(self.n_features_in_):
                if self.strategy == "most_frequent":
                    levels, counts = merged_counts([c for c in blocks.map(_observed, j, self.strategy, True) if c])
                    statistics.append(observed(levels, f"column {j}")[np.argmax(counts)])
                    continue
                values = observed(np.concatenate(blocks.map(_observed, j, self.strategy, False)), f"column {j}")
                statistics.append(_statistic(values, self.strategy))
        self.statistics_ = np.array(statistics, dtype=dtype)
        self._fit_indicator(missing)
        return self

    def _constant_statistics(self) -> list:
        if self.fill_value is None:
            raise ValueError("SimpleImputer: strategy='constant' needs a fill_value")
        return [self.fill_value] * self.n_features_in_

    def transform(self, X):
        check_is_fitted(self)
        X = _validate_strategy(X, self.strategy)
        check_n_features(self, X)
        missing = is_missing(X)
        filled = np.where(missing, self.statistics_[None, :], X)
        return self._append_indicator(filled, missing)

    def column_outputs(self) -> list[list[int]]:
        """Column j -> its filled column, and its missing indicator if it has one (the fill is a constant per
        column, so each cell depends on its own cell only)."""
        check_is_fitted(self)
        n = self.n_features_in_
        indicator = {int(j): n + k for k, j in enumerate(self.indicator_columns_)}
        return [[j, indicator[j]] if j in indicator else [j] for j in range(n)]


GROUP_STRATEGIES = ("mean", "median", "most_frequent")


def _grouped_statistic(values: np.ndarray, codes: np.ndarray, n_groups: int, strategy: str):
    """The statistic of the observed `values` within each group code 0..n_groups-1, from one sort by (group, value)
    instead of one call per group; `has` is False for groups without a value. Same rules as _statistic (the median
    averages the two middle values; the most frequent value breaks ties towards the smallest)."""
    counts = np.bincount(codes, minlength=n_groups)
    has = counts > 0
    out = np.empty(n_groups, dtype=values.dtype)
    if strategy == "mean":
        out[has] = np.bincount(codes, weights=values, minlength=n_groups)[has] / counts[has]
        return out, has
    uniques, ranks = np.unique(values, return_inverse=True)
    order = np.lexsort((ranks, codes))
    c, r = codes[order], ranks.ravel()[order]
    if strategy == "median":
        v = uniques[r]
        start = np.cumsum(counts) - counts
        out[has] = (v[(start + (counts - 1) // 2)[has]] + v[(start + counts // 2)[has]]) / 2
        return out, has
    # runs of equal (group, value): per group the longest run, the first (smallest value) on ties
    run_start = np.flatnonzero(np.r_[True, (c[1:] != c[:-1]) | (r[1:] != r[:-1])])
    run_len = np.diff(np.r_[run_start, c.size])
    run_c, run_r = c[run_start], r[run_start]
    best = np.lexsort((np.arange(run_c.size), -run_len, run_c))
    first = best[np.r_[True, run_c[best][1:] != run_c[best][:-1]]]
    out[run_c[first]] = uniques[run_r[first]]
    return out, has


class GroupImputer(MissingIndicatorMixin, TransformerMixin, BaseEstimator):
    """Fill a missing entry with the statistic of its column within the row's group (D4:809).

    Fallback: a row whose group was not seen at fit, whose group value is missing, or whose group had no
    observed value in that column at fit gets the column's statistic over all training rows (statistics_).
    The group column itself is passed through; its missing entries get its most frequent training value.

    Parameters
    ----------
    group_column : int or None, default None
        Index of the column whose value names the row's group (numbers or strings), or None for a single group, which
        makes this the SimpleImputer with the same strategy.
    strategy : {"mean", "median", "most_frequent"}, default "mean"
        The statistic (mean and median for numeric value columns).
    add_indicator : bool, default False
        As in SimpleImputer (indicator columns may include the group column).

    Attributes
    ----------
    groups_ : ndarray
        The sorted group values seen at fit.
    group_statistics_ : ndarray of shape (n_groups, n_value_columns)
        The statistic of each value column within each group; value columns are the input columns without the group
        column.
    statistics_ : ndarray of shape (n_value_columns,)
        The statistic of each value column over all training rows.
    group_fill_ : scalar or None
        The group column's most frequent training value, which fills its missing entries (None without a group
        column).
    """

    _constraints = {
        "group_column": [OPTIONAL, positive_int(0)],  # below the number of columns: at fit
        "strategy": Options(GROUP_STRATEGIES),
        "add_indicator": BOOLEAN,
    }

    def __init__(self, group_column: int | None = None, strategy: str = "mean", add_indicator: bool = False):
        self.group_column = group_column
        self.strategy = strategy
        self.add_indicator = add_indicator

    def _split(self, X):
        """(keys or None, value columns validated for the strategy, missing mask of the full input)."""
        check_hyperparameters(self)
        X = check_array(X, dtype=None, allow_nan=True)
        g = self.group_column
        if g is None:
            return None, _validate_strategy(X, self.strategy), is_missing(X)
        check_column_indices(g, X.shape[1], "group_column")
        keys = X[:, g].astype(object) if X.dtype.kind in "US" else X[:, g]
        absent = is_missing(keys)
        if keys.dtype.kind == "O" and all(isinstance(v, (int, float, np.number)) for v in keys[~absent].tolist()):
            keys = np.where(absent, np.nan, keys).astype(np.float64)  # numeric codes in an object array: numbers
        return keys, _validate_strategy(np.delete(X, g, axis=1), self.strategy), is_missing(X)

    def _group_index(self, keys: np.ndarray) -> np.ndarray:
        """Row -> position in groups_, or len(groups_) (the global statistics) for unseen / missing groups."""
        n_groups = len(self.groups_)
        idx = np.full(keys.shape[0], n_groups)
        if not n_groups:
            return idx
        observed = np.flatnonzero(~is_missing(keys))
        pos = np.searchsorted(self.groups_, keys[observed])
        clipped = np.minimum(pos, n_groups - 1)
        found = (pos < n_groups) & (self.groups_[clipped] == keys[observed])
        idx[observed[found]] = clipped[found]
        return idx

    def fit(self, X, y=None):
        keys, values, missing = self._split(X)
        g = self.group_column
        self.n_features_in_ = missing.shape[1]
        value_missing = missing if g is None else np.delete(missing, g, axis=1)
        statistics = [
            _statistic(observed(values[~value_missing[:, j], j], f"value column {j}"), self.strategy)
            for j in range(values.shape[1])
        ]
        self.statistics_ = np.array(statistics, dtype=values.dtype)
        if g is None:
            self.groups_ = np.empty(0)
            self.group_fill_ = None
        else:
            seen = observed(keys[~missing[:, g]], f"group column {g}")
            self.groups_ = np.unique(seen)
            self.group_fill_ = _most_frequent(seen)
        table = np.tile(self.statistics_, (len(self.groups_), 1))
        if g is not None:
            idx = self._group_index(keys)
            for j in range(values.shape[1]):
                rows = ~value_missing[:, j] & (idx < len(self.groups_))
                stats, has = _grouped_statistic(values[rows, j], idx[rows], len(self.groups_), self.strategy)
                table[has, j] = stats[has]
        self.group_statistics_ = table
        self._fit_indicator(missing)
        return self

    def transform(self, X):
        check_is_fitted(self)
        keys, values, missing = self._split(X)
        check_n_features(self, missing)
        g = self.group_column
        if g is None:
            return self._append_indicator(np.where(missing, self.statistics_[None, :], values), missing)
        table = np.vstack([self.group_statistics_, self.statistics_[None, :]])  # last row: unseen or missing group
        filled = np.where(np.delete(missing, g, axis=1), table[self._group_index(keys)], values)
        keys = np.where(missing[:, g], self.group_fill_, keys)
        filled = np.insert(filled.astype(np.result_type(filled.dtype, keys.dtype)), g, keys, axis=1)
        return self._append_indicator(filled, missing)
