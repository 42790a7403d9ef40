"""Partial dependence and individual conditional expectation (ICE): the model's response as one or two
features move over a grid, everything else held at each row's own values.

ICE_i(v) = f(x_i with x_S := v); PD(v) = mean_i ICE_i(v) (Friedman 2001; the model-agnostic global views next
to permutation importance in seed 004, D4:2002-2056). PD averages over the marginal of the other features, so
like permutation importance it evaluates rows that may never occur when features are correlated; the ICE
curves show the heterogeneity the average hides.

Sections cited: Ghent ML notes (seed 004): 11.2 Model Explainability (2002)"""

from __future__ import annotations

import numpy as np

from mllib.base import check_column_indices


def plotting_position_quantiles(values, probabilities, alpha: float = 0.4, beta: float = 0.4) -> np.ndarray:
    """Quantiles at plotting positions (k - alpha) / (n + 1 - alpha - beta) of the sorted values, linearly
    interpolated (Hyndman and Fan 1996; alpha = beta = 0.4 is scipy's mquantiles default, as scikit-learn uses)."""
    x, p = np.sort(values), np.asarray(probabilities, dtype=np.float64)
    n = x.size
    aleph = n * p + (alpha + p * (1.0 - alpha - beta))
    k = np.floor(np.clip(aleph, 1, n - 1)).astype(np.intp)
    gamma = np.clip(aleph - k, 0.0, 1.0)
    return (1.0 - gamma) * x[k - 1] + gamma * x[k]


def feature_grid(column, grid_resolution: int = 20, percentiles=(0.05, 0.95)) -> np.ndarray:
    """Grid for one column: its sorted unique values when there are at most grid_resolution of them (or it is
    not numeric), else grid_resolution evenly spaced points between the given percentiles."""
    column = np.asarray(column)
    numeric = column.dtype.kind in "biuf" or all(isinstance(v, (int, float, np.number)) for v in column.ravel()[:100])
    values = np.unique(column.astype(np.float64) if numeric else column.astype(str))
    if not numeric or values.size <= grid_resolution:
        return values
    low, high = plotting_position_quantiles(column.astype(np.float64), percentiles)
    if low == high:
        raise ValueError(f"percentiles {percentiles} of the column coincide ({low}); widen them")
    return np.linspace(low, high, grid_resolution)


def partial_dependence(predict, X, features, grid_resolution: int = 20, percentiles=(0.05, 0.95)) -> dict:
    """PD and ICE of predict (rows -> one value per row, or a vector per row such as class probabilities) for
    one feature index or a pair of them.

    Returns {"features", "grid": [values per feature], "average": shape (g1,) or (g1, g2), "individual": shape
    (n, g1) or (n, g1, g2)}; a vector output adds its axes last (e.g. (g1, K) and (n, g1, K)).
    """
    X = np.asarray(X)
    features = [features] if np.isscalar(features) else list(features)
    if not 1 <= len(features) <= 2:
        raise ValueError(f"features must be one column index or a pair, got {features}")
    check_column_indices(features, X.shape[1], "features")
    grids = [feature_grid(X[:, f], grid_resolution, percentiles) for f in features]
    # mesh grid positions, not values: meshing a numeric grid with a string grid would turn the numbers into strings
    index = np.array(np.meshgrid(*(np.arange(g.size) for g in grids), indexing="ij")).reshape(len(features), -1)
    n, n_points = X.shape[0], index.shape[1]
    rows = np.tile(X, (n_points, 1))
    for grid, positions, f in zip(grids, index, features):
        rows[:, f] = np.repeat(grid[positions], n)
    out = np.asarray(predict(rows), dtype=np.float64)
    outputs = out.shape[1:]  # e.g. one probability per class
    out = out.reshape((n_points, n) + outputs)
    shape = tuple(g.size for g in grids)
    individual = np.moveaxis(out, 0, 1).reshape((n,) + shape + outputs)
    return {"features": features, "grid": grids, "average": individual.mean(axis=0), "individual": individual}
