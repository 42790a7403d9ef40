"""Stable names for every mllib estimator: params.yaml selects by these names, mllib.io loads only these.

One section per family. A plain family name (decision_tree, random_forest, knn, ...) is the classifier;
regressors carry a `_regressor` suffix where a classifier shares the family (ALGORITHMS.md).
"""
from __future__ import annotations

from .base import ColumnTransformer, Pipeline

# ---- preprocessing and decomposition (features stage) ----
from .preprocessing import OneHotEncoder, SimpleImputer, StandardScaler

_PREPROCESSING = {
    "simple_imputer": SimpleImputer,
    "one_hot_encoder": OneHotEncoder,
    "standard_scaler": StandardScaler,
}

# ---- linear, Bayes, discriminant and neighbour classifiers ----
from .linear import LogisticRegression

_LINEAR_CLASSIFIERS = {
    "logistic_regression": LogisticRegression,
}
_DISCRIMINANT_TRANSFORMERS: dict[str, type] = {}
_NEIGHBOUR_REGRESSORS: dict[str, type] = {}

# ---- regressors (linear family) and unsupervised models ----
_LINEAR_REGRESSORS: dict[str, type] = {}
_CLUSTERERS: dict[str, type] = {}
_UNSUPERVISED_TRANSFORMERS: dict[str, type] = {}

# ---- trees, forests, bagging, AdaBoost ----
_TREE_CLASSIFIERS: dict[str, type] = {}
_TREE_REGRESSORS: dict[str, type] = {}

# ---- gradient boosting ----
_BOOSTING_CLASSIFIERS: dict[str, type] = {}
_BOOSTING_REGRESSORS: dict[str, type] = {}

# ---- kernel machines ----
_KERNEL_CLASSIFIERS: dict[str, type] = {}
_KERNEL_REGRESSORS: dict[str, type] = {}
_KERNEL_TRANSFORMERS: dict[str, type] = {}

# ---- neural networks ----
_NEURAL_CLASSIFIERS: dict[str, type] = {}
_NEURAL_REGRESSORS: dict[str, type] = {}

# ---- calibration maps (1-D score -> probability) ----
from .calibration import NoCalibration, PlattScaling

_CALIBRATION = {
    "platt": PlattScaling,
    "none": NoCalibration,
}

CLASSIFIERS: dict[str, type] = {**_LINEAR_CLASSIFIERS, **_TREE_CLASSIFIERS, **_BOOSTING_CLASSIFIERS,
                                **_KERNEL_CLASSIFIERS, **_NEURAL_CLASSIFIERS}
REGRESSORS: dict[str, type] = {**_LINEAR_REGRESSORS, **_NEIGHBOUR_REGRESSORS, **_TREE_REGRESSORS, **_BOOSTING_REGRESSORS,
                               **_KERNEL_REGRESSORS, **_NEURAL_REGRESSORS}
TRANSFORMERS: dict[str, type] = {**_PREPROCESSING, **_DISCRIMINANT_TRANSFORMERS, **_UNSUPERVISED_TRANSFORMERS,
                                 **_KERNEL_TRANSFORMERS}
CLUSTERERS: dict[str, type] = {**_CLUSTERERS}
CALIBRATORS: dict[str, type] = {**_CALIBRATION}

# Every registered class can be built with no arguments.
REGISTRY: dict[str, type] = {**CLASSIFIERS, **REGRESSORS, **TRANSFORMERS, **CLUSTERERS, **CALIBRATORS}

# Composites need constructor arguments (their steps), so they are loadable but not in REGISTRY.
COMPOSITES: dict[str, type] = {"pipeline": Pipeline, "column_transformer": ColumnTransformer}


def loadable() -> dict[str, type]:
    return {**REGISTRY, **COMPOSITES}


def name_of(cls: type) -> str:
    for name, registered in loadable().items():
        if registered is cls:
            return name
    raise KeyError(f"{cls.__name__} is not registered in mllib.registry; only registered estimators can be saved")


def get(name: str) -> type:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown estimator {name!r}; registered names: {sorted(REGISTRY)}") from None
