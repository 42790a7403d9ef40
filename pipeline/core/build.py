"""Build mllib objects from params.yaml names: the feature transformer, the model, the CV splitter."""

from __future__ import annotations

import inspect
import zlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from mllib import registry
from mllib.base import Blocks, ColumnTransformer, MixedMatrix, Pipeline, fit_with_groups, is_missing
from mllib.base.blocks import summed

from .errors import PipelineError
from .json_types import JSON
from .timeline import shown

if TYPE_CHECKING:
    from mllib.base import BaseEstimator
    from mllib.metrics.scorers import Scorer
    from mllib.model_selection.splitters import BaseSplitter

    from .task_base import Target

    Transformer = Pipeline | ColumnTransformer  # a feature_transformer


def check_hyperparameter_names(key: str, name: str, given: Iterable[str]) -> None:
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


def seeded(cls: type[Any], settings: JSON, seed: int, role: str) -> JSON:
    """settings with random_state derived from seed when the class takes one and params.yaml does not fix it."""
    if "random_state" in cls._param_names() and "random_state" not in settings:
        return {**settings, "random_state": component_seed(seed, role)}
    return settings


def _step(cfg: JSON, step: str, seed: int, **resolved: object) -> BaseEstimator | None:
    if cfg["name"] == "none":
        return None
    check_hyperparameter_names(f"features.{step}.params", cfg["name"], cfg["params"])
    cls = registry.get(cfg["name"])
    built: BaseEstimator = cls(**seeded(cls, {**cfg["params"], **resolved}, seed, f"features.{step}"))
    return built


def _imputer(cfg: JSON, step: str, columns: list[str], seed: int) -> BaseEstimator | None:
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


def feature_transformer(
    cfg: JSON,
    numeric_columns: list[str],
    categorical_columns: list[str],
    seed: int,
    time: tuple[str, str] | None = None,
) -> Transformer:
    """Numeric: impute (+ missing indicators), expand, scale. Categorical: impute, encode. Columns: numeric
    first. Then an optional projection of all columns (PCA, LDA, whitening) and an optional feature selection
    (mllib.feature_selection; its inner CV grouped by the groups given to fit), fitted on the same rows.
    time: (column, kind) of data.time as a feature (frames.time_input), one of the numeric columns: its own block,
    mllib's TimeFeature (elapsed or index) then the scaler, after the other numeric columns' block."""
    timed = [numeric_columns.index(time[0])] if time else []
    plain = [j for j in range(len(numeric_columns)) if j not in timed]
    numeric = [
        ("impute", _imputer(cfg["numeric_imputer"], "numeric_imputer", [numeric_columns[j] for j in plain], seed)),
        ("expand", _step(cfg["expansion"], "expansion", seed)),
        ("scale", _step(cfg["scaler"], "scaler", seed)),
    ]
    categorical = [
        ("impute", _imputer(cfg["categorical_imputer"], "categorical_imputer", categorical_columns, seed)),
        ("encode", _step(cfg["encoder"], "encoder", seed)),
    ]
    n_numeric, n_categorical = len(numeric_columns), len(categorical_columns)
    blocks = [("numeric", Pipeline([s for s in numeric if s[1] is not None]), plain)]
    if time:
        clock = [("time", registry.get("time_feature")(kind=time[1])), ("scale", _step(cfg["scaler"], "scaler", seed))]
        blocks.append(("time", Pipeline([s for s in clock if s[1] is not None]), timed))
    blocks.append(("categorical", Pipeline(categorical), list(range(n_numeric, n_numeric + n_categorical))))
    columns = ColumnTransformer(blocks)
    steps = [
        ("columns", columns),
        ("project", _step(cfg["projection"], "projection", seed)),
        ("select", _step(cfg["selection"], "selection", seed)),
    ]
    steps = [s for s in steps if s[1] is not None]
    return columns if len(steps) == 1 else Pipeline(steps)


def _fitted_steps(transformer: Transformer, block: str) -> dict[str, Any]:
    """{step name: fitted step} of one block ("numeric", "categorical") of a fitted feature_transformer; {} when the
    block was never fitted (a file without such columns). Any: a fitted step's attributes (`statistics_`,
    `categories_`, ...) are set by its fit, not declared."""
    columns = transformer.steps[0][1] if isinstance(transformer, Pipeline) else transformer
    fitted = {name: t for name, t, _ in columns.transformers_}
    return dict(fitted[block].steps) if block in fitted else {}


def pooled_levels(transformer: Transformer, categorical_columns: list[str]) -> dict[str, dict[str, int]]:
    """{categorical column: {levels, pooled}} of a fitted feature_transformer whose one-hot encoder pooled rare levels
    into `<column>=infrequent` (features.encoder.params min_frequency / max_categories); {} when none did."""
    encoder = _fitted_steps(transformer, "categorical").get("encode")
    if encoder is None:
        return {}
    rare = getattr(encoder, "infrequent_categories_", [])
    return {
        c: {"levels": len(kept) + len(pooled), "pooled": len(pooled)}
        for c, kept, pooled in zip(categorical_columns, encoder.categories_, rare)
        if len(pooled)
    }


def time_as_feature(transformer: Transformer, time: tuple[str, str], unit: str) -> JSON:
    """features.json's `time` (records.TimeAsFeature) from a fitted feature_transformer whose block "time" holds
    data.time as a feature (time: (column, kind); unit: frames.numbers_or_days' unit of the column)."""
    clock = _fitted_steps(transformer, "time")["time"]
    column, kind = time
    first = shown(clock.origin_[0], unit)
    unit_word = " days" if unit == "days" else ""
    if kind == "elapsed":
        feature = f"days since the first training time {first}" if unit == "days" else f"{column} - {first}"
    else:
        feature = (
            f"the period's index among the training times (0 at {first}, the last {clock.times_[0].size - 1}); a "
            f"later time continues the count by the median step, {clock.step_[0]:g}{unit_word}"
        )
    return {"column": column, "kind": kind, "unit": unit, "first": first, "last": shown(clock.last_[0], unit),
            "step": float(clock.step_[0]), "feature": feature}  # fmt: skip


def _fill(imputer: Any, j: int, column: str, columns: list[str]) -> str:
    """How the fitted imputer fills column j of its block (`columns`), in words (an _fitted_steps step)."""
    strategy = getattr(imputer, "strategy", None)
    if isinstance(imputer, registry.get("knn_imputer")):
        return f"the mean of its {imputer.n_neighbors} nearest training rows (knn_imputer)"
    if isinstance(imputer, registry.get("group_imputer")) and imputer.group_column is not None:
        group = columns[imputer.group_column]
        if column == group:
            return f"the most frequent value {_shown(imputer.group_fill_)} (group_imputer's group column)"
        return f"the {strategy} within its {group} (group_imputer; the overall {strategy} for an unseen group)"
    value = _shown(imputer.statistics_[j])
    return f"the constant {value}" if strategy == "constant" else f"the {strategy} {value}"


def _shown(value: object) -> str:
    """A fill value as the card shows it: a number to 6 significant digits, a label quoted."""
    value = value.item() if isinstance(value, np.generic) else value
    return f"{value:.6g}" if isinstance(value, float) else repr(value)


def missing_values(
    transformer: Transformer, numeric: list[str], categorical: list[str], counts: dict[str, int]
) -> dict[str, JSON]:
    """{column: {values, filled, indicator, column}} for each input column with missing values among the rows a
    feature_transformer was fitted on (counts: {column: missing values in those rows}): how many, what fills them,
    the `<column>_missing` indicator a numeric column got (or None), and the one-hot column a categorical column's
    filled values land in: `<column>=(missing)` for their own level, the pooled `<column>=infrequent`, or the level
    they were merged into (None for the ordinal encoder, which gives a code)."""
    found: dict[str, JSON] = {}
    for block, columns in (("numeric", numeric), ("categorical", categorical)):
        steps = _fitted_steps(transformer, block)
        imputer, encoder = steps.get("impute"), steps.get("encode")
        indicated = set(getattr(imputer, "indicator_columns_", np.empty(0)).tolist())
        for j, column in enumerate(columns):
            if not counts.get(column):
                continue
            entry: JSON = {"values": int(counts[column]), "filled": _fill(imputer, j, column, columns)}
            entry["indicator"] = f"{column}_missing" if j in indicated else None
            if block == "categorical":
                entry["column"] = _landing_column(imputer, encoder, j, column)
            found[column] = entry
    return found


def _landing_column(imputer: Any, encoder: Any, j: int, column: str) -> str | None:
    """The one-hot column that holds a categorical column's filled values (a constant or a most frequent level: the
    same for every row; a group's level: not one column, None), or None for an ordinal encoder."""
    if not hasattr(encoder, "infrequent_categories_") or not hasattr(imputer, "statistics_"):
        return None
    if getattr(imputer, "group_column", None) is not None:
        return None
    level = imputer.statistics_[j]
    if level in encoder.categories_[j].tolist():
        return f"{column}={level}"
    return f"{column}=infrequent" if encoder.infrequent_categories_[j].size else None


def model_name(model_cfg: JSON, target: Target) -> str:
    """model.name (not auto); a model of the wrong kind for the task is refused."""
    name: str = model_cfg["name"]
    wanted = target.estimators
    if name not in wanted:
        raise PipelineError(
            f"params.yaml: model.name {name!r} is a {registry.kind_of(name)}, but the target is a "
            f"{target.task} target (see reports/validation.json); choose a {wanted.kind} "
            f"({', '.join(sorted(wanted))}) or auto"
        )
    return name


def model_names(model_cfg: JSON, target: Target) -> list[str]:
    """The models to train, compared on the same folds when there are several: model.candidates (in the order
    listed), or model.name auto's set (the task's default_models, simplest first), or model.name alone; each checked
    to be of the task's kind (a Target's estimators)."""
    if model_cfg["candidates"]:
        return [model_name({**model_cfg, "name": n}, target) for n in model_cfg["candidates"]]
    if model_cfg["name"] == "auto":
        return list(target.default_models)
    return [model_name(model_cfg, target)]


def fits_from_blocks(estimator: BaseEstimator) -> bool:
    """Whether the model fits from rows held in blocks (fit_blocks: sums over the rows), itself or the regressor a
    StandardizedTarget wraps."""
    return hasattr(getattr(estimator, "regressor", estimator), "fit_blocks")


def models_from_parts(names: list[str], model_cfg: JSON, target: Target, seed: int) -> tuple[list[str], list[str]]:
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


def scorer(key: str, name: str, target: Target) -> Scorer:
    """The scorer `name` of params.yaml `key` (auto: the target's default), refused when its task does not define
    it."""
    from mllib.metrics.scorers import get_scorer

    chosen = get_scorer(target.default_scoring if name == "auto" else name)
    if not target.fits_scorer(chosen):
        raise PipelineError(
            f"params.yaml: {key} {chosen.name!r} is not defined for a {target.task} target; use one of "
            f"{target.scorers()} or auto"
        )
    return chosen


def model(
    name: str, model_cfg: JSON, seed: int, target_transform: JSON | None = None, **searched: object
) -> BaseEstimator:
    """The registry model `name` (model_name's) with its fixed model.params, the searched values (per-model sections
    of params.yaml) and random_state from `seed`; a regressor is fitted on the standardized target
    (mllib.regression.StandardizedTarget: scale-free hyperparameters, and models without an intercept fit a target
    far from 0), of log(y + c) with target_transform {shift, back_transform} (mllib.regression.LogTarget; the train
    stage's choice, pipeline/steps/target_transform.log_settings)."""
    cls = registry.get(name)
    estimator: BaseEstimator = cls(**seeded(cls, {**model_cfg["params"].get(name, {}), **searched}, seed, "model"))
    if registry.kind_of(name) == "regressor":
        from mllib.regression import LogTarget, StandardizedTarget

        standardized = StandardizedTarget(estimator)
        return standardized if target_transform is None else LogTarget(standardized, **target_transform)
    return estimator


def splitter(split_cfg: JSON, strategy: str, seed: int) -> BaseSplitter:
    """The splitter of a resolved strategy (Target.split_strategy for auto) with the split.* settings it takes: a
    k-fold strategy's repeated form when split.n_repeats > 1."""
    k, repeats = split_cfg["n_splits"], split_cfg["n_repeats"]
    if strategy in registry.REPEATED_SPLITTERS and repeats > 1:
        repeated: BaseSplitter = registry.REPEATED_SPLITTERS[strategy](n_splits=k, n_repeats=repeats, random_state=seed)
        return repeated
    cls = registry.SPLITTERS[strategy]
    settings = {
        "n_splits": k,
        "n_bootstraps": k,
        "shuffle": split_cfg["shuffle"],
        "test_size": split_cfg["valid_size"],
        "random_state": seed,
        "gap": split_cfg["gap"],
    }
    chosen: BaseSplitter = cls(
        **{name: settings[name] for name in inspect.signature(cls).parameters if name in settings}
    )
    return chosen


def check_observed(rows: int, missing: np.ndarray, numeric: list[str], where: str) -> None:
    """A numeric column with no observed value (missing: each input column's missing values among `rows`, numeric
    first) cannot be imputed from these rows."""
    empty = [c for c, count in zip(numeric, missing) if count == rows]
    if empty:
        raise PipelineError(
            f"features: numeric column {empty[0]!r} has no observed values in {where}; add it to data.drop"
        )


def missing_counts(
    block: tuple[np.ndarray | MixedMatrix, *tuple[np.ndarray | None, ...]], n_numeric: int
) -> np.ndarray:
    """[rows, each input column's missing values] of a block (X, y, w) of raw inputs (numeric columns first)."""
    X = block[0]
    if isinstance(X, MixedMatrix):
        numbers, labels = X.numeric, X.labels
    else:
        numbers, labels = np.asarray(X[:, :n_numeric], dtype=float), np.asarray(X[:, n_numeric:], dtype=object)
    return np.concatenate([[len(numbers)], np.isnan(numbers).sum(axis=0), is_missing(labels).sum(axis=0)])


def fit_features(
    cfg: JSON,
    X_fit: np.ndarray | MixedMatrix | Blocks,
    y_fit: np.ndarray | None,
    groups: np.ndarray | None,
    numeric: list[str],
    categorical: list[str],
    where: str,
    seed: int,
    time: tuple[str, str] | None = None,
) -> tuple[Transformer, list[str], dict[str, int]]:
    """The features fitted on X_fit (y_fit for a supervised projection or selection, groups for the selection's inner
    folds), or, with X_fit a mllib.base.RowBlocks (or a cluster's blocks) of (X, y, None), by their fit_blocks from
    the blocks (y_fit and groups unused); bad step settings name the key. Returns the transformer, its feature names
    and {column: missing values among the rows fitted on} for the columns with some."""
    if isinstance(X_fit, Blocks):
        counted = summed(X_fit.map(missing_counts, len(numeric)))
    else:
        counted = missing_counts((X_fit,), len(numeric))
    rows, missing = int(counted[0]), counted[1:]
    check_observed(rows, missing, numeric, where)
    try:
        transformer = feature_transformer(cfg, numeric, categorical, seed, time)
        if isinstance(X_fit, Blocks):
            # mllib's compose classes are unannotated; mypy's untyped_calls_exclude misses a union's methods
            transformer.fit_blocks(X_fit)  # type: ignore[no-untyped-call]
        else:
            fit_with_groups(transformer, X_fit, y_fit, groups)
    except (ValueError, TypeError) as exc:
        steps = ", ".join(f"{s}={cfg[s]['name']}" for s in registry.FEATURE_STEPS if cfg[s]["name"] != "none")
        raise PipelineError(
            f"features: fitting the features ({steps}) on {where} failed: {exc}; check features.* in params.yaml"
        ) from None
    gaps = {c: int(n) for c, n in zip(numeric + categorical, missing) if n}
    names: list[str] = transformer.get_feature_names_out(numeric + categorical)  # type: ignore[no-untyped-call]
    return transformer, names, gaps
