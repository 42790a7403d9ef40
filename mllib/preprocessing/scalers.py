"""Scalers: x -> (x - centre) / scale with centre and scale learned on the training rows only.

Seed 002, lines 1085-1103 (centring and scaling make regularisation strengths comparable across features);
seed 004, D4:502 (fitting the scaler on all data instead of the training data is the canonical leakage) and
D4:847 (scalers). Standard: mean and population std (divisor N). Min-max: the training range mapped onto
feature_range. Robust: median and inter-quantile range, insensitive to a few outliers (D4:827).
A constant column (zero spread, up to rounding) keeps scale 1 in every scaler, so nothing divides by zero.

Sections cited: Ghent ML notes (seed 004): 3.3 Risks of Data Splitting and IID Assumption Fulfillment (502); 5.1 DP:
    Cleaning (827, 847)"""

from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, ColumnwiseMixin, check_array, check_fitted_X, check_sample_weight, summed
from ..base.constraints import BOOLEAN, FINITE, IncreasingPair, Interval, check_hyperparameters


def _nonzero_scale(spread: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """spread, or 1 where it is zero up to rounding relative to the column's magnitude."""
    return np.where(spread > 10 * np.finfo(float).eps * np.maximum(np.abs(centre), 1.0), spread, 1.0)


def _weighted_column_sums(block):
    X = check_array(block[0])
    w = check_sample_weight(block[2], X.shape[0])
    return w.sum(), w @ X


def _weighted_squared_deviations(block, mean):
    X = check_array(block[0])
    return check_sample_weight(block[2], X.shape[0]) @ (X - mean) ** 2


class StandardScaler(ColumnwiseMixin, BaseEstimator):
    """x -> (x - mean) / std with the training rows' (weighted) mean and population standard deviation (divisor N).

    Parameters
    ----------
    with_mean : bool, default True
        Subtract the mean (False: scale only).
    with_std : bool, default True
        Divide by the standard deviation (False: centre only).

    Attributes
    ----------
    mean_ : ndarray
        The training rows' (weighted) mean of each column.
    var_ : ndarray
        Their (weighted) population variance of each column (divisor N).
    scale_ : ndarray
        The standard deviation sqrt(var_); 1 for a constant column.
    """

    _constraints = {"with_mean": BOOLEAN, "with_std": BOOLEAN}

    def __init__(self, with_mean: bool = True, with_std: bool = True):
        self.with_mean = with_mean
        self.with_std = with_std

    def fit(self, X, y=None, sample_weight=None):
        check_hyperparameters(self)
        X = check_array(X)
        w = check_sample_weight(sample_weight, X.shape[0])
        self.n_features_in_ = X.shape[1]
        self.mean_ = np.average(X, axis=0, weights=w)
        self.var_ = np.average((X - self.mean_) ** 2, axis=0, weights=w)
        # a constant column would divide by zero; leave it centred but unscaled
        self.scale_ = _nonzero_scale(np.sqrt(self.var_), self.mean_)
        return self

    def fit_blocks(self, blocks):
        """fit from rows held in blocks (mllib.base.RowBlocks; a block is (X, y, sample_weight or None)): two passes,
        the weighted means from the blocks' sums, then the weighted squared deviations from them (fit's two-pass
        variance; equal to fit's within rounding)."""
        check_hyperparameters(self)
        total, sums = summed(blocks.map(_weighted_column_sums))
        self.mean_ = sums / total
        self.var_ = summed(blocks.map(_weighted_squared_deviations, self.mean_)) / total
        self.n_features_in_ = self.mean_.size
        self.scale_ = _nonzero_scale(np.sqrt(self.var_), self.mean_)
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        if self.with_mean:
            X = X - self.mean_
        if self.with_std:
            X = X / self.scale_
        return X

    def inverse_transform(self, Z):
        Z = check_fitted_X(self, Z, name="Z")
        if self.with_std:
            Z = Z * self.scale_
        if self.with_mean:
            Z = Z + self.mean_
        return Z


class MinMaxScaler(ColumnwiseMixin, BaseEstimator):
    """x -> lo + (x - min) (hi - lo) / (max - min); training rows land in [lo, hi], new rows may fall outside. As an
    affine map: x * scale_ + min_. A constant column maps to lo.

    Parameters
    ----------
    feature_range : tuple (lo, hi), default (0.0, 1.0)
        The interval the training range is mapped onto.
    """

    _constraints = {"feature_range": IncreasingPair(FINITE)}

    def __init__(self, feature_range: tuple = (0.0, 1.0)):
        self.feature_range = feature_range

    def fit(self, X, y=None):
        check_hyperparameters(self)
        lo, hi = (float(v) for v in self.feature_range)
        X = check_array(X)
        self.n_features_in_ = X.shape[1]
        self.data_min_ = X.min(axis=0)
        self.data_max_ = X.max(axis=0)
        self.data_range_ = self.data_max_ - self.data_min_
        self.scale_ = (hi - lo) / _nonzero_scale(self.data_range_, self.data_max_)
        self.min_ = lo - self.data_min_ * self.scale_
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        return X * self.scale_ + self.min_

    def inverse_transform(self, Z):
        Z = check_fitted_X(self, Z, name="Z")
        return (Z - self.min_) / self.scale_


class RobustScaler(ColumnwiseMixin, BaseEstimator):
    """x -> (x - median) / (q_hi - q_lo), the quantiles taken with linear interpolation between order statistics. A
    column whose quantiles coincide (e.g. a binary column that is mostly 0) keeps scale 1.

    Parameters
    ----------
    with_centering : bool, default True
        Subtract the median.
    with_scaling : bool, default True
        Divide by the inter-quantile range.
    quantile_range : tuple (q_lo, q_hi), default (25.0, 75.0)
        Percentiles of the range; (25, 75) is the interquartile range.
    """

    _constraints = {
        "with_centering": BOOLEAN,
        "with_scaling": BOOLEAN,
        "quantile_range": IncreasingPair(Interval(False, 0, 100)),  # percentiles
    }

    def __init__(self, with_centering: bool = True, with_scaling: bool = True, quantile_range: tuple = (25.0, 75.0)):
        self.with_centering = with_centering
        self.with_scaling = with_scaling
        self.quantile_range = quantile_range

    def fit(self, X, y=None):
        check_hyperparameters(self)
        q_lo, q_hi = (float(v) for v in self.quantile_range)
        X = check_array(X)
        self.n_features_in_ = X.shape[1]
        self.center_ = np.median(X, axis=0)
        lo, hi = np.percentile(X, [q_lo, q_hi], axis=0)
        self.scale_ = _nonzero_scale(hi - lo, self.center_)
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        if self.with_centering:
            X = X - self.center_
        if self.with_scaling:
            X = X / self.scale_
        return X

    def inverse_transform(self, Z):
        Z = check_fitted_X(self, Z, name="Z")
        if self.with_scaling:
            Z = Z * self.scale_
        if self.with_centering:
            Z = Z + self.center_
        return Z
