"""Data cut into parts for the partitioned path's tests (pipeline/core/partitions.py): a frame written as uneven
Parquet or CSV parts, the default data's sample with what only the whole table shows, and a scratch project whose
data.path is a directory of parts."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from conftest import REPO, sample_frame, set_dotted


def write_parts(frame: pd.DataFrame, directory: Path, fmt: str = "parquet", cuts=(0.2, 0.55)) -> list[Path]:
    """The frame's rows cut into uneven parts part-0, part-1, ... in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    bounds = [0, *(int(c * len(frame)) for c in cuts), len(frame)]
    files = []
    for k in range(len(bounds) - 1):
        part = frame.iloc[bounds[k] : bounds[k + 1]]
        files.append(directory / f"part-{k}.{fmt}")
        if fmt == "parquet":
            part.to_parquet(files[-1], index=False)
        else:
            part.to_csv(files[-1], index=False)
    return files


def sample_with_traps() -> pd.DataFrame:
    """The default data's sample with what only the whole table shows: two rows of the first part repeated in the last
    (one person's record entered twice: clean removes them), `educdec` whole numbers except one gap in the middle part
    (float64 in every part, as in one file), and -0.0 beside 0.0 in a repeated row (one value to duplicated())."""
    frame = sample_frame()
    frame["educdec"] = frame["educdec"].round()
    frame.loc[int(0.3 * len(frame)), "educdec"] = np.nan
    first = frame.iloc[[3, 4]].copy()
    first.loc[first.index[0], "linc"] = 0.0
    frame.loc[3, "linc"] = -0.0
    return pd.concat([frame, first], ignore_index=True)


def make_parts_project(root: Path, frame: pd.DataFrame, data: dict, fmt: str = "parquet") -> Path:
    write_parts(frame, root / "data/raw/parts", fmt)
    shutil.copytree(REPO / "data/schemas", root / "data/schemas", dirs_exist_ok=True)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["data"] = {**data, "path": "data/raw/parts"}
    set_dotted(params, "compute.n_workers", 2)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root
