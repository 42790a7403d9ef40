"""Build mllib objects from params.yaml names: the feature transformer, the classifier, the CV splitter."""
from __future__ import annotations

from mllib import registry
from mllib.base import ColumnTransformer, Pipeline
from mllib.model_selection import GroupKFold, KFold, StratifiedGroupKFold, StratifiedKFold
from mllib.preprocessing import OneHotEncoder, SimpleImputer, StandardScaler

SPLITTERS = {
    "kfold": KFold,
    "stratified": StratifiedKFold,
    "group": GroupKFold,
    "stratified_group": StratifiedGroupKFold,
}


def feature_transformer(cfg: dict, n_numeric: int, n_categorical: int) -> ColumnTransformer:
    """Numeric: impute (+ missing indicators), scale. Categorical: impute, one-hot. Columns: numeric first."""
    numeric_steps = [("impute", SimpleImputer(strategy=cfg["numeric_imputer"], add_indicator=cfg["missing_indicators"]))]
    if cfg["scaler"] == "standard":
        numeric_steps.append(("scale", StandardScaler()))
    categorical_steps = [
        ("impute", SimpleImputer(strategy=cfg["categorical_imputer"])),
        ("encode", OneHotEncoder(handle_unknown=cfg["handle_unknown"])),
    ]
    return ColumnTransformer([
        ("numeric", Pipeline(numeric_steps), list(range(n_numeric))),
        ("categorical", Pipeline(categorical_steps), list(range(n_numeric, n_numeric + n_categorical))),
    ])


def classifier(model_cfg: dict, **searched):
    return registry.get(model_cfg["name"])(**{**model_cfg["params"], **searched})


def splitter(split_cfg: dict, seed: int):
    return SPLITTERS[split_cfg["strategy"]](n_splits=split_cfg["n_splits"], shuffle=split_cfg["shuffle"], random_state=seed)
