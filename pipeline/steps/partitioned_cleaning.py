"""The clean stage on a partitioned table (pipeline/core/partitions.py): two passes over the parts on the cluster.
The first finds what needs every row: the rows repeating an earlier row of any part, and the columns equal to an
earlier column in every part. The second cleans each part with those facts (pipeline/steps/cleaning.clean, the
in-memory path's code) and writes it; the parts' records merge into the one report.

A row repeats an earlier one when two independent 64-bit hashes of its values (pandas' hash_pandas_object under two
keys, -0.0 read as 0.0 as DataFrame.duplicated reads it) equal an earlier row's: 128 bits, so a false match among
10^8 rows has a probability below 10^-22."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core import paths
from ..core.io import write_parquet
from ..core.partitions import Parts, map_parts
from ..core.task import Target
from .cleaning import Cleaned, clean, duplicate_columns, fixed_values, protected_columns

_HASH_KEYS = ("defensible-ml-01", "defensible-ml-02")  # 16 characters each


@dataclass(frozen=True)
class TableFacts:
    """What clean needs of the whole table when it cleans one part."""

    duplicate_ids: np.ndarray  # row ids of the rows repeating an earlier row of the table
    repeats: dict[str, str]  # column -> the earlier column it equals in every part


def _row_hashes(values: pd.DataFrame) -> pd.DataFrame:
    values = values.apply(lambda c: c + 0.0 if pd.api.types.is_float_dtype(c) else c)  # -0.0 is 0.0
    return pd.DataFrame(
        {key: pd.util.hash_pandas_object(values, index=False, hash_key=key).to_numpy() for key in _HASH_KEYS}
    )


def _survey(k: int, files: dict, parts: Parts, data: dict, cfg: dict, protected: set):
    df, _, _ = fixed_values(parts.read(k), data, cfg)
    columns = [c for c in df.columns if c != paths.ROW_ID]
    equal = {}
    if cfg["drop_duplicate_columns"]:
        equal = {
            (col, earlier): df[col].equals(df[earlier])
            for i, col in enumerate(columns)
            if col not in protected
            for earlier in columns[:i]
        }
    return df[paths.ROW_ID].to_numpy().copy(), _row_hashes(df[columns]), equal, columns


def table_facts(client, parts: Parts, data: dict, cfg: dict, target: Target) -> list[TableFacts]:
    """The facts, for each part (its own duplicate rows)."""
    protected = protected_columns(data, target)
    surveys = map_parts(client, _survey, len(parts.files), {}, parts=parts, data=data, cfg=cfg, protected=protected)
    hashes = pd.concat([s[1] for s in surveys], ignore_index=True)
    repeated = hashes.duplicated(keep="first").to_numpy()
    columns = surveys[0][3]
    equal = {pair: all(s[2][pair] for s in surveys) for pair in surveys[0][2]}
    repeats = duplicate_columns(pd.DataFrame(columns=columns), protected, lambda c, e: equal[(c, e)])
    bounds = np.cumsum([0, *(len(s[0]) for s in surveys)])
    return [TableFacts(surveys[k][0][repeated[bounds[k] : bounds[k + 1]]], repeats) for k in range(len(surveys))]


def _clean_part(k: int, files: dict, facts: TableFacts, parts: Parts, data: dict, cfg: dict, target: Target) -> Cleaned:
    df, done = clean(parts.read(k), data, cfg, target, facts)
    write_parquet(df.reset_index(drop=True), files["clean"])
    return done


def clean_parts(client, parts: Parts, staged: dict, data: dict, cfg: dict, target: Target) -> Cleaned:
    """Every part cleaned and written into the staged clean output ({"clean": dir}); what was done, merged."""
    facts = table_facts(client, parts, data, cfg, target)
    done = map_parts(
        client, _clean_part, len(parts.files), staged, facts, parts=parts, data=data, cfg=cfg, target=target
    )
    return Cleaned.merge(done)
