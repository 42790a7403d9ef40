"""Each served row's reasons: the raw columns that moved its score most, with the row's values and their signed
contributions (a lender must state the principal reasons for an adverse decision: US ECOA, Regulation B).

They are the deployed model's Shapley values per raw column, computed as the explain stage computes them
(pipeline/steps/shapley_values.py), so a row's reasons equal attributions.json's values for it:
TreeSHAP for tree ensembles and the additive model (each of its terms a small tree), the closed form for a linear
model from the explain stage's reference point (its background rows' encoded mean). They add up, with the expected
value, to the model's score for the decided class: the log-odds of the positive class (binary), the decided class's
score (K > 2 classes), or the prediction (regression; the log-scale prediction of a log target). A model whose
Shapley values are sampled (KernelSHAP) serves no reasons, and reasons.json says why."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from mlflow.types.schema import ColSpec

    from mllib.base import MixedMatrix
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

    from ..core.explanation_records import Attributions
    from ..core.json_types import JSON

TOP = 3  # reasons per row


def reasons_settings(attributions: Attributions) -> JSON:
    """reasons.json, an artifact of the served model, from the explain stage's attributions (its Attributions)."""
    shap = attributions.shapley
    if shap is None or shap.method not in ("tree", "linear"):
        why = "explain.shapley is none" if shap is None else f"the model's Shapley values are sampled ({shap.method})"
        return {"method": None, "why": f"no reasons: {why}; exact values exist for linear, additive and tree models"}
    return {
        "method": shap.method,
        "output": shap.output,
        "background_mean": shap.background_mean,
        "columns": attributions.columns,
        "top": TOP,
    }


def reasons_spec() -> ColSpec:
    """The `reasons` column in the model's signature: per row a list of {feature, value, contribution}, or null."""
    from mlflow.types.schema import AnyType, Array, ColSpec, Object, Property

    item = Object([Property("feature", "string"), Property("value", AnyType()), Property("contribution", "double")])
    return ColSpec(Array(item), "reasons", required=False)


def row_reasons(
    predictor: DeployedPredictor | DeployedRegressor, settings: JSON, X: MixedMatrix, features: pd.DataFrame
) -> list[list[JSON] | None]:
    """Per row of the raw matrix X (features: the same rows as the request's columns), its TOP reasons, largest
    |contribution| first: {feature, value, contribution}; None for every row when the model has no exact values."""
    from pipeline.steps.shapley_values import raw_column_of, shapley_attributions

    if settings.get("method") is None:
        return [None] * len(features)
    names = settings["columns"]
    transformer, model = predictor.features, predictor.model
    owners = raw_column_of(list(transformer.get_feature_names_out(names)), names)
    background = np.asarray(settings["background_mean"] or [], dtype=np.float64)
    shap = shapley_attributions(
        settings["method"], model, transformer, X, background, None, {}, 0, owners, {"score": settings["output"]}
    )
    values = np.asarray(shap["values"], dtype=np.float64)
    if values.ndim == 3:  # K > 2 classes: the decided class's values
        classifier = cast("DeployedPredictor", predictor)  # 3-d values: a classifier's
        decided = classifier.decide(classifier.predict_proba(X))["decision"]
        values = values[np.arange(len(values)), :, decided]
    order = np.argsort(-np.abs(values), axis=1, kind="stable")[:, : settings["top"]]
    return [
        [
            {"feature": names[j], "value": _plain(features[names[j]].iloc[i]), "contribution": float(values[i, j])}
            for j in row
        ]
        for i, row in enumerate(order)
    ]


def _plain(value: object) -> object:
    """A request's value as JSON holds it: a number, a label, or None when missing."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return None
    return value.item() if isinstance(value, np.generic) else value
