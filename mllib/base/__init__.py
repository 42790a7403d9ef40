"""Estimator protocol, input validation and composites shared by every mllib family."""
from .compose import ColumnTransformer, Pipeline
from .estimator import (
    BaseEstimator,
    ClassifierMixin,
    ClusterMixin,
    NotFittedError,
    RegressorMixin,
    TransformerMixin,
    check_fitted_X,
    check_is_fitted,
    clone,
    fit_with_groups,
    is_fitted,
    takes_groups,
)
from .validation import (
    check_1d,
    check_array,
    check_binary_labels,
    check_groups,
    check_int,
    check_n_features,
    check_probabilities,
    check_random_state,
    check_sample_weight,
    check_scores,
    check_X_y,
    is_missing,
    safe_divide,
    to_python,
)

__all__ = [
    "BaseEstimator", "ClassifierMixin", "RegressorMixin", "ClusterMixin", "TransformerMixin", "NotFittedError", "Pipeline", "ColumnTransformer",
    "check_array", "check_X_y", "check_sample_weight", "check_n_features", "check_random_state",
    "check_is_fitted", "check_fitted_X", "check_int", "clone", "is_fitted", "is_missing", "check_1d",
    "check_binary_labels", "safe_divide", "to_python", "check_scores", "check_probabilities", "check_groups",
    "fit_with_groups", "takes_groups",
]
