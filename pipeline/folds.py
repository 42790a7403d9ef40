"""The cross-validation splits as one file: for split k, `train_k` (how many times each training row enters
split k's fitting sample: 0/1, or the bootstrap multiplicity) and `valid_k` (row validated in split k).
One format serves every splitter: k-fold partitions, repeats, Monte-Carlo hold-outs and the bootstrap."""
from __future__ import annotations

import numpy as np
import pandas as pd

from pipeline import paths

# A guard, not a knob: each split costs one features fit and one model fit per candidate.
MAX_SPLITS = 200


def membership(splits: list[tuple[np.ndarray, np.ndarray]], row_ids: np.ndarray) -> pd.DataFrame:
    n = len(row_ids)
    columns = {paths.ROW_ID: row_ids}
    for k, (train, valid) in enumerate(splits):
        columns[f"train_{k}"] = np.bincount(train, minlength=n).astype(np.int32)
        is_valid = np.zeros(n, dtype=bool)
        is_valid[valid] = True
        columns[f"valid_{k}"] = is_valid
    return pd.DataFrame(columns)


def splits_of(folds: pd.DataFrame) -> list[tuple[np.ndarray, np.ndarray]]:
    """(fitting rows, repeated by multiplicity; validation rows) per split, in split order."""
    n_splits = sum(c.startswith("valid_") for c in folds.columns)
    out = []
    for k in range(n_splits):
        counts = folds[f"train_{k}"].to_numpy()
        out.append((np.repeat(np.arange(len(folds)), counts), np.flatnonzero(folds[f"valid_{k}"].to_numpy())))
    return out


def first_validating_split(splits: list[tuple[np.ndarray, np.ndarray]], n: int) -> np.ndarray:
    """Per row, the first split that validates it (-1: never validated). For k-fold this is the fold id;
    for the other splitters it still partitions the validated rows, keeping each group in one part."""
    fold = np.full(n, -1, dtype=np.int64)
    for k, (_, valid) in reversed(list(enumerate(splits))):
        fold[valid] = k
    return fold
