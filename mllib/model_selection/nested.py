"""Nested cross-validation: the whole hyperparameter search is repeated inside each outer training fold.

Rule: the score of the selected model must come from data the selection never saw (seed 003, D3:338
"validation is present because test set would otherwise be training too"; seed 004, D4:543, 567);
the gap between the inner best scores and the outer scores estimates the selection optimism.

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Support Vector Machine (SVM) (338)
- Ghent ML notes (seed 004): 3.4 Robust Validation Strategies (543)"""

from __future__ import annotations

import numpy as np

from mllib.base import clone

from ._checks import column
from .search import resolve_cv

__all__ = ["nested_cv"]


def nested_cv(search, X, y, outer_cv, groups=None) -> dict:
    """Nested CV: the whole search (a GridSearch / RandomSearch, refit=True) runs inside each outer
    training fold and its refitted best model is scored once on the outer validation fold.

    Returns {"outer_scores", "inner_best_scores" (arrays per outer fold), "best_params" (list),
    "mean_outer_score", "std_outer_score", "mean_inner_best_score", "optimism"} where optimism =
    how much better the inner best scores look than the outer scores (positive = selection bias).
    """
    if not getattr(search, "refit", False):
        raise ValueError("nested_cv needs a search with refit=True (its refitted model is scored on the outer fold)")
    X, y = np.asarray(X), np.asarray(y)
    g = None if groups is None else column(groups, "groups", y.shape[0])
    outer, inner, chosen = [], [], []
    scorer = None
    for tr, te in resolve_cv(outer_cv, X, y, g):
        s = clone(search).fit(X[tr], y[tr], groups=None if g is None else g[tr])
        scorer = s.scorer_
        outer.append(s.score(X[te], y[te]))
        inner.append(s.best_score_)
        chosen.append(s.best_params_)
    outer_a, inner_a = np.asarray(outer), np.asarray(inner)
    sign = 1.0 if scorer.greater_is_better else -1.0
    return {
        "outer_scores": outer_a,
        "inner_best_scores": inner_a,
        "best_params": chosen,
        "mean_outer_score": float(outer_a.mean()),
        "std_outer_score": float(outer_a.std()),
        "mean_inner_best_score": float(inner_a.mean()),
        "optimism": float(sign * (inner_a.mean() - outer_a.mean())),
    }
