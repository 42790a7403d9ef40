"""Shapley values per raw column of the deployed model, exactly as the explain stage reports them and as the served
model's reasons give them (pipeline/serving/reasons.py): the encoded columns' values (TreeSHAP, the linear closed
form, KernelSHAP or exact enumeration) summed into the raw columns they derive from. numpy and mllib only, so the
served model imports no more than its requirements.

Sections cited: Ghent ML notes (seed 004): 11.2 Model Explainability (2002)"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from mllib.base import MixedMatrix
from mllib.explain import exact_shapley, kernel_shap, linear_shapley, tree_shap

if TYPE_CHECKING:
    from ..core.json_types import JSON


class FittedFeatures(Protocol):
    """The deployed model's fitted features (a feature_transformer: mllib's Pipeline or ColumnTransformer)."""

    def transform(self, X: Any, /) -> np.ndarray: ...

    def get_feature_names_out(self, input_names: list[str], /) -> list[str]: ...


def raw_column_of(encoded: list[str], raw: list[str]) -> np.ndarray | None:
    """Index of the raw column each encoded column derives from (None if any is untraceable): the column itself,
    `<column>_missing`, or a level `<column>=<level>`, the longest raw name that matches ("plan" vs "plan_type").
    Looked up by name, not compared with every raw column: a 2,308-column file took 1.8 s per call."""
    index: dict[str, int] = {}
    for j, c in enumerate(raw):
        index.setdefault(c, j)
    owners = []
    for name in encoded:
        possible = [name, name.removesuffix("_missing"), *(name[:k] for k, ch in enumerate(name) if ch == "=")]
        found = [c for c in possible if c in index]
        if not found:
            return None
        owners.append(index[max(found, key=len)])
    return np.array(owners)


def to_raw(values: np.ndarray, owners: np.ndarray, n_raw: int) -> np.ndarray:
    """Sum encoded-column attributions (n, d_encoded) into raw-column attributions (n, n_raw)."""
    out = np.zeros((values.shape[0], n_raw))
    np.add.at(out.T, owners, values.T)
    return out


def background_mean(transformer: FittedFeatures, X_background: MixedMatrix | np.ndarray) -> np.ndarray:
    """The linear closed form's reference point: the encoded background rows' mean (an (m, d) raw matrix), or the
    mean itself when given as one encoded vector (the served model's reasons: pipeline/serving/reasons.py)."""
    X_background = np.asarray(X_background)
    if X_background.ndim == 1:
        vector: np.ndarray = X_background.astype(np.float64)
        return vector
    mean: np.ndarray = transformer.transform(X_background).mean(axis=0)
    return mean


def shapley_attributions(
    method: str,
    model: Any,  # the deployed model, fitted: a tree ensemble's or a linear model's fitted attributes are read
    transformer: FittedFeatures,
    X_rows: MixedMatrix,
    X_background: MixedMatrix | np.ndarray,
    predict_proba: Callable[[MixedMatrix], np.ndarray] | None,
    kernel: JSON,
    seed: int,
    owners: np.ndarray | None,
    explained: dict[str, str],
) -> JSON:
    """Shapley values per raw column for the explained rows: (n, d) for a binary target (of the positive class), (n, d,
    K) for K > 2 classes (one slice per class); 'output' says which quantity they add up to, expected_value and
    prediction are per class too. kernel: KernelSHAP's {"n_samples", "n_bootstrap", "progress"} (the caller's
    progress lines: this module prints nothing)."""
    n_raw = X_rows.shape[1]
    if method in ("tree", "linear") and owners is None:
        raise ValueError(
            f"explain.shapley {method!r} needs encoded columns traceable to raw columns; "
            "the features stage projects or expands them: use kernel or auto"
        )
    if method == "tree":
        out = tree_shap(model, transformer.transform(X_rows))
        # the positive class's column (binary, two outputs) or the only one (log-odds); every class for K > 2
        columns = [1] if out["values"].shape[2] == 2 else [0] if out["values"].shape[2] == 1 else slice(None)
        values, expected, prediction = (
            out["values"][:, :, columns],
            out["expected_value"][columns],
            out["prediction"][:, columns],
        )
        output = {"probability": "probability", "log_odds": "log-odds"}.get(out["output"], out["output"])
    elif method == "linear":
        Z = transformer.transform(X_rows)
        mean = background_mean(transformer, X_background)
        W, b = np.atleast_2d(model.coef_), np.atleast_1d(model.intercept_)
        parts = [linear_shapley(w, Z, mean, c) for w, c in zip(W, b)]
        values = np.stack([p["values"] for p in parts], axis=2)
        expected = np.array([p["expected_value"] for p in parts])
        prediction = np.stack([p["prediction"] for p in parts], axis=1)
        output = explained["score"]
    elif method in ("kernel", "exact"):
        explain = kernel_shap if method == "kernel" else exact_shapley
        kwargs = {**kernel, "random_state": seed} if method == "kernel" else {}
        out = explain(predict_proba, X_rows, X_background, **kwargs)
        result = {
            "values": out["values"],
            "output": explained["probability"],
            "expected_value": out["expected_value"],
            "prediction": out["prediction"],
            "additivity_error": out["additivity_error"],
        }
        if method == "kernel":
            result["standard_errors"] = out["standard_errors"]
        return result
    else:
        raise ValueError(f"unknown explain.shapley method {method!r}")
    assert owners is not None  # tree and linear: refused above without them
    values = np.stack([to_raw(values[:, :, k], owners, n_raw) for k in range(values.shape[2])], axis=2)
    if values.shape[2] == 1:  # one output: the binary case keeps (n, d)
        values, expected, prediction = values[:, :, 0], float(expected[0]), prediction[:, 0]
    return {
        "values": values,
        "output": output,
        "expected_value": expected,
        "prediction": prediction,
        "additivity_error": np.abs(values.sum(axis=1) + expected - prediction),
    }
