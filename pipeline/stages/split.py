"""The split stage: the hold-out test set and the cross-validation folds, made once and written as files
(seed 004, D4:505-554). Grouped by data.group so one person's rows never straddle a split (D4:509), stratified
by the target's classes when the strategy says so (auto: grouped and stratified with a group column, stratified
without); a runtime guard fails the stage if any group is on both sides. The target's task and classes are fixed
here (data/processed/target.json), so every later stage encodes the target the same way.

Sections cited: Ghent ML notes (seed 004): 3.3 Risks of Data Splitting and IID Assumption Fulfillment (505, 509)"""

from __future__ import annotations

import numpy as np

from mllib import registry
from mllib.model_selection import check_no_group_overlap, fold_balance, train_test_split_indices
from pipeline.core import build, paths
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError, run_stage
from pipeline.core.io import read_parquet, write_parquet
from pipeline.core.records import SplitReport
from pipeline.core.task_inference import infer_target
from pipeline.steps import folds
from pipeline.steps.folds import check_feasible, check_splits, target_summary, test_fraction_note


def main() -> None:
    params = load_params()
    data, cfg = params["data"], params["split"]
    df = read_parquet(paths.CLEAN, "clean")
    target = infer_target(df[data["target"]], data, str(paths.CLEAN))
    y = target.encode(df[data["target"]])
    stratum = target.strata(y)
    groups = df[data["group"]].to_numpy() if data["group"] else None
    strategy = target.split_strategy(data["group"]) if cfg["strategy"] == "auto" else cfg["strategy"]

    try:
        train_idx, test_idx = train_test_split_indices(
            y=stratum,
            groups=groups,
            test_size=cfg["test_size"],
            stratify=strategy in registry.STRATIFIED_SPLITTERS,
            shuffle=cfg["shuffle"],
            random_state=params["seed"],
        )
    except ValueError as exc:
        raise PipelineError(f"split: the hold-out of data.target {data['target']!r} (split.test_size): {exc}") from None
    y_train, groups_train = y[train_idx], None if groups is None else groups[train_idx]
    check_feasible(y_train, groups_train, target, cfg, strategy, data)
    splitter = build.splitter(cfg, strategy, params["seed"])
    n_splits = splitter.get_n_splits(y=stratum[train_idx], groups=groups_train)
    if n_splits > folds.MAX_SPLITS:
        raise PipelineError(
            f"split: split.strategy {strategy!r} makes {n_splits} splits of the training rows, more than "
            f"{folds.MAX_SPLITS} (one features fit and one model fit per candidate each); use a k-fold strategy"
        )
    try:
        splits = list(splitter.split(y=stratum[train_idx], groups=groups_train))
    except ValueError as exc:
        raise PipelineError(f"split: {exc}") from None
    check_splits(splits, y_train, target, strategy, data)  # every class in every training part
    if groups is not None:  # the guard: no group on both sides, for the hold-out and every split
        check_no_group_overlap(train_idx, test_idx, groups)
        for fit, valid in splits:
            check_no_group_overlap(fit, valid, groups_train)

    train, test = df.iloc[train_idx], df.iloc[test_idx]
    fraction_note = test_fraction_note(len(test) / len(df), cfg["test_size"], data["group"], groups)
    if fraction_note:
        print(f"split: warning: {fraction_note}")
    membership = folds.membership(splits, train[paths.ROW_ID].to_numpy())
    validated = np.concatenate([valid for _, valid in splits])
    split_of_row = np.concatenate([np.full(len(valid), k) for k, (_, valid) in enumerate(splits)])
    report = SplitReport(
        strategy=strategy,
        strategy_setting=cfg["strategy"],
        n_splits=len(splits),
        test_size=cfg["test_size"],
        test_fraction=len(test) / len(df),  # achieved: whole groups move together, so it can differ
        test_fraction_note=fraction_note,
        task=target.task,
        classes=target.classes,
        rows={"train": len(train), "test": len(test)},
        target=target_summary(target, y_train, y[test_idx]),
        groups=None
        if groups is None
        else {"train": int(len(np.unique(groups_train))), "test": int(len(np.unique(groups[test_idx])))},
        rows_never_validated=int(len(train) - np.unique(validated).size),
        # balance of every validation set, by class (regression: by quantile bin of the target); rows validated in
        # several splits count once per split
        folds=fold_balance(
            stratum[train_idx][validated], None if groups is None else groups_train[validated], split_of_row
        ),
    )
    print(
        f"split: {len(train)} training rows in {len(splits)} {strategy} splits, {len(test)} test rows; "
        f"{target.describe()}"
    )
    write_parquet(train.reset_index(drop=True), paths.TRAIN)
    write_parquet(test.reset_index(drop=True), paths.TEST)
    write_parquet(membership, paths.FOLDS)
    target.write(paths.TARGET)
    report.write()


if __name__ == "__main__":
    run_stage(main)
