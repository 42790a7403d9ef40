"""The cross-validated score of one model on a subset of the columns, shared by the supervised selectors."""

from __future__ import annotations

import numpy as np

from ..base import clone
from ..model_selection import inner_splits, resolve_cv, response_values


def selection_splits(cv, X, y, groups, estimator, random_state) -> list[tuple]:
    """cv as an int k: k-fold inside the fitting rows (grouped when groups are given, stratified for a classifier);
    otherwise any splitter or list of (fit, valid) index pairs."""
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        classifier = getattr(estimator, "_estimator_type", None) == "classifier"
        return inner_splits(int(cv), y, groups, stratify=classifier, random_state=random_state)
    return resolve_cv(cv, X, y, groups)


def cv_score(estimator, X, y, columns: np.ndarray, splits, scorer) -> float:
    """Mean validation score of the estimator fitted on the given columns of each split's fitting rows."""
    scores = []
    for fit, valid in splits:
        model = clone(estimator).fit(X[np.ix_(fit, columns)], y[fit])
        scores.append(scorer.score(y[valid], response_values(model, X[np.ix_(valid, columns)], scorer.response)))
    return float(np.mean(scores))
