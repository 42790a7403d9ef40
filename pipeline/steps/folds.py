"""The cross-validation splits: what the split stage checks before and after splitting (every class in every
fold's training part, enough groups; a regression target stratified by quantile bins), and the splits as one file:
for split k, `train_k` (how many times each training row enters
split k's fitting sample: 0/1, or the bootstrap multiplicity) and `valid_k` (row validated in split k).
One format serves every splitter: k-fold partitions, repeats, Monte-Carlo hold-outs and the bootstrap."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mllib import registry
from pipeline.core import paths
from pipeline.core.errors import PipelineError
from pipeline.core.task import Target

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


def check_feasible(y: np.ndarray, groups, target: Target, cfg: dict, strategy: str, data: dict) -> None:
    """Every class in the training rows and, for k-fold strategies, enough groups and rows of each class for the
    requested folds (one message naming the class and the fix); a regression target needs enough groups only."""
    k = cfg["n_splits"] if strategy in registry.REPEATED_SPLITTERS else 1
    if k > 1 and groups is not None and len(np.unique(groups)) < k:
        raise PipelineError(
            f"split: the training rows hold {len(np.unique(groups))} groups of data.group {data['group']!r}, fewer "
            f"than split.n_splits = {k}; lower split.n_splits or use a finer group column"
        )
    counts = target.class_counts(y)
    for code in np.flatnonzero(counts < k if k > 1 else counts == 0):
        raise PipelineError(
            f"split: class {target.classes[code]!r} of data.target {data['target']!r} has {counts[code]} training "
            f"rows, fewer than split.n_splits = {k} (every fold must see every class); lower split.n_splits, merge "
            "the class into another, or remove its rows"
            if k > 1
            else f"split: class {target.classes[code]!r} of data.target {data['target']!r} has no training rows "
            f"after the "
            "hold-out; it needs more rows (or remove it)"
        )


def check_splits(splits: list, y_train: np.ndarray, target: Target, strategy: str, data: dict) -> None:
    """A model fitted without a class cannot score it: every training part holds every class."""
    for k, (fit, _) in enumerate(splits):
        missing = np.flatnonzero(target.class_counts(y_train[fit]) == 0)
        if missing.size:
            raise PipelineError(
                f"split: the training part of split {k} ({strategy}) has no row of class "
                f"{target.classes[missing[0]]!r} of data.target {data['target']!r} (its rows sit in too few groups); "
                "lower split.n_splits, use a stratified strategy, or merge the class into another"
            )


def target_summary(target: Target, y_train: np.ndarray, y_test: np.ndarray) -> dict:
    """The class shares of the training and test rows, or a regression target's mean, std and range."""
    return {"train": target.shares(y_train), "test": target.shares(y_test)}


TEST_FRACTION_TOLERANCE = 0.05  # achieved test share beyond split.test_size +- this: said in the run and the card


def test_fraction_note(achieved: float, asked: float, group: str | None, groups) -> str | None:
    """A warning when the hold-out's share of the rows is far from split.test_size: the test set is a sample of
    whole groups, so one group holding most rows can make it much larger (or smaller) than asked."""
    if abs(achieved - asked) <= TEST_FRACTION_TOLERANCE:
        return None
    why = ""
    if groups is not None:
        _, counts = np.unique(groups, return_counts=True)
        why = f"; the largest {group} holds {counts.max() / counts.sum():.1%} of the rows and cannot be split"
    return (
        f"the test set holds {achieved:.1%} of the rows, split.test_size asks for {asked:.1%}{why}; the test "
        "figures describe that share"
    )
