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


# features.<step>.name: the registry names each step accepts ("none" skips an optional step)
FEATURE_STEPS = {
    "numeric_imputer": ["simple_imputer", "knn_imputer", "group_imputer"],
    "expansion": ["none", "polynomial_features", "rbf_features", "piecewise_features"],
    "scaler": ["none", "standard_scaler", "min_max_scaler", "robust_scaler"],
    "categorical_imputer": ["simple_imputer", "group_imputer"],
    "encoder": ["one_hot_encoder", "ordinal_encoder"],
    "projection": ["none", "pca", "lda", "pls", "cholesky_whitening", "kernel_pca", "nystroem"],
}


def feature_step_names(step: str) -> list[str]:
    """The accepted names that are registered and transform (pls is a regressor that also projects)."""
    return [n for n in FEATURE_STEPS[step] if n == "none" or hasattr(registry.REGISTRY.get(n), "transform")]


def _step(cfg: dict, **resolved):
    return None if cfg["name"] == "none" else registry.get(cfg["name"])(**{**cfg["params"], **resolved})


def _imputer(cfg: dict, step: str, columns: list[str]):
    """group_imputer's group_column is given by name in params.yaml, one of the step's own columns (numeric for the
    numeric imputer, categorical for the categorical one); the imputer takes its index in that block."""
    group = cfg["params"].get("group_column")
    if cfg["name"] != "group_imputer" or group is None:
        return _step(cfg)
    if group not in columns:
        kind = step.removesuffix("_imputer")
        raise ValueError(f"features.{step}.params.group_column {group!r} is not a {kind} feature column; "
                         f"{kind} columns: {columns}")
    return _step(cfg, group_column=columns.index(group))


def feature_transformer(cfg: dict, numeric_columns: list[str], categorical_columns: list[str]):
    """Numeric: impute (+ missing indicators), expand, scale. Categorical: impute, encode. Columns: numeric
    first. Then an optional projection of all columns (PCA, LDA, whitening), fitted on the same rows."""
    n_numeric, n_categorical = len(numeric_columns), len(categorical_columns)
    numeric = [("impute", _imputer(cfg["numeric_imputer"], "numeric_imputer", numeric_columns)),
               ("expand", _step(cfg["expansion"])), ("scale", _step(cfg["scaler"]))]
    categorical = [("impute", _imputer(cfg["categorical_imputer"], "categorical_imputer", categorical_columns)),
                   ("encode", _step(cfg["encoder"]))]
    columns = ColumnTransformer([
        ("numeric", Pipeline([s for s in numeric if s[1] is not None]), list(range(n_numeric))),
        ("categorical", Pipeline(categorical), list(range(n_numeric, n_numeric + n_categorical))),
    ])
    projection = _step(cfg["projection"])
    return columns if projection is None else Pipeline([("columns", columns), ("project", projection)])


def classifier(model_cfg: dict, **searched):
    """model.name with its fixed model.params and the searched values (per-model sections of params.yaml)."""
    name = model_cfg["name"]
    return registry.get(name)(**{**model_cfg["params"].get(name, {}), **searched})


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
