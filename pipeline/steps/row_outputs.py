"""What the evaluate stage needs of each test row, for the target's kind: the deployed classifier's scores, or the
deployed regressor's prediction and intervals. A function of each row alone, so the partitioned path computes it
part by part where the parts are (pipeline/steps/feature_blocks.part_outputs) and the metrics are made from the
gathered outputs as in memory."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from mllib.base import MixedMatrix
from mllib.deploy import DeployedPredictor, DeployedRegressor

from ..core import paths
from ..core.compute import dask_client
from ..core.frames import feature_columns, raw_matrix
from ..core.io import read_json, read_parquet
from ..core.json_types import JSON
from ..core.partitions import InMemory, Mode, OnParts, per_mode
from ..core.task import Classification, Regression, Target
from .feature_blocks import INPUTS, part_outputs
from .regression import row_outputs as regression_outputs

# the deployed model (task_base.Predictor), here at run time: singledispatch's register reads the registered
# functions' annotations
Predictor = DeployedPredictor | DeployedRegressor
RowOutputs = dict[str, np.ndarray]  # {name: an array with a row per row of X}


def row_outputs(target: Target, predictor: Predictor, X: MixedMatrix) -> RowOutputs:
    """{name: an array with a row per row of X} for the target's kind."""
    return ROW_OUTPUTS[target.task](target, predictor, X)


def classification_outputs(target: Classification, predictor: DeployedPredictor, X: MixedMatrix) -> RowOutputs:
    return {"scores": predictor.scores(X)}


def regressor_outputs(target: Regression, predictor: DeployedRegressor, X: MixedMatrix) -> RowOutputs:
    return regression_outputs(predictor, X)


# by task
ROW_OUTPUTS: dict[str, Callable[..., RowOutputs]] = {
    "binary": classification_outputs,
    "multiclass": classification_outputs,
    "regression": regressor_outputs,
}


@per_mode
def test_outputs(mode: Mode, params: JSON, target: Target, predictor: Predictor) -> tuple[pd.DataFrame, RowOutputs]:
    """(the test rows: their row ids, target, group and sensitive columns at least; row_outputs of every test row), in
    the run's mode."""


@test_outputs.register
def _in_memory(mode: InMemory, params: JSON, target: Target, predictor: Predictor) -> tuple[pd.DataFrame, RowOutputs]:
    test = read_parquet(paths.TEST, "split")
    return test, row_outputs(target, predictor, raw_matrix(test, *feature_columns(test.columns, params["data"])))


@test_outputs.register
def _on_parts(mode: OnParts, params: JSON, target: Target, predictor: Predictor) -> tuple[pd.DataFrame, RowOutputs]:
    """Made part by part on the cluster."""
    data = params["data"]
    group = [data["group"]] if data["group"] else []
    columns = list(dict.fromkeys([paths.ROW_ID, data["target"], *group, *data["sensitive"]]))
    test = read_parquet(paths.TEST, "split", columns=columns)
    with dask_client(params["compute"]) as client:
        inputs = read_json(INPUTS, "features")
        return test, part_outputs(client, paths.TEST, inputs, row_outputs, target, predictor)
