"""Build mllib objects from params.yaml names: the feature transformer, the model, the CV splitter."""

from __future__ import annotations

import inspect
import zlib
from typing import Any

import numpy as np

from mllib import registry
from mllib.base import Blocks, ColumnTransformer, MixedMatrix, Pipeline, fit_with_groups
from mllib.base.blocks import summed

from .errors import PipelineError


def check_hyperparameter_names(key: str, name: str, given) -> None:
    """Every setting in `given` is a hyperparameter the registry class `name` takes (imports that class only: the
    stage that builds a model checks its settings, so validating params.yaml imports no algorithm)."""
    valid = registry.get(name)._param_names()
    for hyperparameter in given:
        if hyperparameter not in valid:
            raise PipelineError(
                f"params.yaml: {key}.{hyperparameter}: {name} has no hyperparameter {hyperparameter!r}; valid: {valid}"
            )


def component_seed(seed: int, role: str) -> int:
    """The random_state of one component (the model, a feature step) derived from params.yaml `seed`: different
    roles draw independent streams, and the same seed gives the same state on every run."""
    return int(np.random.SeedSequence([seed, zlib.crc32(role.encode())]).generate_state(1)[0])


def seeded(cls: type[Any], settings: dict, seed: int, role: str) -> dict:
    """settings with random_state derived from seed when the class takes one and params.yaml does not fix it."""
    if "random_state" in cls._param_names() and "random_state" not in settings:
        return {**settings, "random_state": component_seed(seed, role)}
    return settings


def _step(cfg: dict, step: str, seed: int, **resolved):
    if cfg["name"] == "none":
        return None
    check_hyperparameter_names(f"features.{step}.params", cfg["name"], cfg["params"])
    cls = registry.get(cfg["name"])
    return cls(**seeded(cls, {**cfg["params"], **resolved}, seed, f"features.{step}"))


def _imputer(cfg: dict, step: str, columns: list[str], seed: int):
    """group_imputer's group_column is given by name in params.yaml, one of the step's own columns (numeric for the
    numeric imputer, categorical for the categorical one); the imputer takes its index in that block."""
    group = cfg["params"].get("group_column")
    if cfg["name"] != "group_imputer" or group is None:
        return _step(cfg, step, seed)
    if group not in columns:
        kind = step.removesuffix("_imputer")
        raise ValueError(
            f"features.{step}.params.group_column {group!r} is not a {kind} feature column; {kind} columns: {columns}"
        )
    return _step(cfg, step, seed, group_column=columns.index(group))


def feature_transformer(cfg: dict, numeric_columns: list[str], categorical_columns: list[str], seed: int):
    """Numeric: impute (+ missing indicators), expand, scale. Categorical: impute, encode. Columns: numeric
    first. Then an optional projection of all columns (PCA, LDA, whitening) and an optional feature selection
    (mllib.feature_selection; its inner CV grouped by the groups given to fit), fitted on the same rows."""
    n_numeric, n_categorical = len(numeric_columns), len(categorical_columns)
    numeric = [
        ("impute", _imputer(cfg["numeric_imputer"], "numeric_imputer", numeric_columns, seed)),
        ("expand", _step(cfg["expansion"], "expansion", seed)),
        ("scale", _step(cfg["scaler"], "scaler", seed)),
    ]
    categorical = [
        ("impute", _imputer(cfg["categorical_imputer"], "categorical_imputer", categorical_columns, seed)),
        ("encode", _step(cfg["encoder"], "encoder", seed)),
    ]
    columns = ColumnTransformer(
        [
            ("numeric", Pipeline([s for s in numeric if s[1] is not None]), list(range(n_numeric))),
            ("categorical", Pipeline(categorical), list(range(n_numeric, n_numeric + n_categorical))),
        ]
    )
    steps = [
        ("columns", columns),
        ("project", _step(cfg["projection"], "projection", seed)),
        ("select", _step(cfg["selection"], "selection", seed)),
    ]
    steps = [s for s in steps if s[1] is not None]
    return columns if len(steps) == 1 else Pipeline(steps)


def pooled_levels(transformer, categorical_columns: list[str]) -> dict:
    """{categorical column: {levels, pooled}} of a fitted feature_transformer whose one-hot encoder pooled rare levels
    into `<column>=infrequent` (features.encoder.params min_frequency / max_categories); {} when none did."""
    columns = transformer.steps[0][1] if isinstance(transformer, Pipeline) else transformer
    fitted = {name: t for name, t, _ in columns.transformers_}
    if "categorical" not in fitted:  # a file without categorical columns: the block was never fitted
        return {}
    encoder = dict(fitted["categorical"].steps)["encode"]
    rare = getattr(encoder, "infrequent_categories_", [])
    return {
        c: {"levels": len(kept) + len(pooled), "pooled": len(pooled)}
        for c, kept, pooled in zip(categorical_columns, encoder.categories_, rare)
        if len(pooled)
    }


def model_name(model_cfg: dict, target) -> str:
    """model.name (not auto); a model of the wrong kind for the task is refused."""
    name = model_cfg["name"]
    wanted = target.estimators
    if name not in wanted:
        raise PipelineError(
            f"params.yaml: model.name {name!r} is a {registry.kind_of(name)}, but the target is a "
            f"{target.task} target (see reports/validation.json); choose a {wanted.kind} "
            f"({', '.join(sorted(wanted))}) or auto"
        )
    return name


def model_names(model_cfg: dict, target) -> list[str]:
    """The models to train, compared on the same folds when there are several: model.candidates (in the order
    listed), or model.name auto's set (the task's default_models, simplest first), or model.name alone; each checked
    to be of the task's kind (a Target's estimators)."""
    if model_cfg["candidates"]:
        return [model_name({**model_cfg, "name": n}, target) for n in model_cfg["candidates"]]
    if model_cfg["name"] == "auto":
        return list(target.default_models)
    return [model_name(model_cfg, target)]


def fits_from_blocks(estimator) -> bool:
    """Whether the model fits from rows held in blocks (fit_blocks: sums over the rows), itself or the regressor a
    StandardizedTarget wraps."""
    return hasattr(getattr(estimator, "regressor", estimator), "fit_blocks")


def models_from_parts(names: list[str], model_cfg: dict, target, seed: int) -> tuple[list[str], list[str]]:
    """(the models of the run that fit from a partitioned training set, those of model.name auto's set left out);
    a model named in model.name / model.candidates that cannot is refused with one message naming those that can."""
    refused = [n for n in names if not fits_from_blocks(model(n, model_cfg, seed))]
    if refused and model_cfg["name"] == "auto" and not model_cfg["candidates"]:
        return [n for n in names if n not in refused], refused
    if refused:
        able = sorted(n for n in target.estimators if hasattr(registry.get(n), "fit_blocks"))
        raise PipelineError(
            f"params.yaml: model {refused[0]!r} needs every training row in one matrix, but data.path is a directory "
            f"of parts on the dask backend (fitted part by part); the models fitted from parts are "
            f"{', '.join(able)}: choose one in model.name / model.candidates, or set compute.backend: local to read "
            "the parts as one table"
        )
    return names, []


def scorer(key: str, name: str, target):
    """The scorer `name` of params.yaml `key` (auto: the target's default), refused when its task does not define
    it."""
    from mllib.metrics import get_scorer

    chosen = get_scorer(target.default_scoring if name == "auto" else name)
    if not target.fits_scorer(chosen):
        raise PipelineError(
            f"params.yaml: {key} {chosen.name!r} is not defined for a {target.task} target; use one of "
            f"{target.scorers()} or auto"
        )
    return chosen


def model(name: str, model_cfg: dict, seed: int, target_transform: dict | None = None, **searched):
    """The registry model `name` (model_name's) with its fixed model.params, the searched values (per-model sections
    of params.yaml) and random_state from `seed`; a regressor is fitted on the standardized target
    (mllib.regression.StandardizedTarget: scale-free hyperparameters, and models without an intercept fit a target
    far from 0), of log(y + c) with target_transform {shift, back_transform} (mllib.regression.LogTarget; the train
    stage's choice, pipeline/steps/target_transform.log_settings)."""
    cls = registry.get(name)
    estimator = cls(**seeded(cls, {**model_cfg["params"].get(name, {}), **searched}, seed, "model"))
    if registry.kind_of(name) == "regressor":
        from mllib.regression import LogTarget, StandardizedTarget

        standardized = StandardizedTarget(estimator)
        return standardized if target_transform is None else LogTarget(standardized, **target_transform)
    return estimator


def splitter(split_cfg: dict, strategy: str, seed: int):
    """The splitter of a resolved strategy (Target.split_strategy for auto) with the split.* settings it takes: a
    k-fold strategy's repeated form when split.n_repeats > 1."""
    k, repeats = split_cfg["n_splits"], split_cfg["n_repeats"]
    if strategy in registry.REPEATED_SPLITTERS and repeats > 1:
        return registry.REPEATED_SPLITTERS[strategy](n_splits=k, n_repeats=repeats, random_state=seed)
    cls = registry.SPLITTERS[strategy]
    settings = {
        "n_splits": k,
        "n_bootstraps": k,
        "shuffle": split_cfg["shuffle"],
        "test_size": split_cfg["valid_size"],
        "random_state": seed,
        "gap": split_cfg["gap"],
    }
    return cls(**{name: settings[name] for name in inspect.signature(cls).parameters if name in settings})


def check_observed(observed: np.ndarray, numeric: list[str], where: str) -> None:
    """A numeric column with no observed value (observed: each numeric column's count) cannot be imputed from these
    rows."""
    empty = [c for c, count in zip(numeric, observed) if not count]
    if empty:
        raise PipelineError(
            f"features: numeric column {empty[0]!r} has no observed values in {where}; add it to data.drop"
        )


def observed_counts(block, n_numeric: int) -> np.ndarray:
    """Each numeric column's observed values in a block (X, y, w) of raw inputs (numeric columns first)."""
    X = block[0]
    return np.array([np.count_nonzero(~np.isnan(X[:, j].astype(float))) for j in range(n_numeric)])


def fit_features(
    cfg: dict,
    X_fit: np.ndarray | MixedMatrix | Blocks,
    y_fit: np.ndarray,
    groups,
    numeric: list[str],
    categorical: list[str],
    where: str,
    seed: int,
):
    """The features fitted on X_fit (y_fit for a supervised projection or selection, groups for the selection's inner
    folds), or, with X_fit a mllib.base.RowBlocks (or a cluster's blocks) of (X, y, None), by their fit_blocks from
    the blocks (y_fit and groups unused); bad step settings name the key."""
    if isinstance(X_fit, Blocks):
        observed = summed(X_fit.map(observed_counts, len(numeric)))
    else:
        observed = observed_counts((X_fit,), len(numeric))
    check_observed(observed, numeric, where)
    try:
        transformer = feature_transformer(cfg, numeric, categorical, seed)
        if isinstance(X_fit, Blocks):
            transformer.fit_blocks(X_fit)
        else:
            fit_with_groups(transformer, X_fit, y_fit, groups)
    except (ValueError, TypeError) as exc:
        steps = ", ".join(f"{s}={cfg[s]['name']}" for s in registry.FEATURE_STEPS if cfg[s]["name"] != "none")
        raise PipelineError(
            f"features: fitting the features ({steps}) on {where} failed: {exc}; check features.* in params.yaml"
        ) from None
    return transformer, transformer.get_feature_names_out(numeric + categorical)
