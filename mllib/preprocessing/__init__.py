"""Transformers fitted on training rows only: imputation, encoding, scaling, whitening, feature maps and the time as
a feature (each class loads its module on first use: mllib/_lazy.py)."""

from .._lazy import lazy_namespace

__getattr__, __dir__, __all__ = lazy_namespace(
    __name__,
    {
        "encoders": ["OneHotEncoder", "OrdinalEncoder"],
        "feature_maps": ["PiecewiseFeatures", "PolynomialFeatures", "RBFFeatures"],
        "imputers": ["GroupImputer", "SimpleImputer"],
        "knn_imputer": ["KNNImputer"],
        "scalers": ["MinMaxScaler", "RobustScaler", "StandardScaler"],
        "time_features": ["TimeFeature"],
        "whitening": ["CholeskyWhitening"],
    },
)
