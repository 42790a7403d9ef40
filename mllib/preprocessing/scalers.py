"""Standardisation: x -> (x - mean) / std with mean and std learned on the training rows only.

Seed 002, lines 1085-1103 (centring and scaling make regularisation strengths comparable across features);
seed 004, D4:502 (fitting the scaler on all data instead of the training data is the canonical leakage).
The standard deviation is the population one (divisor N); a constant column keeps scale 1.
"""
from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, TransformerMixin, check_array, check_is_fitted, check_n_features, check_sample_weight


class StandardScaler(TransformerMixin, BaseEstimator):
    def __init__(self, with_mean: bool = True, with_std: bool = True):
        self.with_mean = with_mean
        self.with_std = with_std

    def fit(self, X, y=None, sample_weight=None):
        X = check_array(X)
        w = check_sample_weight(sample_weight, X.shape[0])
        self.n_features_in_ = X.shape[1]
        self.mean_ = np.average(X, axis=0, weights=w)
        self.var_ = np.average((X - self.mean_) ** 2, axis=0, weights=w)
        std = np.sqrt(self.var_)
        # a constant column would divide by zero; leave it centred but unscaled
        self.scale_ = np.where(std > 10 * np.finfo(float).eps * np.maximum(np.abs(self.mean_), 1.0), std, 1.0)
        return self

    def transform(self, X):
        check_is_fitted(self)
        X = check_array(X)
        check_n_features(self, X)
        if self.with_mean:
            X = X - self.mean_
        if self.with_std:
            X = X / self.scale_
        return X

    def inverse_transform(self, Z):
        check_is_fitted(self)
        Z = check_array(Z, name="Z")
        check_n_features(self, Z)
        if self.with_std:
            Z = Z * self.scale_
        if self.with_mean:
            Z = Z + self.mean_
        return Z
