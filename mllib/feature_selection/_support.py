"""What every selector shares: transform keeps the columns of support_, and an empty selection is an error."""

from __future__ import annotations

import numpy as np

from ..base import TransformerMixin, check_array, check_is_fitted, check_n_features
from ..base.constraints import OPTIONAL, RANDOM_STATE, HasMethod, InstanceOf, positive_int

# what the model-based selectors share: a registry model, a scorer and inner folds
SELECTION_CONSTRAINTS = {
    "estimator": [OPTIONAL, InstanceOf((str,), "a registry name")],
    "estimator_params": [OPTIONAL, InstanceOf((dict,), "a dict of its hyperparameters")],
    "scoring": [OPTIONAL, InstanceOf((str,), "a scorer name")],
    "cv": [
        positive_int(2),
        InstanceOf((list, tuple), "a list of (fit, valid) index pairs"),
        HasMethod("split", "a splitter"),
    ],
    "random_state": RANDOM_STATE,
}


class SelectorMixin(TransformerMixin):
    """transform(X) = X[:, support_]; support_ is the boolean mask of the kept columns."""

    def transform(self, X):
        check_is_fitted(self)
        X = check_array(X, allow_nan=True)
        check_n_features(self, X)
        return X[:, self.support_]

    def get_support(self, indices: bool = False) -> np.ndarray:
        check_is_fitted(self)
        return np.flatnonzero(self.support_) if indices else self.support_.copy()

    def get_feature_names_out(self, input_names):
        check_is_fitted(self)
        return [name for name, kept in zip(input_names, self.support_) if kept]

    def column_outputs(self) -> list[list[int]]:
        """A kept column -> its position among the kept ones; a dropped column -> nothing."""
        check_is_fitted(self)
        position = np.cumsum(self.support_) - 1
        return [[int(position[j])] if kept else [] for j, kept in enumerate(self.support_)]


def check_kept(support: np.ndarray, selector: str, fix: str) -> np.ndarray:
    if not support.any():
        raise ValueError(f"{selector} would keep zero of the {support.size} features; {fix}")
    return support


def resolve_estimator(estimator: str | None, estimator_params: dict | None, y: np.ndarray):
    """A fresh registry estimator (the selectors name their model, so params.yaml and mllib.io can hold it); None:
    logistic_regression for class labels (integer, bool or string y), ridge for a numeric target."""
    from ..registry import get

    if estimator is None:
        estimator = "logistic_regression" if np.asarray(y).dtype.kind in "biuUSO" else "ridge"
    return get(estimator)(**(estimator_params or {}))


def resolve_scorer(scoring, estimator):
    """The named scorer; None: accuracy for a classifier, r2 for a regressor (the estimator's natural score)."""
    from ..metrics import get_scorer

    if scoring is None:
        scoring = "accuracy" if getattr(estimator, "_estimator_type", None) == "classifier" else "r2"
    return get_scorer(scoring)
