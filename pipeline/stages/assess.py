"""The assess stage: how much to trust the cross-validated score of the chosen model (pipeline/steps/assessment.py):
the leakage estimate (the same configuration scored by a row-level CV, beside the grouped CV of the search), nested
CV around the whole search (its unbiased estimate and optimism), the learning curve with its diagnosis and a
validation curve of one hyperparameter. The no-skill baselines are scored by train and evaluate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mllib.model_selection import FoldData
from pipeline.core import build, paths
from pipeline.core.assessment_records import Assessment, SweepNote
from pipeline.core.compute import Plan, plan_workers, run_plans
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.io import write_json
from pipeline.core.json_types import JSON
from pipeline.core.records import SearchReport, TrainMetrics
from pipeline.core.task import Target
from pipeline.steps.assessment import (
    assessed_rows,
    diagnosed,
    leakage_estimate,
    learning_curves,
    refit_limit,
    single_feature_check,
    temporal_leakage_estimate,
    validation_sweep,
)
from pipeline.steps.nested_cv import nested_report
from pipeline.steps.target_transform import log_settings

if TYPE_CHECKING:
    from mllib.base import BaseEstimator


def main() -> None:
    params = load_params()
    data, cfg, seed = params["data"], params["assess"], params["seed"]
    target = Target.read(paths.TARGET)
    trained, search = TrainMetrics.read(), SearchReport.read()
    scorer = build.scorer("search.scoring", trained.scoring, target)
    name = trained.model
    sweep = cfg["validation_curve"].get(name)
    if sweep:
        build.check_hyperparameter_names(f"assess.validation_curve.{name}", name, sweep)
    rows = assessed_rows(cfg, data, target, seed)  # every training row, or a stated sample of whole groups
    y, groups, splits, features_of = rows.y, rows.groups, rows.splits, rows.features_of
    fold_data = FoldData(features_of, y, splits, groups)

    scale = log_settings(trained.target_transform)  # a regression target's log target, as train fitted it

    def make_model(**hyperparameters: object) -> BaseEstimator:
        return build.model(name, params["model"], seed, scale, **{**trained.best_params, **hyperparameters})

    best = search.candidates[search.best_index]
    search_scores = best.valid_scores
    # the search's fits of the chosen configuration are nested CV's and the learning curve's whole-split fits when
    # assess reads the same rows in the same matrices (not a sample; the matrices written, not the partitioned path)
    repeats_search = rows.sample is None and all(paths.fold_features(k).exists() for k in range(len(splits)))
    whole = (best.train_scores, best.valid_scores) if repeats_search else None
    too_large = refit_limit(cfg, rows.n_training)  # why nested CV and the validation curve do not run, or None
    compared = [m.model for m in trained.comparison.models] if trained.comparison else [name]
    reusable = (name, trained.best_params) if repeats_search else None  # train's fold models: nested CV's outer fits
    plans: list[Plan[Any]] = [
        nested_report(params, target, scorer, rows, too_large, compared, scale, reusable),
        leakage_estimate(params, rows, make_model, scorer, search_scores, target.classifies),
        temporal_leakage_estimate(params, rows, make_model, scorer, search_scores),
        single_feature_check(cfg, target, features_of, y, splits, seed),
    ]
    if cfg["learning_curve"]:
        fractions = cfg["train_fractions"]
        plans.append(learning_curves(features_of, y, splits, make_model, scorer, fractions, seed, groups, whole))
    # the steps' per-split refits in one pool of worker processes (compute.n_workers), the costliest first
    nested, leakage, temporal_leakage, single_feature, *curve = run_plans(
        plans, plan_workers(params["compute"]), "assess: per-split refits"
    )
    print(f"assess: single features: {single_feature.statement}")
    learning_curve, curve_rows = diagnosed(curve[0], scorer) if curve else (None, list[JSON]())
    swept, sweep_rows = SweepNote(statement=f"not run: assess.validation_curve has no entry for {name}"), []
    if sweep and too_large:
        swept = SweepNote(statement=too_large)
        print(f"assess: validation curve {too_large}")
    elif sweep:
        [(parameter, values)] = sweep.items()
        searched = [] if rows.sample else [c.to_json() for c in search.candidates]  # scored on these folds
        sweep_rows = validation_sweep(make_model(), trained.best_params, parameter, values, fold_data, scorer, searched)
        swept = SweepNote(parameter=parameter, values=values)
    Assessment(scoring=scorer.name, model=name, best_params=trained.best_params, leakage=leakage,
               temporal_leakage=temporal_leakage, single_feature=single_feature, nested=nested,
               learning_curve=learning_curve, validation_curve=swept, sample=rows.sample or None).write()  # fmt: skip
    write_json(curve_rows, paths.LEARNING_CURVE)
    write_json(sweep_rows, paths.SWEEP_CURVE)


if __name__ == "__main__":
    run_stage(main)
