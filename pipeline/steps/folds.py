"""The cross-validation splits: what the split stage checks before and after splitting (every class in every
fold's training part, enough groups; a regression target stratified by quantile bins), and the splits as one file:
for split k, `train_k` (how many times each training row enters
split k's fitting sample: 0/1, or the bootstrap multiplicity) and `valid_k` (row validated in split k).
One format serves every splitter: k-fold partitions, repeats, Monte-Carlo hold-outs and the bootstrap."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from mllib import registry
from mllib.base import GroupLabels
from mllib.model_selection import (
    check_no_group_overlap,
    fold_balance,
    more_than_gap_before,
    time_holdout_indices,
    train_test_split_indices,
)
from pipeline.core import build, paths
from pipeline.core.errors import PipelineError
from pipeline.core.frames import row_hashes
from pipeline.core.json_types import JSON
from pipeline.core.records import CopiesAcrossSplit, SplitReport, SplitTime, TrainTest
from pipeline.core.task import Target
from pipeline.core.task_inference import infer_target
from pipeline.core.timeline import chains_forward, shown, time_axis

# A guard, not a knob: each split costs one features fit and one model fit per candidate.
SplitList = list[tuple[np.ndarray, np.ndarray]]  # [(fitting rows, validation rows)]
Held = dict[str, Any]  # a time-ordered hold-out: {train, test, cut, in_gap, purged} (mllib.model_selection)

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
    """(fitting rows, repeated by multiplicity; validation rows) per split, in split order, as int32 positions below
    2**31 rows: five splits of 16M rows take 0.32 GB instead of 0.64."""
    n_splits = sum(c.startswith("valid_") for c in folds.columns)
    rows = np.arange(len(folds), dtype=np.int32 if len(folds) < 2**31 else np.int64)
    out = []
    for k in range(n_splits):
        counts = folds[f"train_{k}"].to_numpy()
        out.append((np.repeat(rows, counts), rows[folds[f"valid_{k}"].to_numpy()]))
    return out


def first_validating_split(splits: list[tuple[np.ndarray, np.ndarray]], n: int) -> np.ndarray:
    """Per row, the first split that validates it (-1: never validated). For k-fold this is the fold id;
    for the other splitters it still partitions the validated rows, keeping each group in one part."""
    fold = np.full(n, -1, dtype=np.int64)
    for k, (_, valid) in reversed(list(enumerate(splits))):
        fold[valid] = k
    return fold


def n_groups(codes: np.ndarray) -> int:
    """How many groups the rows hold, of group codes 0, 1, ... (a count, not a sort of 16M ids)."""
    return int(np.count_nonzero(np.bincount(codes)))


def check_feasible(
    y: np.ndarray, groups: np.ndarray | None, target: Target, cfg: JSON, strategy: str, data: JSON
) -> None:
    """Every class in the training rows and, for k-fold strategies, enough groups and rows of each class for the
    requested folds (one message naming the class and the fix); a regression target needs enough groups only.
    groups: each row's group code (0, 1, ...) or None."""
    k = cfg["n_splits"] if strategy in registry.REPEATED_SPLITTERS else 1
    if k > 1 and groups is not None and n_groups(groups) < k:
        raise PipelineError(
            f"split: the training rows hold {n_groups(groups)} groups of data.group {data['group']!r}, fewer "
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


def check_splits(splits: SplitList, y_train: np.ndarray, target: Target, strategy: str, data: JSON) -> None:
    """A model fitted without a class cannot score it: every training part holds every class."""
    for k, (fit, _) in enumerate(splits):
        missing = np.flatnonzero(target.class_counts(y_train[fit]) == 0)
        if missing.size:
            raise PipelineError(
                f"split: the training part of split {k} ({strategy}) has no row of class "
                f"{target.classes[missing[0]]!r} of data.target {data['target']!r} (its rows sit in too few groups); "
                "lower split.n_splits, use a stratified strategy, or merge the class into another"
            )


def check_enough_times(splits: SplitList, cfg: JSON, data: JSON) -> list[str]:
    """Forward chaining needs two splits at least (a spread of fold scores); fewer than asked is said (the note)."""
    if len(splits) < 2:
        raise PipelineError(
            f"split: the training rows' times of data.time {data['time']!r} give {len(splits)} forward-chaining "
            f"split(s) (split.n_splits = {cfg['n_splits']}, split.gap = {cfg['gap']}); at least 2 are needed: lower "
            "split.gap or split.test_size, or use a finer time column"
        )
    if len(splits) < cfg["n_splits"]:
        return [
            f"split: note: {len(splits)} forward-chaining splits, not split.n_splits = {cfg['n_splits']}: the "
            f"training rows hold too few distinct times of {data['time']!r} for more blocks of whole times"
        ]
    return []


def time_summary(held: Held, time: np.ndarray, unit: str, splits: SplitList, data: JSON, cfg: JSON) -> SplitTime:
    """split.json's "time": the cut, the gap, each part's span (as the report shows them), the rows in neither part,
    and per split the last fitting time and the first validation time (forward chaining; in `unit`)."""
    train_time, test_time = time[held["train"]], time[held["test"]]
    return SplitTime(
        column=data["time"],
        unit=unit,
        cut=shown(held["cut"], unit),
        gap=cfg["gap"],
        train_span=[shown(train_time.min(), unit), shown(train_time.max(), unit)],
        test_span=[shown(test_time.min(), unit), shown(test_time.max(), unit)],
        rows_in_gap=int(held["in_gap"].size),
        rows_purged=int(held["purged"].size),
        splits=[
            {
                "last_fit": float(train_time[fit].max()),
                "first_valid": float(train_time[valid].min()),
                "rows_fitted": int(len(fit)),
                # earlier rows left out because their group is validated in this split
                "rows_purged": int(
                    np.count_nonzero(more_than_gap_before(train_time, train_time[valid].min(), cfg["gap"])) - len(fit)
                ),
            }
            for fit, valid in splits
        ],
        note=left_out_note(held, cfg, data),
    )


def left_out_note(held: Held, cfg: JSON, data: JSON) -> str | None:
    """What a time-ordered hold-out left in neither part, or None."""
    parts = []
    if held["in_gap"].size:
        parts.append(f"{held['in_gap'].size} rows within split.gap = {cfg['gap']:g} of the test period")
    if held["purged"].size:
        parts.append(f"{held['purged'].size} earlier rows of {data['group']} values that reappear in the test period")
    return " and ".join(parts) + " are in neither part (not trained on, not tested)" if parts else None


def target_summary(target: Target, y_train: np.ndarray, y_test: np.ndarray) -> TrainTest:
    """The class shares of the training and test rows, or a regression target's mean, std and range."""
    return TrainTest(train=target.shares(y_train), test=target.shares(y_test))


TEST_FRACTION_TOLERANCE = 0.05  # achieved test share beyond split.test_size +- this: said in the run and the card


def test_fraction_note(achieved: float, asked: float, group: str | None, groups: np.ndarray | None) -> str | None:
    """A warning when the hold-out's share of the rows is far from split.test_size: the test set is a sample of
    whole groups, so one group holding most rows can make it much larger (or smaller) than asked. groups: each row's
    group code (0, 1, ...) or None."""
    if abs(achieved - asked) <= TEST_FRACTION_TOLERANCE:
        return None
    why = ""
    if groups is not None:
        counts = np.bincount(groups)
        why = f"; the largest {group} holds {counts.max() / counts.sum():.1%} of the rows and cannot be split"
    return (
        f"the test set holds {achieved:.1%} of the rows, split.test_size asks for {asked:.1%}{why}; the test "
        "figures describe that share"
    )


COPY_WARNING = 0.01  # a test set with more than this share of copies of training rows is flagged


def copies_across_split(
    test_frames: Iterable[pd.DataFrame], train_frames: Iterable[pd.DataFrame], group: str | None
) -> CopiesAcrossSplit:
    """Test rows equal to a training row in every column but the row id and data.group (the model's inputs and the
    target, as clean wrote them): the test score on those rows measures recall of the training rows, not
    generalisation to new ones. Frames: the test rows, then the training rows, in pieces (a partitioned table's
    parts, one at a time). By 128-bit row hashes (pipeline/steps/cleaning.row_hashes)."""

    def digests(frame: pd.DataFrame) -> np.ndarray:
        kept = frame.drop(columns=[c for c in (paths.ROW_ID, group) if c in frame.columns])
        return np.ascontiguousarray(row_hashes(kept)).view(np.dtype((np.void, 16))).ravel()

    test = np.concatenate([digests(frame) for frame in test_frames])
    copied = np.zeros(test.size, dtype=bool)
    for frame in train_frames:
        copied |= np.isin(test, digests(frame))
    count, share = int(copied.sum()), float(copied.mean()) if test.size else 0.0
    return CopiesAcrossSplit(
        test_rows=count,
        of=int(test.size),
        share=share,
        columns="every column but the row id" + (f" and {group}" if group else "") + ", the target included",
        warning=(
            f"{count} of {test.size} test rows ({share:.1%}) are exact copies of training rows, target included: the "
            "test figures partly measure how well the model recalls rows it was fitted on. Copies that are one "
            "record entered twice belong together: data.group names the id that keeps them on one side"
            if share > COPY_WARNING
            else None
        ),
    )


@dataclass
class Splits:
    """The split stage's result: the hold-out and the cross-validation splits of the training rows."""

    train: np.ndarray  # sorted positions of the training rows in the clean table
    test: np.ndarray
    splits: SplitList  # [(fitting rows, validation rows)] as positions among the training rows
    target: Target
    membership: pd.DataFrame  # the folds file (rows in training order)
    report: SplitReport
    notes: list[str]  # what the stage prints: fewer time splits than asked, a test fraction far from the asked one


def split_rows(df: pd.DataFrame, data: JSON, cfg: JSON, seed: int) -> Splits:
    """The hold-out and the splits from the row ids, the target and the group column of the clean rows alone (df
    may hold just those), checked: every class in every training part, no group on both sides of any split."""
    target = infer_target(df[data["target"]], data, str(paths.CLEAN))
    y = target.encode(df[data["target"]])
    stratum = target.strata(y)
    # each group as its rank among the sorted ids: the splitters order groups by id, so the splits are the same, and
    # the guards below need no sort of the ids per split
    labels = GroupLabels.of(df[data["group"]].to_numpy()) if data["group"] else None
    groups = None if labels is None else labels.codes
    row_ids, n_rows = df[paths.ROW_ID].to_numpy(), len(df)
    time, unit = time_axis(df[data["time"]], data["time"], str(paths.CLEAN)) if data["time"] else (None, None)
    del df  # the target, group and time columns: y, the codes and the times hold them now
    if cfg["strategy"] != "auto":
        strategy = cfg["strategy"]
    else:
        strategy = registry.TIME_SPLITTERS[0] if chains_forward(cfg, data) else target.split_strategy(data["group"])

    held = None
    try:
        if time is not None:  # the latest share of time; rows inside the gap and groups seen later leave training
            held = time_holdout_indices(time, cfg["test_size"], cfg["gap"], groups)
            train_idx, test_idx = held["train"], held["test"]
        else:
            train_idx, test_idx = train_test_split_indices(
                y=stratum,
                groups=groups,
                test_size=cfg["test_size"],
                stratify=strategy in registry.STRATIFIED_SPLITTERS,
                shuffle=cfg["shuffle"],
                random_state=seed,
            )
    except ValueError as exc:
        raise PipelineError(f"split: the hold-out of data.target {data['target']!r} (split.test_size): {exc}") from None
    y_train, groups_train = y[train_idx], None if groups is None else groups[train_idx]
    check_feasible(y_train, groups_train, target, cfg, strategy, data)
    splitter = build.splitter(cfg, strategy, seed)
    n_splits = splitter.get_n_splits(y=stratum[train_idx], groups=groups_train)
    if n_splits > MAX_SPLITS:
        raise PipelineError(
            f"split: split.strategy {strategy!r} makes {n_splits} splits of the training rows, more than "
            f"{MAX_SPLITS} (one features fit and one model fit per candidate each); use a k-fold strategy"
        )
    # a time splitter needs data.time (pipeline/core/config.py checks it)
    ordered = {"time": time[train_idx]} if time is not None and strategy in registry.TIME_SPLITTERS else {}
    try:
        splits = list(splitter.split(y=stratum[train_idx], groups=groups_train, **ordered))
    except ValueError as exc:
        raise PipelineError(f"split: {exc}") from None
    notes = check_enough_times(splits, cfg, data) if ordered else []
    check_splits(splits, y_train, target, strategy, data)  # every class in every training part
    if labels is not None:  # the guard: no group on both sides, for the hold-out and every split
        check_no_group_overlap(train_idx, test_idx, labels)
        for fit, valid in splits:
            check_no_group_overlap(fit, valid, labels[train_idx])

    fraction_note = test_fraction_note(len(test_idx) / n_rows, cfg["test_size"], data["group"], groups)
    notes += [f"split: warning: {fraction_note}"] if fraction_note else []
    validated = np.concatenate([valid for _, valid in splits])
    split_of_row = np.concatenate([np.full(len(valid), k) for k, (_, valid) in enumerate(splits)])
    report = SplitReport(
        strategy=strategy,
        strategy_setting=cfg["strategy"],
        n_splits=len(splits),
        test_size=cfg["test_size"],
        test_fraction=len(test_idx) / n_rows,  # achieved: whole groups move together, so it can differ
        test_fraction_note=fraction_note,
        task=target.task,
        classes=target.classes,
        rows=TrainTest(train=len(train_idx), test=len(test_idx)),
        target=target_summary(target, y_train, y[test_idx]),
        groups=None
        if groups is None or groups_train is None
        else TrainTest(train=n_groups(groups_train), test=n_groups(groups[test_idx])),
        rows_never_validated=int(len(train_idx) - np.unique(validated).size),
        time=None
        if held is None or time is None or unit is None
        else time_summary(held, time, unit, splits, data, cfg),
        # balance of every validation set, by class (regression: by quantile bin of the target); rows validated in
        # several splits count once per split
        folds=fold_balance(
            stratum[train_idx][validated], None if groups_train is None else groups_train[validated], split_of_row
        ),
    )
    return Splits(train_idx, test_idx, splits, target, membership(splits, row_ids[train_idx]), report, notes)
