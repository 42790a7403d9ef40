"""The clean stage on a partitioned table (pipeline/core/partitions.py): two passes over the parts on the cluster.
The first finds what needs every row: the rows repeating an earlier row of any part, and the columns equal to an
earlier column in every part. The second cleans each part with those facts (pipeline/steps/cleaning.clean, the
in-memory path's code) and writes it; the parts' records merge into the one report.

A row repeats an earlier one when two independent 64-bit hashes of its values (pandas' hash_pandas_object under two
keys, -0.0 read as 0.0 as DataFrame.duplicated reads it) equal an earlier row's: 128 bits, so a false match among
10^8 rows has a probability below 10^-22. A column repeats an earlier one when its fingerprint equals the earlier's in
every part (pipeline/steps/cleaning.column_fingerprints): one pass over the columns, not one per pair."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core import paths
from ..core.frames import row_hashes
from ..core.io import write_parquet
from ..core.json_types import JSON
from ..core.partitions import Parts, map_parts
from ..core.task import Target
from .cleaning import (
    Cleaned,
    clean,
    column_fingerprints,
    duplicate_columns,
    fixed_values,
    protected_columns,
)

if TYPE_CHECKING:
    from distributed import Client


@dataclass(frozen=True)
class TableFacts:
    """What clean needs of the whole table when it cleans one part."""

    duplicate_ids: np.ndarray  # row ids of the rows repeating an earlier row of the table
    repeats: dict[str, str]  # column -> the earlier column it equals in every part


def _survey(
    k: int, files: dict[str, Path], parts: Parts, data: JSON, cfg: JSON
) -> tuple[np.ndarray, pd.DataFrame, dict[str, bytes]]:
    df, _, _ = fixed_values(parts.read(k), data, cfg)
    columns = [c for c in df.columns if c != paths.ROW_ID]
    fingerprints = column_fingerprints(df) if cfg["drop_duplicate_columns"] else {}
    return df[paths.ROW_ID].to_numpy().copy(), pd.DataFrame(row_hashes(df[columns])), fingerprints


def table_facts(client: Client, parts: Parts, data: JSON, cfg: JSON, target: Target) -> list[TableFacts]:
    """The facts, for each part (its own duplicate rows)."""
    surveys = map_parts(client, _survey, len(parts.files), {}, parts=parts, data=data, cfg=cfg)
    hashes = pd.concat([s[1] for s in surveys], ignore_index=True)
    repeated = hashes.duplicated(keep="first").to_numpy()
    joined = {col: b"".join(s[2][col] for s in surveys) for col in surveys[0][2]}  # equal in every part
    repeats = duplicate_columns(joined, protected_columns(data, target))
    bounds = np.cumsum([0, *(len(s[0]) for s in surveys)])
    return [TableFacts(surveys[k][0][repeated[bounds[k] : bounds[k + 1]]], repeats) for k in range(len(surveys))]


def _clean_part(
    k: int, files: dict[str, Path], facts: TableFacts, parts: Parts, data: JSON, cfg: JSON, target: Target
) -> Cleaned:
    df, done = clean(parts.read(k), data, cfg, target, facts)
    write_parquet(df.reset_index(drop=True), files["clean"])
    return done


def clean_parts(
    client: Client, parts: Parts, staged: dict[str, Path], data: JSON, cfg: JSON, target: Target
) -> Cleaned:
    """Every part cleaned and written into the staged clean output ({"clean": dir}); what was done, merged."""
    facts = table_facts(client, parts, data, cfg, target)
    done = map_parts(
        client, _clean_part, len(parts.files), staged, facts, parts=parts, data=data, cfg=cfg, target=target
    )
    return Cleaned.merge(done)
