"""The additive model's shape functions in the file's own terms (the explain stage's): for each raw column, what the
deployed model adds to its output for each value of the column, in the column's raw units or category names, with the
bagging band, and which pairs of columns it joined into pairwise terms.

An explainable boosting machine (mllib.additive) is a sum of one term per encoded column (and a few pairs), each a
table over the column's bins: intercept + sum_j f_j(z_j) + sum_(a,b) f_ab(z_a, z_b) (Lou, Caruana & Gehrke 2012;
Lou et al. 2013). The features stage encodes a raw column into one or more encoded columns (a scaled number and its
`_missing` indicator; a category's one-hot columns), so a raw column's shape is the sum of its encoded columns' main
terms. It is read exactly, not estimated: rows that differ only in the column (every training value of it, or
quantiles of them; every level of a category; a missing value) are passed through the fitted features and the model's
own term tables. The band is the bagging standard deviation of the column's terms combined as independent
(sqrt of the sum of their variances; the bags' terms of one column move together, so it is an approximation).

Reference: Lou, Caruana & Gehrke (2012), Intelligible models for classification and regression; Lou, Caruana,
Gehrke & Hooker (2013), Accurate intelligible models with pairwise interactions; Nori et al. (2019), InterpretML."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from mllib.base import MixedMatrix

if TYPE_CHECKING:
    from mllib.additive.explainable_boosting import ExplainableBoostingClassifier, ExplainableBoostingRegressor

    from ..core.json_types import JSON
    from .shapley_values import FittedFeatures

    Additive = ExplainableBoostingClassifier | ExplainableBoostingRegressor

GRID = 100  # probe values per numeric column: every training value when there are fewer, else quantiles
LEVELS = 30  # levels shown per categorical column (the most frequent; the others share their encoded columns)


def additive_model(model: object) -> tuple[Additive, float, float] | None:
    """(the explainable boosting machine, scale, shift) of a deployed model: itself, or the regressor a
    StandardizedTarget wraps (its terms in standardized units: target = shift + scale * raw); None otherwise."""
    inner = getattr(model, "regressor_", model)
    if not hasattr(inner, "shape_functions"):
        return None
    ebm = cast("Additive", inner)  # the registry's models with shape functions: the explainable boosting machines
    return ebm, float(getattr(model, "scale_", 1.0)), float(getattr(model, "mean_", 0.0))


def probes(X_train: MixedMatrix, column: int) -> tuple[MixedMatrix, list[float] | list[str], bool]:
    """Rows equal to the first training row but in `column`: its values to show (numbers: every distinct training
    value up to GRID, else GRID quantiles; categories: the LEVELS most frequent levels), then a missing value when the
    training rows hold one. Returns (the rows, the values shown, whether the last row is the missing one)."""
    numeric = column < X_train.n_numeric
    values = X_train.numeric[:, column] if numeric else X_train.labels[:, column - X_train.n_numeric]
    present = ~np.isnan(values) if numeric else np.array([v is not None for v in values], dtype=bool)
    if numeric:
        distinct = np.unique(values[present])
        shown = distinct if distinct.size <= GRID else np.unique(np.quantile(values[present], np.linspace(0, 1, GRID)))
        shown = shown.tolist()
    else:
        levels, counts = np.unique(values[present].astype(str), return_counts=True)
        shown = levels[np.argsort(-counts, kind="stable")[:LEVELS]].tolist()
    missing = not present.all()
    n = len(shown) + missing
    rows = MixedMatrix(np.repeat(X_train.numeric[:1], n, axis=0), np.repeat(X_train.labels[:1], n, axis=0))
    block = rows.numeric if numeric else rows.labels
    j = column if numeric else column - X_train.n_numeric
    block[: len(shown), j] = shown
    if missing:
        block[-1, j] = np.nan if numeric else None
    return rows, shown, missing


def additive_shapes(
    model: object, transformer: FittedFeatures, X_train: MixedMatrix, names: list[str], owners: np.ndarray | None
) -> JSON | None:
    """explain's attributions.json `shape_functions` for an additive model (None for any other model, or when an
    encoded column cannot be traced to one raw column: a projection or an expansion mixes them): per raw column its
    values and the model's addition for each, the band, the value for a missing entry, its importance (the mean
    |addition| over the training rows), and the pairwise terms by raw columns, strongest first."""
    found = additive_model(model)
    if found is None or owners is None:
        return None
    ebm, scale, shift = found
    classes = getattr(ebm, "classes_", None)
    output = (
        "the target's units"
        if classes is None
        else "log-odds of the positive class"
        if classes.size == 2
        else "class logits (one value per class)"
    )
    n_mains = ebm.n_features_in_
    assert [tuple(f) for f in ebm.term_features_[:n_mains]] == [(e,) for e in range(n_mains)]  # mains come first

    def addition(Z: np.ndarray, mains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The column's main terms summed (n,) or (n, K), and their band, in the output's units."""
        value = scale * ebm.term_contributions(Z)[:, mains].sum(axis=1)
        band = scale * np.sqrt((ebm.term_bands(Z)[:, mains] ** 2).sum(axis=1))
        return value, band

    # every term's value on the training rows, read once (each column's importance sums its own terms)
    train_contributions = ebm.term_contributions(transformer.transform(X_train))
    terms = []
    for c, name in enumerate(names):
        mains = np.flatnonzero(owners == c)
        if mains.size == 0:
            continue
        rows, shown, missing = probes(X_train, c)
        value, band = addition(transformer.transform(rows), mains)
        importance = float(np.abs(scale * train_contributions[:, mains].sum(axis=1)).mean())
        terms.append(
            {
                "feature": name,
                "kind": "numeric" if c < X_train.n_numeric else "categorical",
                "x": shown,
                "value": value[: len(shown)].tolist(),
                "band": band[: len(shown)].tolist(),
                "missing": value[-1].tolist() if missing else None,
                "importance": importance,
            }
        )
    terms.sort(key=lambda t: -t["importance"])
    encoded = transformer.get_feature_names_out(names)
    pairs = [
        {
            "features": [names[owners[a]], names[owners[b]]],
            "encoded": [str(encoded[a]), str(encoded[b])],
            "importance": scale * float(importance),
        }
        for (a, b), importance in zip(ebm.term_features_[n_mains:], ebm.term_importances_[n_mains:])
    ]
    intercept = shift + scale * np.atleast_1d(ebm.intercept_)
    return {
        "output": output,
        "intercept": intercept.tolist(),
        "terms": terms,
        "pairs": sorted(pairs, key=lambda p: -p["importance"]),
        "statement": (
            f"an additive model: intercept plus one shape function per column ({len(terms)}) and {len(pairs)} pairwise "
            f"terms, in {output}; each column's shape is its encoded columns' terms read on rows that differ only in "
            "it, with the bagging band (one standard deviation over the outer bags)"
        ),
    }
