"""The input contract of the workspace's model, built from the training rows: what track logs beside the served
model and what the monitor checks a batch by. Apart from contract.py because the served model never builds it (it
reads input_contract.json), so its code does not load the pipeline's file readers."""

from __future__ import annotations

from ..core import paths
from ..core.frames import feature_columns
from ..core.io import read_parquet
from ..core.partitions import table_head
from .contract import InputContract, limits_of


def workspace_contract(params: dict) -> InputContract:
    """The contract of the workspace's model (what track logs beside it, and what the monitor checks a batch by): its
    feature columns, the levels the encoder saw and each numeric column's range, from the training rows, one column
    at a time at any size."""
    head, _ = table_head(paths.TRAIN, "split", 1)
    numeric, categorical = feature_columns(head.columns, params["data"])
    factor = params["validate"]["extreme_factor"]
    return InputContract.of(
        read_parquet(paths.TRAIN, "split", columns=categorical),  # the levels the encoder saw
        numeric,
        categorical,
        params["data"]["sensitive"],
        params["validate"],
        params["features"]["encoder"]["params"],
        {c: limits_of(read_parquet(paths.TRAIN, "split", columns=[c])[c], factor) for c in numeric},
        params["features"]["categorical_imputer"],
    )
