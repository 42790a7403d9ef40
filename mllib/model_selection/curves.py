"""Learning and validation curves: training and validation scores per fold along a size or a hyperparameter.

Rule: a validation curve puts a hyperparameter / complexity on x and the train and CV validation
scores on y (validation falls then rises when overfitting); a learning curve puts the number of
training rows (subsets of each training fold) on x; the fold-to-fold spread of the scores does NOT
measure model variance (seed 004, D4:195-205, 361-377, 471-493; catalogue 2.5).

Sections cited: Ghent ML notes (seed 004): 1.5 Model Selection: hyperparameter analysis (195)"""

from __future__ import annotations

import numpy as np

from mllib.base import check_random_state, clone, fit_with_groups

from .search import FoldData, _check_scorer, evaluate_candidates, resolve_cv, response_values

__all__ = ["learning_curve", "validation_curve"]


def validation_curve(estimator, X, y, param_name, values, cv, scorer, groups=None):
    """(train_scores, valid_scores), each of shape (len(values), n_splits): one row per value of param_name."""
    _check_scorer(scorer)
    values = list(values)
    if not values:
        raise ValueError("values is empty: pass the hyperparameter values to sweep")
    X, y = np.asarray(X), np.asarray(y)
    splits = resolve_cv(cv, X, y, groups)
    results = evaluate_candidates(estimator, [{param_name: v} for v in values], FoldData(X, y, splits), scorer)
    return np.stack([r["train_scores"] for r in results]), np.stack([r["valid_scores"] for r in results])


def _subset_order(y_train: np.ndarray, rng) -> np.ndarray:
    """Row order whose every prefix is a random, approximately class-stratified subset for labels
    (integer / bool / string y), or a plain random permutation for float targets."""
    perm = rng.permutation(y_train.shape[0])
    if y_train.dtype.kind not in "biuUSO":
        return perm
    _, codes = np.unique(y_train[perm], return_inverse=True)
    codes = codes.reshape(-1)
    counts = np.bincount(codes)
    rank_in_class = np.empty(codes.size)
    for c in range(counts.size):
        rows = np.flatnonzero(codes == c)
        rank_in_class[rows] = (np.arange(rows.size) + 0.5) / rows.size
    return perm[np.argsort(rank_in_class, kind="stable")]


def learning_curve(estimator, X, y, cv, train_sizes, scorer, groups=None, random_state=None, fit_groups=None):
    """(train_sizes_abs, train_scores, valid_scores); scores have shape (len(train_sizes), n_splits).

    train_sizes: fractions in (0, 1] of the smallest training fold, or absolute row counts (ints);
    the absolute sizes used are returned and are the same for every fold. The training subset of
    size s is the first s rows of a seeded order of the training fold (nested subsets; for class
    labels every prefix is approximately stratified); it is scored on its own rows (train score)
    and on the whole validation fold. groups: for cv's splitter; fit_groups: the rows' groups given to
    each fit (fit_with_groups: an estimator that holds out whole groups to stop early), as a search
    fits it.
    """
    _check_scorer(scorer)
    X, y = np.asarray(X), np.asarray(y)
    splits = resolve_cv(cv, X, y, groups)
    smallest = min(tr.size for tr, _ in splits)
    sizes = np.asarray(train_sizes)
    fractions = sizes.dtype.kind == "f" and bool(((sizes > 0) & (sizes <= 1)).all())
    counts = sizes.dtype.kind in "iu" and bool(((sizes >= 1) & (sizes <= smallest)).all())
    if sizes.ndim != 1 or sizes.size == 0 or not (fractions or counts):
        raise ValueError(
            f"train_sizes must be a non-empty list of fractions in (0, 1] or of row counts in [1, {smallest}] (the "
            f"smallest training fold), got {train_sizes!r}"
        )
    sizes = np.maximum(1, np.floor(sizes * smallest)) if fractions else sizes
    sizes = sizes.astype(np.int64)
    if np.unique(sizes).size != sizes.size:
        raise ValueError(f"train_sizes give duplicate absolute sizes {sizes.tolist()}; pass fewer or distinct sizes")
    rng = check_random_state(random_state)
    train_scores = np.empty((sizes.size, len(splits)))
    valid_scores = np.empty_like(train_scores)
    for k, (tr, te) in enumerate(splits):
        order = tr[_subset_order(y[tr], rng)]
        for i, s in enumerate(sizes):
            sub = np.sort(order[:s])
            try:
                est = fit_with_groups(clone(estimator), X[sub], y[sub], None if fit_groups is None else fit_groups[sub])
            except Exception as exc:
                exc.add_note(f"while fitting learning-curve size {int(s)} on fold {k}")
                raise
            train_scores[i, k] = scorer.score(y[sub], response_values(est, X[sub], scorer.response))
            valid_scores[i, k] = scorer.score(y[te], response_values(est, X[te], scorer.response))
    return sizes, train_scores, valid_scores
