"""Transformers fitted on training rows only: imputation, encoding, scaling, whitening and feature maps."""

from .encoders import OneHotEncoder, OrdinalEncoder
from .feature_maps import PiecewiseFeatures, PolynomialFeatures, RBFFeatures
from .imputers import GroupImputer, SimpleImputer
from .knn_imputer import KNNImputer
from .scalers import MinMaxScaler, RobustScaler, StandardScaler
from .whitening import CholeskyWhitening

__all__ = [
    "OneHotEncoder",
    "OrdinalEncoder",
    "SimpleImputer",
    "GroupImputer",
    "KNNImputer",
    "StandardScaler",
    "MinMaxScaler",
    "RobustScaler",
    "CholeskyWhitening",
    "PolynomialFeatures",
    "RBFFeatures",
    "PiecewiseFeatures",
]
