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

import numpy as np

from mllib.explain import exact_shapley, gradient_x_input, kernel_shap, linear_shapley, lrp, tree_shap


def raw_column_of(encoded: list[str], raw: list[str]) -> np.ndarray | None:
    """Index of the raw column each encoded column derives from (None if any is untraceable)."""
    owners = []
    for name in encoded:
        candidates = [j for j, c in enumerate(raw) if name == c or name.startswith(c + "=") or name == c + "_missing"]
        if not candidates:
            return None
        owners.append(max(candidates, key=lambda j: len(raw[j])))  # longest match: "plan" vs "plan_type"
    return np.array(owners)


def to_raw(values: np.ndarray, owners: np.ndarray, n_raw: int) -> np.ndarray:
    """Sum encoded-column attributions (n, d_encoded) into raw-column attributions (n, n_raw)."""
    out = np.zeros((values.shape[0], n_raw))
    np.add.at(out.T, owners, values.T)
    return out


def choose_method(requested: str, model, owners) -> str:
    if requested != "auto":
        return requested
    if owners is None:
        return "kernel"
    if hasattr(model, "tree_ensemble"):
        return "tree"
    if hasattr(model, "coef_") and hasattr(model, "intercept_") and np.ndim(model.coef_) == 2 and model.coef_.shape[0] == 1:
        return "linear"
    return "kernel"


RAW_COLUMN_NOTE = {
    "tree": "sums of the encoded columns' TreeSHAP values: additive, but not the Shapley values of the raw-column "
            "game (a raw column's one-hot levels would join coalitions together)",
    "linear": "sums of the encoded columns' Shapley values: for a linear model these are the raw-column Shapley values",
    "kernel": "Shapley values of the raw-column game (coalitions of raw columns through the fitted features)",
    "exact": "Shapley values of the raw-column game (coalitions of raw columns through the fitted features)",
}


def shapley_attributions(method: str, model, transformer, X_rows, X_background, predict_proba, kernel: dict, seed: int,
                         owners) -> dict:
    """Shapley values per raw column for the explained rows; 'output' says which quantity they add up to.
    kernel: KernelSHAP's {"n_samples", "n_bootstrap"}."""
    n_raw = X_rows.shape[1]
    if method in ("tree", "linear") and owners is None:
        raise ValueError(f"explain.shapley {method!r} needs encoded columns traceable to raw columns; "
                         "the features stage projects or expands them: use kernel or auto")
    if method == "tree":
        out = tree_shap(model, transformer.transform(X_rows))
        column = 1 if out["values"].shape[2] == 2 else 0  # the positive class's probability, or the log-odds
        values, output = out["values"][:, :, column], {"probability": "probability", "log_odds": "log-odds"}.get(out["output"], out["output"])
        expected, prediction = out["expected_value"][column], out["prediction"][:, column]
    elif method == "linear":
        Z_background = transformer.transform(X_background)
        out = linear_shapley(model.coef_[0], transformer.transform(X_rows), Z_background.mean(axis=0), model.intercept_[0])
        values, output, expected, prediction = out["values"], "decision score (log-odds)", out["expected_value"], out["prediction"]
    elif method in ("kernel", "exact"):
        explain = kernel_shap if method == "kernel" else exact_shapley
        kwargs = {**kernel, "random_state": seed} if method == "kernel" else {}
        out = explain(predict_proba, X_rows, X_background, **kwargs)
        result = {"values": out["values"], "output": "calibrated probability", "expected_value": float(out["expected_value"]),
                  "prediction": out["prediction"], "additivity_error": out["additivity_error"]}
        if method == "kernel":
            result["standard_errors"] = out["standard_errors"]
        return result
    else:
        raise ValueError(f"unknown explain.shapley method {method!r}")
    values = to_raw(values, owners, n_raw)
    return {"values": values, "output": output, "expected_value": float(expected), "prediction": prediction,
            "additivity_error": np.abs(values.sum(axis=1) + expected - prediction)}


def input_bounds(Z_rows: np.ndarray, Z_train: np.ndarray):
    """Bounds for LRP's z^B input rule when some input is negative, else None (z+): the elementwise (min, max) of
    the training features and the explained rows (a test row may leave the training range; z^B needs it inside)."""
    Z = np.vstack([Z_train, Z_rows])
    if Z.min() >= 0:
        return None
    return Z.min(axis=0), Z.max(axis=0)


def relevance_attributions(rule: str, model, transformer, X_rows, owners, epsilon: float, X_train) -> dict | None:
    """Gradient x input / LRP of the network's output score, per raw column (only for mllib MLPs).
    epsilon: LRP-epsilon's stabiliser; X_train: raw training rows, whose encoded range (widened to X_rows')
    bounds z^B."""
    if rule == "none" or not hasattr(model, "forward_activations") or owners is None:
        return None
    Z = transformer.transform(X_rows)
    if rule == "gradient_x_input":
        out = gradient_x_input(model, Z)
    elif rule == "lrp_z_plus":
        out = lrp(model, Z, rule="z_plus", input_bounds=input_bounds(Z, transformer.transform(X_train)))
    else:
        out = lrp(model, Z, rule=rule.removeprefix("lrp_"), epsilon=epsilon)
    return {"values": to_raw(out["relevance"], owners, X_rows.shape[1]), "output": "network output score (logit)",
            "prediction": out["output"], "conservation_error": out["conservation_error"]}
