"""The train stage's work: one model's search over its grid on the fixed splits (the features stage's matrix per
split), and the chosen configuration's out-of-fold scores with the fold models (mllib.model_selection.cross_fit)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from mllib.calibration import decision_scores
from mllib.model_selection import (
    BlockFold,
    FoldData,
    ParameterGrid,
    ParameterSampler,
    best_candidate_index,
    cross_fit,
    evaluate_candidates,
)
from mllib.regression import fitted_scale_prediction

from ..core import build
from ..core.json_types import JSON
from ..core.progress import Progress
from ..core.records import ABSENT, Baseline, Candidate, NotConverged, SearchReport, TrainMetrics

if TYPE_CHECKING:
    from mllib.base import BaseEstimator, Blocks, MixedMatrix
    from mllib.metrics.scorers import Scorer

    from ..core.compute import TaskRunner
    from ..core.records import Comparison, TargetTransform
    from ..core.task import Target
    from .folds import SplitList

    Block = tuple[MixedMatrix | np.ndarray, np.ndarray, np.ndarray | None]  # (X, y, sample_weight or None)

Search = tuple[list[JSON], int]  # a search's results and the index of the best (search_model)


class Folds(Protocol):
    """evaluate_candidates' fold_data, indexed by split: a list of fold tuples (X_fit, y_fit, X_valid, y_valid[,
    groups_fit]), an mllib FoldData (the same tuples, sliced when indexed) or feature_blocks.BlockFolds (a BlockFold
    each)."""

    def __len__(self) -> int: ...

    def __getitem__(self, k: int, /) -> tuple[Any, ...]: ...


def no_inputs(y: np.ndarray, splits: SplitList) -> FoldData:
    """The folds with one constant column for X: what a no-skill baseline (the target's no_skill: it ignores X) is
    scored on, without reading the features."""
    return FoldData(np.zeros((len(y), 1)), y, splits)


def candidate_params(search: JSON, model: str, seed: int) -> list[JSON]:
    """The chosen model's search.grid entry (none: a single candidate of its model.params)."""
    grid = search["grid"].get(model, {})
    if search["method"] == "grid" or not grid:
        return list(ParameterGrid(grid))
    return list(ParameterSampler(grid, n_iter=search["n_iter"], random_state=seed))


# by task: a fold model's out-of-fold output: its decision scores (what calibration maps to probabilities), or its
# prediction on the scale the model is fitted on (log(y + c) for a log target: the scale the conformal intervals are
# computed on)
FOLD_SCORES = {"binary": decision_scores, "multiclass": decision_scores, "regression": fitted_scale_prediction}
NO_SKILL_NAMES = {"binary": "class prior", "multiclass": "class prior", "regression": "mean"}  # the baseline's name


def out_of_fold_scores(
    fold_models: list[BaseEstimator], fold_data: Folds, splits: SplitList, n: int, target: Target
) -> np.ndarray:
    """The chosen configuration's scores of each row ((n,) binary scores or regression predictions, (n, K)
    log-probabilities) from the search's model of each split, fitted without the split's validation rows
    (mllib.model_selection.cross_fit: averaged over the splits that validate the row, NaN where none does). The
    search keeps scores only for its scorer's response, which need not be a score, hence FOLD_SCORES here."""

    def predict(k: int, fit: np.ndarray, valid: np.ndarray) -> np.ndarray:
        fold = fold_data[k]  # split by split: one in memory at a time
        if isinstance(fold, BlockFold):  # the validation rows' scores made where their parts are
            blocks = cast("Blocks", fold.valid)  # a BlockFold's parts are Blocks (mllib types the fields object)
            return np.concatenate(blocks.map(_block_scores, fold_models[k], target))
        return FOLD_SCORES[target.task](fold_models[k], fold[2])

    return cross_fit(predict, splits, n)


def _block_scores(block: Block, model: BaseEstimator, target: Target) -> np.ndarray:
    return FOLD_SCORES[target.task](model, block[0])


def search_model(
    name: str,
    model_cfg: JSON,
    search: JSON,
    fold_data: Folds,
    scorer: Scorer,
    seed: int,
    run_tasks: TaskRunner | None = None,
    target_transform: JSON | None = None,
) -> Search:
    """One model's search over its search.grid entry (params.yaml `search`; its settings in `model`) on the fixed
    folds: (results, index of the best); run_tasks:
    where the (candidate, fold) fits run (pipeline.core.compute); target_transform: build.model's (a log target).
    Every result keeps its fold models (mllib.io states), so the chosen one's out-of-fold scores need no refit."""
    for key, settings in (("model.params", model_cfg["params"]), ("search.grid", search["grid"])):
        build.check_hyperparameter_names(f"{key}.{name}", name, settings.get(name, {}))
    candidates = candidate_params(search, name, seed)
    on = "" if target_transform is None else " on the log target"
    print(f"train: {name}{on}, {len(candidates)} candidates x {len(fold_data)} folds, scoring {scorer.name}")
    results = evaluate_candidates(
        build.model(name, model_cfg, seed, target_transform),
        candidates,
        fold_data,
        scorer,
        progress=Progress(f"train: {name}{on} search (candidate x fold fits)"),
        run_tasks=run_tasks,
        keep_models=True,
    )
    for r in results:
        print(
            f"train:   {r['params']}  valid {r['mean_valid_score']:.4f} ± {r['std_valid_score']:.4f}  train "
            f"{r['mean_train_score']:.4f}"
        )
        if r["not_converged"]:
            print(
                f"train: warning: {name} {r['params']} stopped at its iteration cap on {len(r['not_converged'])} of "
                f"{len(fold_data)} folds: {r['not_converged'][0]['message']}"
            )
    best = best_candidate_index(results, scorer.greater_is_better)
    for r in results[:best] + results[best + 1 :]:  # only the chosen candidate's scores of the rows are read later
        del r["oof_values"]
    return results, best


def pooled_score(result: JSON, y: np.ndarray, splits: SplitList, scorer: Scorer) -> JSON:
    """The candidate's score on every split's validation rows pooled into one set (each row scored by the model of
    its split), beside the mean of the per-split scores, with a note when the two disagree beyond the mean's
    standard error: per-split scores of a few groups each are unstable (an R^2 of one or two groups' rows can be
    hugely negative while the pooled R^2 is fine), and the pooled value is then the steadier summary. Pooling ranks
    from different models mixes their scales, so for a ranking score the per-split mean stays the headline."""
    truth = np.concatenate([y[valid] for _, valid in splits])
    pooled = float(scorer.score(truth, np.concatenate(result["oof_values"], axis=0)))
    mean, k = result["mean_valid_score"], len(splits)
    se = float(np.std(result["valid_scores"], ddof=1) / np.sqrt(k)) if k > 1 else float("nan")
    unstable = bool(abs(pooled - mean) > 2 * se) if k > 1 else False
    note = (
        f"the per-split {scorer.name} scores disagree: their mean {mean:.4g} (standard error {se:.3g}) is far from "
        f"the pooled out-of-fold {pooled:.4g}; splits of few groups or rows give unstable scores, and the pooled "
        "value is the steadier summary"
        if unstable
        else None
    )
    return {"pooled": pooled, "mean": mean, "standard_error": se, "unstable": unstable, "note": note}


def search_reports(results: list[JSON], best_index: int, scorer: Scorer) -> tuple[SearchReport, list[JSON]]:
    """reports/search.json (every candidate's fold scores) and the candidates' train / validation plot rows."""
    reported = Candidate.field_names()
    report = SearchReport(scoring=scorer.name, greater_is_better=scorer.greater_is_better, best_index=best_index,
                          candidates=[Candidate(**{k: r[k] for k in reported}) for r in results])  # fmt: skip
    curve = [{"candidate": i, "params": ", ".join(f"{k}={v}" for k, v in r["params"].items()),
              "train": r["mean_train_score"], "valid": r["mean_valid_score"]}
             for i, r in enumerate(results)]  # fmt: skip
    return report, curve


def train_metrics(
    name: str,
    target: Target,
    scorer: Scorer,
    n_candidates: int,
    best: JSON,
    pooled: JSON,
    n_folds: int,
    refit_stopped: list[str],
    baseline: JSON,
    comparison: Comparison | None,
    target_transform: TargetTransform | None = None,
) -> TrainMetrics:
    """reports/metrics/train.json: the chosen model's cross-validated scores (mean, spread, pooled), its train /
    validation gap, the fits that stopped at an iteration cap, the no-skill baseline on the same folds, the
    comparison of models (model.candidates) and a regression target's scale (target_transform; None: none)."""
    return TrainMetrics(
        model=name,
        task=target.task,
        scoring=scorer.name,
        cv_mean=best["mean_valid_score"],
        cv_std=best["std_valid_score"],
        cv_pooled=pooled["pooled"],  # every split's validation rows scored as one set
        cv_note=pooled["note"],
        train_mean=best["mean_train_score"],
        train_valid_gap=best["mean_train_score"] - best["mean_valid_score"],
        best_params=best["params"],
        n_candidates=n_candidates,
        n_folds=n_folds,
        not_converged=NotConverged(
            folds=[w["fold"] for w in best["not_converged"]],
            refit=bool(refit_stopped),
            messages=sorted({w["message"] for w in best["not_converged"]} | set(refit_stopped)),
        ),
        baseline=Baseline(
            model=NO_SKILL_NAMES[target.task], cv_mean=baseline["mean_valid_score"], cv_std=baseline["std_valid_score"]
        ),
        comparison=comparison,
        target_transform=target_transform or ABSENT,
    )
