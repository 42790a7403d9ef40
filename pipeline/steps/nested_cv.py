"""Nested CV around the whole model selection (assess's "nested"): in each outer split every compared model's grid is
searched on inner folds and model.selection chooses between them as train chose, the choice refitted on the split's
training part and scored on its validation part; the outer scores' mean is the selection's unbiased estimate and its
gap to the inner best scores the optimism of choosing (Cawley & Talbot, On over-fitting in model selection, JMLR
2010)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from mllib.base import clone, fit_with_groups
from mllib.model_selection import ForwardChainingSplit, GridSearch, inner_splitter, response_values

from ..core import build, paths
from ..core.assessment_records import NestedCV
from ..core.compute import Plan, Work
from ..core.json_types import JSON
from .assessment import AssessedRows

if TYPE_CHECKING:
    from mllib.base import BaseEstimator
    from mllib.metrics.scorers import Scorer

    from ..core.task import Target

    Models = dict[str, tuple[BaseEstimator, list[JSON]]]  # {name: (an unfitted model, its candidates)}
    Sizes = dict[str, tuple[float, ...]]  # {name: (n_train, n_test) mean inner split sizes}
    Select = Callable[[dict[str, JSON], Sizes], str]  # ({name: its search's best result}, sizes) -> the chosen name
    Fitted = Callable[[int, str, JSON], BaseEstimator | None]  # (split, name, params) -> a fitted model, or None


def nested_report(
    params: JSON,
    target: Target,
    scorer: Scorer,
    rows: AssessedRows,
    too_large: str | None,
    names: list[str],
    scale: JSON | None = None,
    trained: tuple[str, JSON] | None = None,
) -> Plan[NestedCV]:
    """assessment.json's "nested": nested CV around the whole selection (every model train compared, `names`,
    simplest first, chosen between by model.selection as train chose; on the target's scale train chose, scale:
    build.model's target_transform), printed; or why it did not run (too_large: refit_limit's reason). trained:
    train's choice (model, hyperparameters) when its fold models were fitted on these rows' split matrices: where a
    split's selection makes the same choice, train's fold model of that split (models/fold_models) is the outer
    model, the very fit the refit would repeat."""
    cfg, seed = params["assess"], params["seed"]
    if not cfg["nested"] or too_large:
        nested = NestedCV(statement=too_large or "off (assess.nested: false)")
        print(f"assess: nested CV is {nested.statement}")
        return nested
    from .comparison import compare
    from .training import candidate_params

    models: Models = {
        n: (build.model(n, params["model"], seed, scale), candidate_params(params["search"], n, seed)) for n in names
    }

    def select(best: dict[str, JSON], sizes: Sizes) -> str:  # model.selection between the models, as train chose
        if len(best) == 1:
            return next(iter(best))
        n_train, n_test = np.mean(list(sizes.values()), axis=0)
        return compare(best, scorer.greater_is_better, n_train, n_test, params["model"]["selection"])[0]

    def train_fold_model(k: int, name: str, chosen: JSON) -> BaseEstimator | None:
        """Train's fold model of split k if it is this configuration, else None."""
        if trained != (name, chosen):
            return None
        from mllib import io as mlio

        model: BaseEstimator = mlio.load(paths.FOLD_MODELS / f"fold_{k}")
        return model

    nested = yield from nested_scores(rows, models, select, scorer, cfg["inner_splits"], seed, target.classifies,
                                      params["split"]["gap"], train_fold_model)  # fmt: skip
    if nested.statement is not None:
        print(f"assess: nested CV is {nested.statement}")
    else:
        left_out = nested.splits_left_out
        print(
            f"assess: nested CV {scorer.name} {nested.outer_mean:.4f} ± {nested.outer_std:.4f} (inner best "
            f"{nested.inner_best_mean:.4f}, optimism {nested.optimism:.4f})"
            + (f"; splits {left_out} left out: too few distinct times for inner folds" if left_out else "")
        )
    return nested


def nested_scores(
    rows: AssessedRows,
    models: Models,
    select: Select,
    scorer: Scorer,
    inner_splits: int,
    seed: int,
    stratify: bool,
    gap: float = 0.0,
    fitted: Fitted | None = None,
) -> Plan[NestedCV]:
    """Outer score (the selection's choice, refitted, on the split's validation part) and inner best score per split
    of the assessed rows (rows.features_of(k): every training row in split k's features); models: {name: (an
    unfitted model, its candidates)}; select({name: its search's best result}, {name: (n_train, n_test) mean inner
    split sizes}) -> the chosen name (a single model: itself). With time (data.time), the inner folds chain forward
    within each split's training part too; a split whose training part holds too few times for an inner fold is left
    out, and said. fitted(k, name, params): a model
    of that configuration already fitted on split k's training rows as the refit would fit it, or None (refit)."""
    split_matrix, y, groups, splits, time = rows.features_of, rows.y, rows.groups, rows.splits, rows.time
    inner = inner_splitter(inner_splits, groups is not None, stratify, seed)
    if time is not None:
        chaining = ForwardChainingSplit(inner_splits, gap)
        inner = [
            list(chaining.split(time=time[fit], groups=None if groups is None else groups[fit])) for fit, _ in splits
        ]
        left_out = [k for k, cv in enumerate(inner) if not cv]
        if len(splits) - len(left_out) < 2:
            why = (f"not evaluated: the training parts of splits {left_out} hold too few distinct times of data.time "
                   "for inner forward-chaining folds (two outer splits are needed)")  # fmt: skip
            return NestedCV(statement=why)
    n_candidates = sum(len(c) for _, c in models.values())
    what = f"nested CV: {len(splits)} x {inner_splits} folds, {n_candidates} candidates"

    def one_split(
        k: int,
    ) -> tuple[float, float, JSON] | None:  # (outer score, inner best score, the choice), or None: no inner folds
        fit, valid = splits[k]
        cv = inner if time is None else inner[k]
        if not cv:
            return None
        X = split_matrix(k)  # one split's matrix at a time
        X_fit, y_fit, g_fit = X[fit], y[fit], None if groups is None else groups[fit]
        searches = {
            name: GridSearch(model, [{p: [v] for p, v in c.items()} for c in candidates], cv=cv, scoring=scorer,
                             refit=False).fit(X_fit, y_fit, g_fit)
            for name, (model, candidates) in models.items()
        }  # fmt: skip
        sizes = {n: tuple(float(np.mean([len(part) for part in parts])) for parts in zip(*s.splits_))
                 for n, s in searches.items()}  # fmt: skip
        name = select({n: s.results_[s.best_index_] for n, s in searches.items()}, sizes)
        search = searches[name]
        model = None if fitted is None else fitted(k, name, search.best_params_)
        if model is None:
            model = fit_with_groups(clone(search.estimator).set_params(**search.best_params_), X_fit, y_fit, g_fit)
        outer = float(scorer.score(y[valid], response_values(model, X[valid], scorer.response)))
        return (
            outer,
            float(search.best_score_),
            {"model": name, **search.best_params_} if len(models) > 1 else (search.best_params_),
        )

    per_split: list[tuple[float, float, JSON] | None] = yield Work(one_split, list(range(len(splits))), what)
    done = [r for r in per_split if r is not None]
    outer, best_inner, chosen = (list(column) for column in zip(*done))
    sign = 1.0 if scorer.greater_is_better else -1.0
    return NestedCV(
        outer_scores=outer,
        inner_best_scores=best_inner,
        chosen_params=chosen,
        models=list(models),
        outer_mean=float(np.mean(outer)),
        outer_std=float(np.std(outer)),
        inner_best_mean=float(np.mean(best_inner)),
        optimism=float(sign * (np.mean(best_inner) - np.mean(outer))),
        inner_splits=inner_splits,
        splits_left_out=left_out if time is not None and left_out else None,
    )
