"""Stage 3, split: the hold-out test set and the cross-validation folds, made once and written as files
(seed 004, D4:505-554). Grouped by data.group so one person's rows never straddle a split (D4:509), stratified
by the target when the strategy says so; a runtime guard fails the stage if any group is on both sides."""
from __future__ import annotations

import numpy as np

from mllib.model_selection import check_no_group_overlap, fold_balance, train_test_split_indices
from pipeline import build, folds, paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.frames import binary_target
from pipeline.io import read_parquet, write_json, write_parquet


def check_feasible(y: np.ndarray, groups, cfg: dict, data: dict) -> None:
    """Enough groups and enough rows of each class for the requested folds (one clear message)."""
    if cfg["strategy"] not in build.KFOLD_SPLITTERS:
        return  # the leave-out, shuffle and bootstrap splitters need no minimum per fold
    k = cfg["n_splits"]
    if groups is not None and len(np.unique(groups)) < k:
        raise PipelineError(
            f"split: the training rows hold {len(np.unique(groups))} groups of data.group {data['group']!r}, fewer "
            f"than split.n_splits = {k}; lower split.n_splits or use a finer group column"
        )
    if cfg["strategy"] in build.STRATIFIED_STRATEGIES and np.bincount(y, minlength=2).min() < k:
        raise PipelineError(
            f"split: the smallest class of data.target {data['target']!r} has {np.bincount(y, minlength=2).min()} "
            f"training rows, fewer than split.n_splits = {k}; lower split.n_splits"
        )


def main() -> None:
    params = load_params()
    data, cfg = params["data"], params["split"]
    df = read_parquet(paths.CLEAN, "clean")
    y = binary_target(df[data["target"]], data["positive_label"])
    groups = df[data["group"]].to_numpy() if data["group"] else None
    stratify = cfg["strategy"] in build.STRATIFIED_STRATEGIES

    train_idx, test_idx = train_test_split_indices(
        y=y, groups=groups, test_size=cfg["test_size"], stratify=stratify, shuffle=cfg["shuffle"], random_state=params["seed"]
    )
    y_train, groups_train = y[train_idx], None if groups is None else groups[train_idx]
    check_feasible(y_train, groups_train, cfg, data)
    splitter = build.splitter(cfg, params["seed"])
    n_splits = splitter.get_n_splits(y=y_train, groups=groups_train)
    if n_splits > folds.MAX_SPLITS:
        raise PipelineError(
            f"split: split.strategy {cfg['strategy']!r} makes {n_splits} splits of the training rows, more than "
            f"{folds.MAX_SPLITS} (one features fit and one model fit per candidate each); use a k-fold strategy"
        )
    try:
        splits = list(splitter.split(y=y_train, groups=groups_train))
    except ValueError as exc:
        raise PipelineError(f"split: {exc}") from None
    if groups is not None:  # the guard: no group on both sides, for the hold-out and every split
        check_no_group_overlap(train_idx, test_idx, groups)
        for fit, valid in splits:
            check_no_group_overlap(fit, valid, groups_train)

    train, test = df.iloc[train_idx], df.iloc[test_idx]
    membership = folds.membership(splits, train[paths.ROW_ID].to_numpy())
    validated = np.concatenate([valid for _, valid in splits])
    split_of_row = np.concatenate([np.full(len(valid), k) for k, (_, valid) in enumerate(splits)])
    report = {
        "strategy": cfg["strategy"], "n_splits": len(splits), "test_size": cfg["test_size"],
        "rows": {"train": len(train), "test": len(test)},
        "positive_rate": {"train": float(y_train.mean()), "test": float(y[test_idx].mean())},
        "groups": None if groups is None else {"train": int(len(np.unique(groups_train))), "test": int(len(np.unique(groups[test_idx])))},
        "rows_never_validated": int(len(train) - np.unique(validated).size),
        # class balance of every validation set (rows validated in several splits count once per split)
        "folds": fold_balance(y_train[validated], None if groups is None else groups_train[validated], split_of_row),
    }
    print(f"split: {len(train)} training rows in {len(splits)} {cfg['strategy']} splits, {len(test)} test rows")
    write_parquet(train.reset_index(drop=True), paths.TRAIN)
    write_parquet(test.reset_index(drop=True), paths.TEST)
    write_parquet(membership, paths.FOLDS)
    write_json(report, paths.SPLIT_REPORT)


if __name__ == "__main__":
    run_stage(main)
