"""Build mllib objects from params.yaml names: the feature transformer, the classifier, the CV splitter."""
from __future__ import annotations

from mllib import registry
from mllib.base import ColumnTransformer, Pipeline
from mllib.model_selection import (
    Bootstrap,
    GroupBootstrap,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    LeaveOneGroupOut,
    LeaveOneOut,
    RepeatedGroupKFold,
    RepeatedKFold,
    RepeatedStratifiedGroupKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedGroupKFold,
    StratifiedKFold,
)
from mllib.preprocessing import OneHotEncoder, SimpleImputer, StandardScaler

# split.strategy -> (splitter, its repeated form); k-fold strategies honour split.n_repeats
KFOLD_SPLITTERS = {
    "kfold": (KFold, RepeatedKFold),
    "stratified": (StratifiedKFold, RepeatedStratifiedKFold),
    "group": (GroupKFold, RepeatedGroupKFold),
    "stratified_group": (StratifiedGroupKFold, RepeatedStratifiedGroupKFold),
}
LEAVE_OUT_SPLITTERS = {"leave_one_out": LeaveOneOut, "leave_one_group_out": LeaveOneGroupOut}
SHUFFLE_SPLITTERS = {"shuffle": ShuffleSplit, "group_shuffle": GroupShuffleSplit}
BOOTSTRAP_SPLITTERS = {"bootstrap": Bootstrap, "group_bootstrap": GroupBootstrap}
STRATEGIES = [*KFOLD_SPLITTERS, *LEAVE_OUT_SPLITTERS, *SHUFFLE_SPLITTERS, *BOOTSTRAP_SPLITTERS]
GROUPED_STRATEGIES = ["group", "stratified_group", "leave_one_group_out", "group_shuffle", "group_bootstrap"]
STRATIFIED_STRATEGIES = ["stratified", "stratified_group"]


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
    strategy, k = split_cfg["strategy"], split_cfg["n_splits"]
    if strategy in KFOLD_SPLITTERS:
        single, repeated = KFOLD_SPLITTERS[strategy]
        if split_cfg["n_repeats"] == 1:
            return single(n_splits=k, shuffle=split_cfg["shuffle"], random_state=seed)
        return repeated(n_splits=k, n_repeats=split_cfg["n_repeats"], random_state=seed)
    if strategy in LEAVE_OUT_SPLITTERS:
        return LEAVE_OUT_SPLITTERS[strategy]()
    if strategy in SHUFFLE_SPLITTERS:
        return SHUFFLE_SPLITTERS[strategy](n_splits=k, test_size=split_cfg["valid_size"], random_state=seed)
    return BOOTSTRAP_SPLITTERS[strategy](n_bootstraps=k, random_state=seed)
