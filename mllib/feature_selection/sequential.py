"""Sequential feature selection by cross-validated score (seed 004, D4:979): forward adds, one at a time, the feature
whose addition gives the best CV score; backward starts from all features and removes, one at a time, the feature
whose removal gives the best CV score. The CV runs inside the rows the selector is fitted on (grouped when groups
are given), so in a pipeline fitted per fold the selection never sees the fold's validation rows.

Sections cited: Ghent ML notes (seed 004): 5.4 DP: Dimensionality Reduction (979)"""

from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, check_array, check_int
from ..base.constraints import FINITE, Interval, Options, check_hyperparameters, positive_int
from ._search import cv_score, selection_splits
from ._support import SELECTION_CONSTRAINTS, SelectorMixin, check_kept, resolve_estimator, resolve_scorer


class SequentialSelector(SelectorMixin, BaseEstimator):
    """Greedy forward or backward selection of columns by the mean CV score of a registry model.

    Parameters
    ----------
    estimator : str or None, default None
        Registry name of the model; None: logistic_regression for class labels, ridge for a numeric target.
    estimator_params : dict or None
        Its hyperparameters.
    direction : {"forward", "backward"}
        Add the best column to the kept ones at each step (forward, from none) or drop the least useful one
        (backward, from all).
    n_features : "auto", int or float in (0, 1)
        Columns to keep; "auto" stops when the next step changes the score by less than `tol`.
    tol : float, default 0.0
        With n_features "auto": stop when (score after the step) - (score before) < tol, scores oriented so that
        larger is better. Forward starts from no score (at least one feature is added); backward from the score of
        all features.
    cv : int or list of (fit, valid) index pairs, default 5
        An int k: k-fold inside the fitting rows, grouped when fit gets groups, stratified for a classifier.
    scoring : str or None
        A mllib.metrics scorer name; None: accuracy for a classifier, r2 for a regressor.
    random_state : int, Generator or None, default 0
        Shuffles the inner folds.

    Attributes
    ----------
    support_ : ndarray of bool, the kept columns
    history_ : list of {"feature", "action", "score"}, one entry per step taken
    score_ : the CV score of the kept columns
    """

    _constraints = {
        **SELECTION_CONSTRAINTS,
        "direction": Options(("forward", "backward")),
        "n_features": [Options(("auto",)), positive_int(), Interval(False, 0, 1, "neither")],  # at most p: at fit
        "tol": FINITE,
    }

    def __init__(
        self,
        estimator=None,
        estimator_params=None,
        direction="forward",
        n_features="auto",
        tol=0.0,
        cv=5,
        scoring=None,
        random_state=0,
    ):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.direction = direction
        self.n_features = n_features
        self.tol = tol
        self.cv = cv
        self.scoring = scoring
        self.random_state = random_state

    def _target(self, p: int) -> int | None:
        if self.n_features == "auto":
            return None
        if isinstance(self.n_features, (float, np.floating)):
            return max(1, int(round(self.n_features * p)))
        return check_int(self.n_features, "n_features", 1, p)

    def fit(self, X, y, groups=None):
        check_hyperparameters(self)
        X = check_array(X)
        y = np.asarray(y)
        estimator = resolve_estimator(self.estimator, self.estimator_params, y)
        scorer = resolve_scorer(self.scoring, estimator)
        sign = 1.0 if scorer.greater_is_better else -1.0
        splits = selection_splits(self.cv, X, y, groups, estimator, self.random_state)
        p = X.shape[1]
        target = self._target(p)
        forward = self.direction == "forward"
        kept = np.zeros(p, bool) if forward else np.ones(p, bool)
        current = -np.inf if forward else sign * cv_score(estimator, X, y, np.flatnonzero(kept), splits, scorer)
        history = []
        while kept.sum() != target:
            candidates = np.flatnonzero(~kept if forward else kept)
            if candidates.size == 0 or (not forward and kept.sum() == 1):
                break
            scores = []
            for j in candidates:
                trial = kept.copy()
                trial[j] = forward
                scores.append(sign * cv_score(estimator, X, y, np.flatnonzero(trial), splits, scorer))
            best = int(np.argmax(scores))  # the first (lowest column index) on ties
            if target is None and scores[best] - current < self.tol:
                break
            kept[candidates[best]] = forward
            current = scores[best]
            history.append(
                {
                    "feature": int(candidates[best]),
                    "action": "add" if forward else "remove",
                    "score": float(sign * current),
                }
            )
        self.n_features_in_ = p
        self.support_ = check_kept(kept, "SequentialSelector", "lower tol or set n_features")
        self.history_ = history
        self.score_ = float(sign * current)
        return self
