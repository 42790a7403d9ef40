"""Attributions of the deployed predictor in the raw feature space of the user's data.

Model-specific explainers (TreeSHAP, the linear closed form, LRP) work on the encoded matrix the model sees;
their attributions of the columns derived from one raw column (its one-hot levels, its missing indicator) are
summed, which keeps additivity because every attribution here is additive over columns. When some encoded
column cannot be traced to a single raw column (a PCA projection, a polynomial product), the model-agnostic
KernelSHAP on raw rows through the whole fitted pipeline is used instead.

Caveat: a sum of Shapley values over a raw column's encoded columns keeps additivity, but it is not the Shapley
value of the game whose players are the raw columns (where a raw column's one-hot levels enter or leave a
coalition together), except for linear models, whose value function is additive over columns so both games
agree. So TreeSHAP values per raw column are an additive summary, not raw-feature Shapley values; KernelSHAP
and exact enumeration play the raw-feature game directly (RAW_COLUMN_NOTE says which, in attributions.json).
LRP's first layer uses the z^B rule bounded by the elementwise min and max of the training features and the
explained rows when the encoded inputs can be negative (standardised features), since z+ assumes non-negative
inputs and z^B's sign guarantee needs every explained input within its bounds."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy import special

from mllib.base import Identity, MixedMatrix
from mllib.comparison import benjamini_hochberg
from mllib.explain import (
    global_surrogate,
    gradient_x_input,
    lrp,
    partial_dependence,
)
from mllib.regression import LogTarget

from ..core import paths
from ..core.errors import PipelineError
from ..core.json_types import JSON
from ..core.progress import Progress
from .feature_blocks import read_rows, stated_sample, table_rows
from .shape_functions import additive_shapes
from .shapley_values import background_mean, raw_column_of, shapley_attributions, to_raw
from .target_transform import log_name

if TYPE_CHECKING:
    import pandas as pd

    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

    from ..core.task import Target
    from ..core.task_base import Response
    from .shapley_values import FittedFeatures


def choose_method(requested: str, model: object, owners: np.ndarray | None) -> str:
    if requested != "auto":
        return requested
    if owners is None:
        return "kernel"
    if hasattr(model, "tree_ensemble"):
        return "tree"
    if hasattr(model, "coef_") and hasattr(model, "intercept_") and np.ndim(model.coef_) in (1, 2):
        return "linear"
    return "kernel"


# by task: what attributions add up to (a linear or tree model's score, the chain's probability, a network's output)
EXPLAINED = {
    "binary": {
        "score": "decision score (log-odds)",
        "probability": "probability of the deployed predictor",
        "relevance": "network output score (logit)",
    },
    "multiclass": {
        "score": "decision score of each class (logit)",
        "probability": "probability of the deployed predictor",
        "relevance": "network output score (logit) of each row's most probable class",
    },
    "regression": {
        "score": "prediction",
        "probability": "prediction",
        "relevance": "network output (the prediction of the standardized target)",
    },
}
PER_CLASS = {"binary": "", "multiclass": ", per class", "regression": ""}  # how the summary says a figure is per class

RAW_COLUMN_NOTE = {
    "tree": "sums of the encoded columns' TreeSHAP values: additive, but not the Shapley values of the raw-column "
    "game (a raw column's one-hot levels would join coalitions together)",
    "linear": "sums of the encoded columns' Shapley values: for a linear model these are the raw-column Shapley values",
    "kernel": "Shapley values of the raw-column game (coalitions of raw columns through the fitted features)",
    "exact": "Shapley values of the raw-column game (coalitions of raw columns through the fitted features)",
}


def input_bounds(Z_rows: np.ndarray, Z_train: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Bounds for LRP's z^B input rule when some input is negative, else None (z+): the elementwise (min, max) of
    the training features and the explained rows (a test row may leave the training range; z^B needs it inside)."""
    Z = np.vstack([Z_train, Z_rows])
    if Z.min() >= 0:
        return None
    return Z.min(axis=0), Z.max(axis=0)


def relevance_attributions(
    rule: str,
    model: object,
    transformer: FittedFeatures,
    X_rows: MixedMatrix,
    owners: np.ndarray | None,
    epsilon: float,
    X_train: MixedMatrix,
    explained: dict[str, str],
) -> JSON | None:
    """Gradient x input / LRP of the network's output score, per raw column (only for mllib MLPs).
    epsilon: LRP-epsilon's stabiliser; X_train: raw training rows, whose encoded range (widened to X_rows')
    bounds z^B."""
    while hasattr(model, "regressor_"):  # a network fitted on the standardized (log) target: relevance in its units
        model = model.regressor_
    if rule == "none" or not hasattr(model, "forward_activations") or owners is None:
        return None
    Z = transformer.transform(X_rows)
    if rule == "gradient_x_input":
        out = gradient_x_input(model, Z)
    elif rule == "lrp_z_plus":
        out = lrp(model, Z, rule="z_plus", input_bounds=input_bounds(Z, transformer.transform(X_train)))
    else:
        out = lrp(model, Z, rule=rule.removeprefix("lrp_"), epsilon=epsilon)
    output = explained["relevance"]
    return {
        "values": to_raw(out["relevance"], owners, X_rows.shape[1]),
        "output": output,
        "prediction": out["output"],
        "conservation_error": out["conservation_error"],
    }


def after_features(
    predictor: DeployedPredictor | DeployedRegressor, X: MixedMatrix
) -> DeployedPredictor | DeployedRegressor:
    """The deployed chain without its features, for rows they have already transformed: permutation importance
    transforms the test rows once (mllib.explain.permutation_importance's `features`)."""
    identity = Identity().fit(predictor.transform(X[:1]))
    return type(predictor)(**{**predictor.get_params(deep=False), "features": identity}).fit()


def importance_rows(result: JSON, names: list[str]) -> list[JSON]:
    """Per raw column, largest first: mean drop, std over repeats (ddof=1) and the library's Student-t interval."""
    order = np.argsort(-result["importances_mean"], kind="stable")
    low, high = result["importances_interval"].T
    return [
        {
            "feature": names[j],
            "mean": result["importances_mean"][j],
            "std": result["importances_std"][j],
            "ci_low": low[j],
            "ci_high": high[j],
            "repeats": result["importances"][j],
        }
        for j in order
    ]


def attribution_summary(values: np.ndarray, names: list[str], classes: list[str]) -> list[JSON]:
    """Per raw column, largest mean |attribution| first; values (n, d) or (n, d, K) per class (then the mean over
    rows and classes ranks the columns, and each class's mean |value| is listed)."""
    per_class = np.abs(values).mean(axis=0) if values.ndim == 3 else None
    mean_abs = np.abs(values).mean(axis=0) if per_class is None else per_class.mean(axis=1)
    rows: list[JSON] = []
    for j in np.argsort(-mean_abs, kind="stable"):
        row: JSON = {"feature": names[j], "mean_abs": mean_abs[j], "mean": values[:, j].mean()}
        if per_class is not None:
            row["mean_abs_per_class"] = dict(zip(classes, per_class[j].tolist()))
        rows.append(row)
    return rows


def pdp_curves(
    predict: Response,
    X: MixedMatrix,
    names: list[str],
    features: list[int],
    grid_resolution: int,
    percentiles: tuple[float, ...],
) -> JSON:
    """1-D PD + ICE for each feature, 2-D PD for the first two; numeric grids span the given percentiles."""
    one_way: list[JSON] = []
    for j in features:
        out = partial_dependence(predict, X, j, grid_resolution=grid_resolution, percentiles=percentiles)
        one_way.append(
            {"feature": names[j], "grid": out["grid"][0].tolist(), "average": out["average"], "ice": out["individual"]}
        )
    two_way: JSON | None = None
    if len(features) >= 2:
        out = partial_dependence(
            predict, X, features[:2], grid_resolution=min(grid_resolution, 10), percentiles=percentiles
        )
        two_way = {
            "features": [names[j] for j in features[:2]],
            "grid": [g.tolist() for g in out["grid"]],
            "average": out["average"],
        }
    return {"one_way": one_way, "two_way": two_way}


def pdp_rows(pdp: JSON) -> list[JSON]:
    """partial_dependence.csv: one row per (feature, numeric grid value[, class])."""
    rows: list[JSON] = []
    for c in pdp["one_way"]:
        for v, a in zip(c["grid"], c["average"]):
            if isinstance(v, (int, float)):
                rows += [
                    {"feature": c["feature"], "value": v, "class": k, "partial_dependence": p}
                    for k, p in zip(pdp["classes"], np.atleast_1d(a))
                ]
    return rows


def surrogate_summary(
    predictor: DeployedPredictor | DeployedRegressor,
    X_train: MixedMatrix,
    X_test: MixedMatrix,
    names: list[str],
    classification: bool,
    depth: int,
    max_rows: int,
    seed: int,
) -> JSON:
    """A depth-limited CART tree mimicking the deployed predictor's decisions (classification) or predictions, fitted
    on the training rows (a seeded sample of max_rows when there are more) in the model's input features (imputed,
    scaled, encoded), with its fidelity on the test rows (agreement, or R^2 against the predictor's outputs) and its
    rules."""
    transformer = predictor.features
    if len(X_train) > max_rows:
        X_train = X_train[np.sort(np.random.default_rng(seed).choice(len(X_train), size=max_rows, replace=False))]
    result = global_surrogate(
        transformer.transform(X_train),
        predictor.predict(X_train),
        transformer.transform(X_test),
        predictor.predict(X_test),
        list(transformer.get_feature_names_out(names)),
        classification,
        max_depth=depth,
        random_state=seed,
    )
    kept = ("fidelity", "fidelity_metric", "depth", "n_leaves")
    units = RawUnits(transformer, names, X_train)
    rules = [
        {"conditions": [units.condition(**split) for split in rule["splits"]],
         "conditions_in_model_features": rule["conditions"], **{k: rule[k] for k in ("prediction", "rows")}}
        for rule in result["rules"]
    ]  # fmt: skip
    return {"max_depth": depth, "fitted_rows": len(X_train), **{k: result[k] for k in kept}, "rules": rules}


class RawUnits:
    """A surrogate split on a model input feature (imputed, scaled, encoded) read in the file's own terms: a scaled
    numeric column's threshold mapped back through the fitted features' map of that column (found by transforming
    three values of it: affine, as every scaler is), a one-hot column as "column = level" or "column is not level", a
    missing indicator as "column is missing / present". A feature that is not one raw column's (a projection, a
    product) keeps its model units and says so."""

    def __init__(self, transformer: FittedFeatures, names: list[str], X_train: MixedMatrix) -> None:
        self.transformer, self.names, self.X = transformer, names, X_train
        self.encoded = list(transformer.get_feature_names_out(names))
        self.numeric = names[: getattr(X_train, "n_numeric", len(names))]

    def affine(self, name: str) -> tuple[float, float] | None:
        """(slope, intercept) of the fitted features' map from raw column `name` to its model feature, or None when
        the map is not affine (or the column is constant for the model)."""
        probe = self.X[[0, 0, 0]]
        probe[:, self.names.index(name)] = np.array([0.0, 1.0, 2.0])
        out = np.asarray(self.transformer.transform(probe), dtype=np.float64)[:, self.encoded.index(name)]
        slope = out[1] - out[0]
        if not slope or not np.isclose(out[2] - out[1], slope, rtol=1e-9, atol=0.0):
            return None
        return float(slope), float(out[0])

    def condition(self, feature: str, op: str, threshold: float) -> str:
        if feature in self.numeric and (m := self.affine(feature)) is not None:
            flipped = {"<=": ">=", ">": "<"}[op] if m[0] < 0 else op
            return f"{feature} {flipped} {(threshold - m[1]) / m[0]:.6g}"
        column = next((c for c in sorted(self.names, key=len, reverse=True) if feature.startswith(c)), None)
        if column is not None and feature == f"{column}_missing":
            return f"{column} is {'missing' if op == '>' else 'present'}"
        if column is not None and feature.startswith(f"{column}="):
            level = feature[len(column) + 1 :]
            if level == "infrequent":
                return f"{column} {'is' if op == '>' else 'is not'} one of its pooled rare levels"
            return f"{column} = {level}" if op == ">" else f"{column} is not {level}"
        return f"{feature} {op} {threshold:.6g} (model units)"


def shapley_summary(
    method: str,
    model: object,
    transformer: FittedFeatures,
    X_rows: MixedMatrix,
    background: MixedMatrix,
    predict: Response | None,
    kernel: JSON,
    seed: int,
    owners: np.ndarray | None,
    names: list[str],
    target: Target,
) -> JSON:
    """attributions.json's "shapley" entry: the values per raw column with their additivity error (absolute and
    relative to the largest output) and the per-feature summary."""
    if method == "kernel":
        kernel = {**kernel, "progress": Progress("explain: KernelSHAP rows")}
    shap = shapley_attributions(
        method, model, transformer, X_rows, background, predict, kernel, seed, owners, EXPLAINED[target.task]
    )
    classes = target.label_names()
    scale = max(np.abs(shap["prediction"]).max(), np.abs(shap["expected_value"]).max(), 1e-300)
    output = shap["output"]
    if method in ("tree", "linear") and isinstance(model, LogTarget):  # the wrapped model's output: the log scale
        output = f"{log_name(target.column, model.shift_)}, the model's log-scale prediction"
    return {
        "method": method, "output": output, "raw_columns": RAW_COLUMN_NOTE[method],
        "per_class": np.ndim(shap["values"]) == 3, "expected_value": shap["expected_value"],
        "additivity_error_max": float(shap["additivity_error"].max()),
        "additivity_error_max_relative": float(shap["additivity_error"].max() / scale),
        "features": attribution_summary(shap["values"], names, classes), "values": shap["values"],
        "standard_errors": shap.get("standard_errors"),
        # the linear form's reference point, encoded: the served model's reasons use it (pipeline/serving/reasons.py)
        "background_mean": background_mean(transformer, background).tolist() if method == "linear" else None,
    }  # fmt: skip


def relevance_summary(
    rule: str,
    model: object,
    transformer: FittedFeatures,
    X_rows: MixedMatrix,
    owners: np.ndarray | None,
    epsilon: float,
    X_train: MixedMatrix,
    names: list[str],
    target: Target,
) -> JSON | None:
    """attributions.json's "relevance" entry (None when explain.relevance is none or the model is not a network)."""
    relevance = relevance_attributions(
        rule, model, transformer, X_rows, owners, epsilon, X_train, EXPLAINED[target.task]
    )
    classes = target.label_names()
    if relevance is None:
        return None
    finite = relevance["conservation_error"][np.isfinite(relevance["conservation_error"])]
    return {
        "method": rule, "output": relevance["output"],
        "conservation_error_median": float(np.median(finite)) if finite.size else None,
        "features": attribution_summary(relevance["values"], names, classes),
    }  # fmt: skip


def importance_summary(scoring: str, features: list[JSON], informative: list[JSON]) -> str:
    """The explain stage's line on permutation importance: the five columns beyond their noise, or that none is."""
    found = (
        ", ".join(f"{f['feature']} {f['mean']:.4f}" for f in informative[:5])
        if informative
        else f"no column's importance exceeds its noise (each interval reaches 0; {len(features)} columns)"
    )
    return f"explain: permutation importance ({scoring} drop): {found}"


def beyond_noise(features: list[JSON], confidence_level: float) -> list[JSON]:
    """The rows (importance_rows) of the columns whose permutation importance exceeds its noise, largest first: per
    column a one-sided t-test that the repeats' mean drop is above 0, the columns kept by the Benjamini-Hochberg
    procedure at false discovery rate 1 - confidence_level (over thousands of columns, a per-column interval alone
    names a few percent of pure noise). A column's spread is taken as at least the median spread over the columns:
    repeats that happen to agree (a score of 20 test rows moves in steps) have not shown that their noise is zero.
    One repeat: no test, a drop above 0 counts."""
    repeats = np.array([f["repeats"] for f in features], dtype=np.float64).reshape(len(features), -1)
    mean = repeats.mean(axis=1)
    if repeats.shape[1] < 2:
        return [f for f, m in zip(features, mean) if m > 0]
    spread = np.maximum(repeats.std(axis=1, ddof=1), np.median(repeats.std(axis=1, ddof=1)))
    with np.errstate(divide="ignore", invalid="ignore"):  # no spread anywhere: the sign of the mean decides
        t = np.where(spread > 0, mean / (spread / np.sqrt(repeats.shape[1])), np.where(mean > 0, np.inf, -np.inf))
    kept = benjamini_hochberg(special.stdtr(repeats.shape[1] - 1, -t), 1.0 - confidence_level)
    return [f for f, keep in zip(features, kept) if keep]


def importance_report(
    result: JSON, scoring: str, n_repeats: int, decision: JSON | None, features: list[JSON], informative: list[JSON]
) -> JSON:
    """importance.json: the importances of every column and the ones beyond their noise (beyond_noise), said."""
    statement = (
        f"{len(informative)} of {len(features)} columns lower the {scoring} beyond their noise when shuffled (a "
        f"one-sided t-test over the repeats per column, the Benjamini-Hochberg procedure at false discovery rate "
        f"{1 - result['confidence_level']:g} over the columns)"
        if informative
        else f"no column's importance exceeds its noise: shuffling any one of the {len(features)} columns alone moves "
        f"the test {scoring} by no more than chance, so no column is named as important (correlated columns can "
        "stand in for each other; the Shapley values below share the output among them)"
    )
    return {
        "method": "permutation", "scoring": scoring, "baseline": result["baseline_score"], "n_repeats": n_repeats,
        "confidence_level": result["confidence_level"],
        "interval": "mean ± t(n_repeats - 1) std / sqrt(n_repeats), std with ddof=1 (null for one repeat)",
        "decision": decision, "beyond_noise": [f["feature"] for f in informative], "statement": statement,
        "features": features,
    }  # fmt: skip


def row_attributions(
    predictor: DeployedPredictor | DeployedRegressor,
    X: MixedMatrix,
    X_train: MixedMatrix,
    names: list[str],
    classes: list[str],
    target: Target,
    cfg: JSON,
    seed: int,
) -> tuple[np.ndarray, JSON]:
    """The explained rows (a seeded sample of test rows) and attributions.json: their Shapley values (explain.shapley),
    relevance for networks (explain.relevance) and the global surrogate tree (explain.surrogate_depth)."""
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(len(X), size=min(cfg["n_rows"], len(X)), replace=False))
    background = X_train[np.sort(rng.choice(len(X_train), size=min(cfg["n_background"], len(X_train)), replace=False))]
    transformer, model = predictor.features, predictor.model
    owners = raw_column_of(list(transformer.get_feature_names_out(names)), names)
    method = choose_method(cfg["shapley"], model, owners)
    attributions: JSON = {"columns": names, "classes": classes, "rows": rows.tolist(), "n_background": len(background)}
    if method != "none":
        kernel = {"n_samples": cfg["kernel_samples"], "n_bootstrap": cfg["kernel_bootstrap"]}
        try:
            shap = shapley_summary(method, model, transformer, X[rows], background, target.response(predictor, "proba"),
                                   kernel, seed, owners, names, target)  # fmt: skip
        except ValueError as exc:
            raise PipelineError(f"explain: {exc}") from None
        attributions["shapley"] = shap
        per_class = PER_CLASS[target.task]
        print(f"explain: Shapley ({method}, {shap['output']}{per_class}): top "
              f"{', '.join(f['feature'] for f in shap['features'][:5])}; additivity error "
              f"{shap['additivity_error_max_relative']:.1e} (relative)")  # fmt: skip
    try:
        relevance = relevance_summary(cfg["relevance"], model, transformer, X[rows], owners, cfg["lrp_epsilon"],
                                      X_train, names, target)  # fmt: skip
    except ValueError as exc:
        raise PipelineError(f"explain.relevance {cfg['relevance']!r}: {exc}") from None
    if relevance is not None:
        attributions["relevance"] = relevance
    shapes = additive_shapes(model, transformer, X_train, names, owners)
    if shapes is not None:
        attributions["shape_functions"] = shapes
        print(f"explain: {shapes['statement']}; strongest: "
              f"{', '.join(t['feature'] for t in shapes['terms'][:5])}")  # fmt: skip
    if cfg["surrogate_depth"]:
        sur = surrogate_summary(
            predictor, X_train, X, names, target.classifies, cfg["surrogate_depth"], cfg["surrogate_rows"], seed
        )
        attributions["surrogate"] = sur
        print(f"explain: surrogate tree (depth {sur['depth']}, {sur['n_leaves']} leaves): fidelity on test "
              f"{sur['fidelity']:.3f} ({sur['fidelity_metric']})")  # fmt: skip
    return rows, attributions


def explained_tables(
    max_rows: int | None, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray | None, str | None]:
    """(test rows, training rows, the test sample's positions or None, what the sample statement says or None): at
    most explain.max_rows of each table, a seeded sample read part by part on the partitioned path."""
    n_test, n_train = table_rows(paths.TEST), table_rows(paths.TRAIN)
    test_rows = stated_sample(n_test, max_rows, seed, key=1)
    train_rows = stated_sample(n_train, max_rows, seed, key=2)
    parts = [
        f"{len(rows):,} of the {n:,} {name} rows (a seeded sample)"
        for rows, n, name in ((test_rows, n_test, "test"), (train_rows, n_train, "training"))
        if rows is not None
    ]
    sample = f"on {' and '.join(parts)}: explain.max_rows" if parts else None
    if sample:
        print(f"explain: {sample}")
    return read_rows(paths.TEST, test_rows), read_rows(paths.TRAIN, train_rows), test_rows, sample


# by task: what the deployed predictor gives for a row (the partial-dependence axes), and the outputs partial
# dependence draws (the positive class's probability, every class's, or the prediction)
OUTPUT_NAMES: dict[str, Callable[[Target], str]] = {
    "binary": lambda target: f"p({target.column} = {target.classes[1]}), deployed predictor",
    "multiclass": lambda target: f"p({target.column} = class), deployed predictor (per class, last axis)",
    "regression": lambda target: f"predicted {target.column} (its units)",
}
EXPLAINED_OUTPUTS: dict[str, Callable[[Target], list[str]]] = {
    "binary": lambda target: target.label_names()[1:],
    "multiclass": lambda target: target.label_names(),
    "regression": lambda target: [target.column],
}


def pdp_outputs(target: Target) -> JSON:
    """What partial dependence draws for the target's kind: the output's name and the explained outputs."""
    return {"output": OUTPUT_NAMES[target.task](target), "classes": EXPLAINED_OUTPUTS[target.task](target)}
