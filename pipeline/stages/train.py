"""The train stage: hyperparameter search over the fixed folds (seed 004, D4:529-543: average the k validation
scores to choose, then refit on all training data), out-of-fold predictions of the chosen configuration for
the calibrate stage, and the train-vs-validation gap per candidate (D4:556-560).

Sections cited: Ghent ML notes (seed 004): 3.4 Robust Validation Strategies (529); 3.5 Analysis of Model Performance
    (556)"""

from __future__ import annotations

from contextlib import ExitStack
from functools import partial
from typing import Any

import pandas as pd

from mllib import io as mlio
from mllib.base import record_convergence
from mllib.baseline import MeanRegressor, PriorClassifier
from mllib.model_selection import evaluate_candidates
from pipeline.core import build, paths
from pipeline.core.compute import TaskRunner, own_threads
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.frames import score_columns
from pipeline.core.io import read_parquet, write_estimators, write_json, write_parquet
from pipeline.core.json_types import JSON
from pipeline.core.partitions import data_mode
from pipeline.core.task import Target
from pipeline.steps import folds
from pipeline.steps.comparison import choose_model, summary_lines
from pipeline.steps.feature_blocks import training_rows
from pipeline.steps.target_transform import choose_scale, log_settings
from pipeline.steps.training import (
    no_inputs,
    out_of_fold_scores,
    pooled_score,
    search_model,
    search_reports,
    train_metrics,
)

# by task: the no-skill model the chosen one is compared with (the training rows' class prior, or their mean)
NO_SKILL = {"binary": PriorClassifier, "multiclass": PriorClassifier, "regression": MeanRegressor}


def main() -> None:
    params = load_params()
    data, model_cfg, seed = params["data"], params["model"], params["seed"]
    target = Target.read(paths.TARGET)
    scorer = build.scorer("search.scoring", params["search"]["scoring"], target)
    mode = data_mode(params, paths.TRAIN)
    names, left_out = mode.fitted_models(build.model_names(model_cfg, target), model_cfg, target, seed)
    group = data["group"]  # the folds' group-aware fits (early stopping's hold-outs): on parts as in memory
    train = read_parquet(paths.TRAIN, "split", columns=[paths.ROW_ID, data["target"], *([group] if group else [])])
    splits = folds.splits_of(read_parquet(paths.FOLDS, "split"))
    y = target.encode(train[data["target"]])
    groups = train[group].to_numpy() if group else None
    train = train[[paths.ROW_ID]]  # the rest is in y and groups
    print(f"train: {target.task} target, {len(y)} rows, {len(splits)} splits")

    def search(fold_data: Any, run_tasks: TaskRunner | None = None) -> dict[str, tuple[list[JSON], int]]:
        # fold_data: evaluate_candidates' (fold tuples, an mllib FoldData, or the cluster's folds)
        return {
            name: search_model(name, params["model"], params["search"], fold_data, scorer, seed, run_tasks)
            for name in names
        }

    with ExitStack() as cluster:
        fold_data, runner, refit = training_rows(mode, cluster, params, names, target, y, splits, groups)
        with runner as run_tasks:
            searched = search(fold_data, run_tasks)
            name, comparison = choose_model(searched, splits, scorer, model_cfg["selection"], left_out)
            for line in summary_lines(comparison, scorer.name) if comparison else []:
                print(line)
            search_log = partial(search_model, name, model_cfg, params["search"], fold_data, scorer, seed, run_tasks)
            transform, (results, best_i) = choose_scale(
                model_cfg["target_transform"], target, y, splits, scorer, searched[name], search_log
            )
        if transform:
            print(f"train: fitted on {transform.statement}")
        no_skill = NO_SKILL[target.task]()
        baseline = evaluate_candidates(no_skill, [{}], no_inputs(y, splits), scorer)[0]  # the same folds and scorer
        best = results[best_i]
        pooled = pooled_score(best, y, splits, scorer)
        print(
            f"train: best {name} {best['params']} ({scorer.name} {best['mean_valid_score']:.4f}, pooled out-of-fold "
            f"{pooled['pooled']:.4f}); refitting on {len(y)} rows"
        )
        if pooled["note"]:
            print(f"train: note: {pooled['note']}")

        fold_models = [mlio.from_state(*state) for state in best["model_states"]]
        score = out_of_fold_scores(fold_models, fold_data, splits, len(y), target)
        fold, n_splits = folds.first_validating_split(splits, len(y)), len(splits)
        del fold_data, splits, best["oof_values"]  # the last split's rows and what is in `score`, before the refit
        with record_convergence() as refit_stopped:
            final = build.model(name, model_cfg, seed, log_settings(transform), **best["params"])
            with own_threads(final, params["compute"]):  # no worker runs now: the refit may use every core
                refit(final)
    for message in refit_stopped:
        print(f"train: warning: the refit on all training rows stopped at its iteration cap: {message}")
    oof = pd.DataFrame({paths.ROW_ID: train[paths.ROW_ID], "fold": fold, "y": y, **score_columns(score)})

    metrics = train_metrics(
        name, target, scorer, len(results), best, pooled, n_splits, refit_stopped, baseline, comparison, transform
    )
    mlio.save(final, paths.MODEL)
    write_estimators(fold_models, paths.FOLD_MODELS)
    write_parquet(oof, paths.OOF_PREDICTIONS)
    search_report, curve = search_reports(results, best_i, scorer)
    search_report.write()
    write_json(curve, paths.VALIDATION_CURVE)
    metrics.write()


if __name__ == "__main__":
    run_stage(main)
