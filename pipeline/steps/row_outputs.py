"""What the evaluate stage needs of each test row, for the target's kind: the deployed classifier's scores, or the
deployed regressor's prediction and intervals. A function of each row alone, so the partitioned path computes it
part by part where the parts are (pipeline/steps/feature_blocks.part_outputs) and the metrics are made from the
gathered outputs as in memory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import paths
from ..core.compute import dask_client
from ..core.frames import feature_columns, raw_matrix
from ..core.io import read_json, read_parquet
from ..core.partitions import InMemory, OnParts, per_mode
from ..core.task import Classification, Regression, Target
from .feature_blocks import INPUTS, part_outputs
from .regression import row_outputs as regression_outputs


def row_outputs(target: Target, predictor, X) -> dict:
    """{name: an array with a row per row of X} for the target's kind."""
    return ROW_OUTPUTS[target.task](target, predictor, X)


def classification_outputs(target: Classification, predictor, X) -> dict:
    return {"scores": predictor.scores(X)}


def regressor_outputs(target: Regression, predictor, X) -> dict:
    return regression_outputs(predictor, X)


# by task
ROW_OUTPUTS: dict[str, Callable[..., Any]] = {
    "binary": classification_outputs,
    "multiclass": classification_outputs,
    "regression": regressor_outputs,
}


@per_mode
def test_outputs(mode, params: dict, target: Target, predictor) -> tuple:
    """(the test rows: their row ids, target, group and sensitive columns at least; row_outputs of every test row), in
    the run's mode."""


@test_outputs.register
def _in_memory(mode: InMemory, params: dict, target: Target, predictor) -> tuple:
    test = read_parquet(paths.TEST, "split")
    return test, row_outputs(target, predictor, raw_matrix(test, *feature_columns(test.columns, params["data"])))


@test_outputs.register
def _on_parts(mode: OnParts, params: dict, target: Target, predictor) -> tuple:
    """Made part by part on the cluster."""
    data = params["data"]
    group = [data["group"]] if data["group"] else []
    columns = list(dict.fromkeys([paths.ROW_ID, data["target"], *group, *data["sensitive"]]))
    test = read_parquet(paths.TEST, "split", columns=columns)
    with dask_client(params["compute"]) as client:
        inputs = read_json(INPUTS, "features")
        return test, part_outputs(client, paths.TEST, inputs, row_outputs, target, predictor)
