"""Stacking (seed 004, D4:1558-1566): L first-level models learned on the training data and a meta-model whose inputs
are their outputs. The meta-model must learn from outputs on rows the first-level models did not see, so its
training inputs are out-of-fold predictions (k-fold inside the rows stacking is fitted on, grouped when groups are
given, mllib.model_selection.cross_fit); the first-level models are then refitted on all rows for prediction.

Sections cited: Ghent ML notes (seed 004): 9.2 Bagging, Stacking, Boosting, and AdaBoost (1558)"""

from __future__ import annotations

import numpy as np

from .. import registry
from ..base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    check_fitted_X,
    check_is_fitted,
    check_labels,
    check_random_state,
    check_two_classes,
    check_X_y,
    clone,
    fit_with_groups,
    lookup,
)
from ..base.constraints import (
    BOOLEAN,
    OPTIONAL,
    RANDOM_STATE,
    InstanceOf,
    SequenceOf,
    check_hyperparameters,
    positive_int,
)
from ..model_selection import cross_fit, inner_splits


class _BaseStacking(BaseEstimator):
    # names are looked up in the stacker's own kind of the registry at fit
    _constraints = {
        "estimators": SequenceOf(InstanceOf((str,), "a registry name")),
        "estimator_params": [OPTIONAL, InstanceOf((dict,), "a dict {name: hyperparameters}")],
        "final_estimator": InstanceOf((str,), "a registry name"),
        "final_params": [OPTIONAL, InstanceOf((dict,), "a dict of hyperparameters")],
        "cv": positive_int(2),
        "passthrough": BOOLEAN,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, estimators, estimator_params, final_estimator, final_params, cv, passthrough, random_state):
        self.estimators = estimators
        self.estimator_params = estimator_params
        self.final_estimator = final_estimator
        self.final_params = final_params
        self.cv = cv
        self.passthrough = passthrough
        self.random_state = random_state

    def _family(self):
        return registry.CLASSIFIERS if self._estimator_type == "classifier" else registry.REGRESSORS

    def _make(self, name: str, params: dict | None, seed: int, role: str) -> BaseEstimator:
        if name in ("stacking", "stacking_regressor"):
            raise ValueError(f"{role} cannot be stacking itself")
        model = lookup(self._family(), name, f"{self._estimator_type} ({role})")()
        if params:
            model.set_params(**params)
        if "random_state" in model.get_params(deep=False) and "random_state" not in (params or {}):
            model.set_params(random_state=int(seed))
        return model

    def _base_models(self, rng) -> list[BaseEstimator]:
        names = list(self.estimators)
        if len(names) < 1 or len(set(names)) != len(names):
            raise ValueError(f"estimators must be a non-empty list of distinct registry names, got {names}")
        params = self.estimator_params or {}
        unknown = set(params) - set(names)
        if unknown:
            raise ValueError(f"estimator_params names {sorted(unknown)}, which are not in estimators {names}")
        seeds = rng.integers(2**31, size=len(names))
        return [self._make(n, params.get(n), s, "estimators entry") for n, s in zip(names, seeds)]

    def _meta(self, outputs: list[np.ndarray], X: np.ndarray) -> np.ndarray:
        columns = [o.reshape(o.shape[0], -1) for o in outputs]
        return np.hstack(columns + ([X] if self.passthrough else []))

    def _fit(self, X, y, groups, stratify: bool):
        check_hyperparameters(self)
        k = self.cv
        rng = check_random_state(self.random_state)
        bases = self._base_models(rng)
        final = self._make(self.final_estimator, self.final_params, rng.integers(2**31), "final_estimator")
        splits = inner_splits(k, y, groups, stratify=stratify, random_state=rng.integers(2**31))
        outputs = []
        for base in bases:

            def fit_predict(_, fit, valid, base=base):
                g = None if groups is None else groups[fit]
                return self._output(fit_with_groups(clone(base), X[fit], y[fit], g), X[valid])

            outputs.append(cross_fit(fit_predict, splits, X.shape[0]))
        self.meta_features_ = self._meta(outputs, X)  # out of fold: row i's inputs come from models that never saw it
        self.final_estimator_ = final.fit(self.meta_features_, y)
        self.estimators_ = [fit_with_groups(base, X, y, groups) for base in bases]
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X) -> np.ndarray:
        """The meta-model's inputs for new rows: the first-level models (refitted on all rows) applied to X."""
        check_is_fitted(self)
        X = check_fitted_X(self, X)
        return self._meta([self._output(m, X) for m in self.estimators_], X)


class StackingClassifier(ClassifierMixin, _BaseStacking):
    """Stacked classifiers: the meta-model sees each base model's out-of-fold class probabilities (the positive
    class's only for two classes; decision scores for a model without predict_proba).

    Parameters
    ----------
    estimators : list of str, default ("logistic_regression", "random_forest")
        Registry names of the first-level classifiers.
    estimator_params : dict or None
        {name: hyperparameters} of first-level models.
    final_estimator : str, default "logistic_regression"
        Registry name of the meta-model.
    final_params : dict or None
        Its hyperparameters.
    cv : int, default 5
        Inner folds for the out-of-fold meta-features (grouped when fit gets groups, stratified by class).
    passthrough : bool, default False
        Also give the meta-model the original features.
    random_state : int, Generator or None
        Seeds the inner folds and every model with a random_state.

    Attributes
    ----------
    estimators_ : first-level models refitted on all rows
    final_estimator_ : the meta-model
    meta_features_ : the out-of-fold meta-features it was fitted on
    classes_ : ndarray
    """

    def __init__(
        self,
        estimators=("logistic_regression", "random_forest"),
        estimator_params=None,
        final_estimator="logistic_regression",
        final_params=None,
        cv=5,
        passthrough=False,
        random_state=0,
    ):
        super().__init__(estimators, estimator_params, final_estimator, final_params, cv, passthrough, random_state)

    def _output(self, model, X) -> np.ndarray:
        if hasattr(model, "predict_proba"):
            p = np.asarray(model.predict_proba(X), dtype=np.float64)
            return p[:, 1] if p.shape[1] == 2 else p
        return np.asarray(model.decision_function(X), dtype=np.float64)

    def fit(self, X, y, groups=None):
        X, y = check_X_y(X, y)
        self.classes_ = check_two_classes(np.unique(check_labels(y)))
        return self._fit(X, y, None if groups is None else np.asarray(groups), stratify=True)

    def predict_proba(self, X) -> np.ndarray:
        Z = self.transform(X)  # checks that the stack is fitted
        return self.final_estimator_.predict_proba(Z)

    def predict(self, X) -> np.ndarray:
        Z = self.transform(X)
        return self.final_estimator_.predict(Z)


class StackingRegressor(RegressorMixin, _BaseStacking):
    """Stacked regressors: the meta-model sees each base model's out-of-fold predictions.

    Parameters
    ----------
    estimators : list of str, default ("ridge", "random_forest_regressor")
        Registry names of the first-level regressors.
    estimator_params : dict or None
        {name: hyperparameters} of first-level models.
    final_estimator : str, default "linear_regression"
        Registry name of the meta-model.
    final_params : dict or None
        Its hyperparameters.
    cv : int, default 5
        Inner folds for the out-of-fold meta-features (grouped when fit gets groups).
    passthrough : bool, default False
        Also give the meta-model the original features.
    random_state : int, Generator or None
        Seeds the inner folds and every model with a random_state.

    Attributes
    ----------
    estimators_, final_estimator_, meta_features_ : as StackingClassifier
    """

    def __init__(
        self,
        estimators=("ridge", "random_forest_regressor"),
        estimator_params=None,
        final_estimator="linear_regression",
        final_params=None,
        cv=5,
        passthrough=False,
        random_state=0,
    ):
        super().__init__(estimators, estimator_params, final_estimator, final_params, cv, passthrough, random_state)

    def _output(self, model, X) -> np.ndarray:
        return np.asarray(model.predict(X), dtype=np.float64)

    def fit(self, X, y, groups=None):
        X, y = check_X_y(X, y, y_numeric=True)
        return self._fit(X, y, None if groups is None else np.asarray(groups), stratify=False)

    def predict(self, X) -> np.ndarray:
        Z = self.transform(X)  # checks that the stack is fitted
        return self.final_estimator_.predict(Z)
