"""Simple imputation: replace missing entries by a per-column statistic learned on the training rows only.

Seed 004, D4:810-823 (SimpleImputer: mean / median / most frequent / constant; missing indicators) and the
leakage rule D4:567 ("everything computed from data MUST be refitted for each fold").
"""
from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, TransformerMixin, check_array, check_is_fitted, check_n_features, is_missing

STRATEGIES = ("mean", "median", "most_frequent", "constant")


def _most_frequent(values: np.ndarray):
    uniques, counts = np.unique(values, return_counts=True)
    return uniques[np.argmax(counts)]  # ties -> the smallest value, since np.unique sorts


class SimpleImputer(TransformerMixin, BaseEstimator):
    """Fill missing values column by column.

    strategy: "mean" | "median" (numeric columns) | "most_frequent" | "constant" (any column, uses fill_value).
    add_indicator: append one 0/1 column `<name>_missing` for each column that had missing values at fit time.
    Numeric input may contain NaN; object input (categorical columns) may contain None or NaN.
    """

    def __init__(self, strategy: str = "mean", fill_value=None, add_indicator: bool = False):
        self.strategy = strategy
        self.fill_value = fill_value
        self.add_indicator = add_indicator

    def _validate(self, X):
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {self.strategy!r}")
        X = np.asarray(X)
        if self.strategy in ("mean", "median"):
            return check_array(X, allow_nan=True)  # numeric columns may arrive in an object array
        if X.dtype.kind in "OUS":
            return check_array(X, dtype=object)
        return check_array(X, allow_nan=True)

    def fit(self, X, y=None):
        X = self._validate(X)
        missing = is_missing(X)
        self.n_features_in_ = X.shape[1]
        if self.strategy == "constant":
            if self.fill_value is None:
                raise ValueError("strategy='constant' needs a fill_value")
            statistics = [self.fill_value] * X.shape[1]
        else:
            statistics = []
            for j in range(X.shape[1]):
                observed = X[~missing[:, j], j]
                if observed.size == 0:
                    raise ValueError(
                        f"column {j} has no observed values in the rows given to fit; drop it or use strategy='constant'"
                    )
                if self.strategy == "mean":
                    statistics.append(observed.mean())
                elif self.strategy == "median":
                    statistics.append(np.median(observed))
                else:
                    statistics.append(_most_frequent(observed))
        self.statistics_ = np.array(statistics, dtype=X.dtype)
        self.indicator_columns_ = np.flatnonzero(missing.any(axis=0)) if self.add_indicator else np.empty(0, dtype=int)
        return self

    def transform(self, X):
        check_is_fitted(self)
        X = self._validate(X)
        check_n_features(self, X)
        missing = is_missing(X)
        filled = np.where(missing, self.statistics_[None, :], X)
        if not self.indicator_columns_.size:
            return filled
        indicators = missing[:, self.indicator_columns_].astype(filled.dtype)
        return np.hstack([filled, indicators])

    def get_feature_names_out(self, input_names):
        check_is_fitted(self)
        names = list(input_names)
        return names + [f"{names[j]}_missing" for j in self.indicator_columns_]
