"""The input contract of the workspace's model, built from the training rows: what track logs beside the served
model and what the monitor checks a batch by. Apart from contract.py because the served model never builds it (it
reads input_contract.json), so its code does not load the pipeline's file readers."""

from __future__ import annotations

from ..core import paths
from ..core.frames import feature_columns, numbers_or_days, time_input
from ..core.io import read_parquet
from ..core.json_types import JSON
from ..core.partitions import table_head
from .contract import InputContract, limits_of


def workspace_contract(params: JSON) -> InputContract:
    """The contract of the workspace's model (what track logs beside it, and what the monitor checks a batch by): its
    feature columns, the levels the encoder saw and each numeric column's range, from the training rows, one column
    at a time at any size."""
    head, n_rows = table_head(paths.TRAIN, "split", 1)
    numeric, categorical = feature_columns(head.columns, params["data"])
    factor = params["validate"]["extreme_factor"]
    time = time_input(params["data"])
    unit = numbers_or_days(head[time[0]])[1] if time else ""
    limits = {}
    # columns read a few at a time: about 4M values at once at any size (one read per column of a 2,308-column file
    # parsed its metadata 2,308 times: 110 s)
    per_read = max(1, 2**22 // max(n_rows, 1))
    for start in range(0, len(numeric), per_read):
        chunk = read_parquet(paths.TRAIN, "split", columns=numeric[start : start + per_read])
        for c in chunk.columns:
            values = chunk[c]
            if time and c == time[0]:  # the first and last training times; no extreme rule for a time
                t = numbers_or_days(values)[0]
                limits[c] = [float(t.min()), float(t.max()), None]
            else:
                limits[c] = limits_of(values, factor)
        del chunk
    return InputContract.of(
        read_parquet(paths.TRAIN, "split", columns=categorical),  # the levels the encoder saw
        numeric,
        categorical,
        params["data"]["sensitive"],
        params["validate"],
        params["features"]["encoder"]["params"],
        limits,
        params["features"]["categorical_imputer"],
        (time[0], unit) if time else None,
    )
