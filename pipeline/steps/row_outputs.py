"""What the evaluate stage needs of each test row, for the target's kind: the deployed classifier's scores, or the
deployed regressor's prediction and intervals. A function of each row alone, so the partitioned path computes it
part by part where the parts are (pipeline/steps/feature_blocks.part_outputs) and the metrics are made from the
gathered outputs as in memory."""

from __future__ import annotations

from functools import singledispatch

from ..core.task import Classification, Regression, Target
from .regression import row_outputs as regression_outputs


@singledispatch
def row_outputs(target: Target, predictor, X) -> dict:
    """{name: an array with a row per row of X} for the target's kind."""
    raise TypeError(f"no test outputs for {type(target).__name__}")


@row_outputs.register
def classification_outputs(target: Classification, predictor, X) -> dict:
    return {"scores": predictor.scores(X)}


@row_outputs.register
def regressor_outputs(target: Regression, predictor, X) -> dict:
    return regression_outputs(predictor, X)
