"""Stable names for every mllib estimator: params.yaml selects by these names, mllib.io loads only these."""
from __future__ import annotations

from .base import ColumnTransformer, Pipeline
from .calibration import NoCalibration, PlattScaling
from .linear import LogisticRegression
from .preprocessing import OneHotEncoder, SimpleImputer, StandardScaler

CLASSIFIERS: dict[str, type] = {
    "logistic_regression": LogisticRegression,
}
TRANSFORMERS: dict[str, type] = {
    "simple_imputer": SimpleImputer,
    "one_hot_encoder": OneHotEncoder,
    "standard_scaler": StandardScaler,
}
CALIBRATORS: dict[str, type] = {
    "platt": PlattScaling,
    "none": NoCalibration,
}

# Every registered class can be built with no arguments.
REGISTRY: dict[str, type] = {**CLASSIFIERS, **TRANSFORMERS, **CALIBRATORS}

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
