"""Permutation-importance selection (seed 004, D4:979, 2022-2040): within each inner fold, fit the model on the fitting
rows and measure each column's permutation importance on the held-out rows; keep the columns whose mean importance
over the folds exceeds `threshold` (0: the model scores better with the column than with it shuffled).

Sections cited: Ghent ML notes (seed 004): 5.4 DP: Dimensionality Reduction (979)"""

from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, check_array, check_random_state, clone
from ..base.constraints import FINITE, check_hyperparameters, positive_int
from ..explain.permutation import permutation_importance
from ..model_selection import response_values
from ._search import selection_splits
from ._support import SELECTION_CONSTRAINTS, SelectorMixin, check_kept, resolve_estimator, resolve_scorer


class PermutationSelector(SelectorMixin, BaseEstimator):
    """Keep the columns whose permutation importance on held-out rows is above a threshold.

    Parameters
    ----------
    estimator : str or None, default None
        Registry name of the model; None: logistic_regression for class labels, ridge for a numeric target.
    estimator_params : dict or None
        Its hyperparameters.
    scoring : str or None
        A mllib.metrics scorer name; None: accuracy for a classifier, r2 for a regressor.
    n_repeats : int, default 5
        Permutations per column and fold.
    cv : int or list of (fit, valid) index pairs, default 5
        An int k: k-fold inside the fitting rows, grouped when fit gets groups, stratified for a classifier.
    threshold : float, default 0.0
        Keep a column when its mean importance (over folds and repeats) is greater than this.
    random_state : int, Generator or None, default 0
        Seeds the permutations and shuffles the inner folds.

    Attributes
    ----------
    importances_mean_ : ndarray of shape (n_features,)
    support_ : ndarray of bool, the kept columns
    """

    _constraints = {**SELECTION_CONSTRAINTS, "n_repeats": positive_int(), "threshold": FINITE}

    def __init__(
        self, estimator=None, estimator_params=None, scoring=None, n_repeats=5, cv=5, threshold=0.0, random_state=0
    ):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.scoring = scoring
        self.n_repeats = n_repeats
        self.cv = cv
        self.threshold = threshold
        self.random_state = random_state

    def fit(self, X, y, groups=None):
        X = check_array(X)
        y = np.asarray(y)
        check_hyperparameters(self)
        estimator = resolve_estimator(self.estimator, self.estimator_params, y)
        scorer = resolve_scorer(self.scoring, estimator)
        rng = check_random_state(self.random_state)
        splits = selection_splits(self.cv, X, y, groups, estimator, rng)
        per_fold = []
        for fit, valid in splits:
            model = clone(estimator).fit(X[fit], y[fit])
            result = permutation_importance(
                lambda Z, m=model: response_values(m, Z, scorer.response),
                X[valid],
                y[valid],
                scorer,
                n_repeats=self.n_repeats,
                random_state=rng,
            )
            per_fold.append(result["importances_mean"])
        self.importances_mean_ = np.mean(per_fold, axis=0)
        self.n_features_in_ = X.shape[1]
        self.support_ = check_kept(
            self.importances_mean_ > self.threshold,
            "PermutationSelector",
            f"the largest mean importance is {self.importances_mean_.max():.6g}; lower threshold ({self.threshold!r})",
        )
        return self
