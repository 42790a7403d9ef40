"""The estimator protocol: hyperparameters in the constructor, fitted state in attributes ending in `_`.

Constructors only store their arguments, so `get_params` / `set_params` / `clone` can rebuild any
estimator from its hyperparameters alone; everything learned from data is set by `fit`.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import warnings
from typing import ClassVar

import numpy as np

from .validation import check_array, check_labels, check_n_features, check_two_classes


class NotFittedError(ValueError):
    """Raised when predict / transform is called before fit."""


class ConvergenceWarning(UserWarning):
    """An iterative fit stopped at its iteration cap before its tolerance was met: the result is usable but not the
    optimum the algorithm defines. Callers that fit many models (the pipeline's search) collect these per fit."""


@contextlib.contextmanager
def record_convergence():
    """Collect the messages of the ConvergenceWarnings raised inside (every one, not once per place) into the list
    it yields; other warnings are shown as usual after the block (the filters, e.g. error, still apply inside)."""
    stopped: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        yield stopped
    for w in caught:
        if issubclass(w.category, ConvergenceWarning):
            stopped.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


class BaseEstimator:
    """Base class: parameter introspection from the constructor signature; `_constraints` declares what each
    hyperparameter may be (mllib.base.constraints), checked at fit by check_hyperparameters."""

    _constraints: ClassVar[dict] = {}

    @classmethod
    def _param_names(cls) -> list[str]:
        init = cls.__init__
        if init is object.__init__:
            return []
        names = []
        for p in inspect.signature(init).parameters.values():
            if p.name == "self":
                continue
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"{cls.__name__}.__init__ must list its hyperparameters explicitly, not *args/**kwargs")
            names.append(p.name)
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict:
        params = {}
        for name in self._param_names():
            value = getattr(self, name)
            params[name] = value
            if deep and isinstance(value, BaseEstimator):
                params.update({f"{name}__{k}": v for k, v in value.get_params(deep=True).items()})
        return params

    def set_params(self, **params) -> BaseEstimator:
        own, nested = split_params(type(self).__name__, params, self._param_names())
        for head, value in own.items():
            setattr(self, head, value)
        for head, sub in nested.items():
            getattr(self, head).set_params(**sub)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params(deep=False).items())
        return f"{type(self).__name__}({args})"


def clone(estimator):
    """A new, unfitted estimator with the same hyperparameters (estimators nested in params are cloned too)."""
    if isinstance(estimator, (list, tuple)):
        return type(estimator)(clone(e) for e in estimator)
    if not isinstance(estimator, BaseEstimator):
        return copy.deepcopy(estimator)
    params = {k: clone(v) for k, v in estimator.get_params(deep=False).items()}
    return type(estimator)(**params)


def is_fitted(estimator) -> bool:
    return any(k.endswith("_") and not k.startswith("_") for k in vars(estimator))


def split_params(owner: str, params: dict, valid) -> tuple[dict, dict[str, dict]]:
    """set_params' keys as (the owner's own {name: value}, each part's {part: {its parameter: value}}) from "name"
    and "part__parameter"; a name the owner does not know is refused, naming the ones it knows."""
    own: dict = {}
    nested: dict[str, dict] = {}
    for key, value in params.items():
        head, _, rest = key.partition("__")
        if head not in valid:
            raise ValueError(f"{owner} has no parameter {head!r}; valid parameters (and parts): {list(valid)}")
        if rest:
            nested.setdefault(head, {})[rest] = value
        else:
            own[head] = value
    return own, nested


def check_is_fitted(estimator) -> None:
    if not is_fitted(estimator):
        raise NotFittedError(f"{type(estimator).__name__} is not fitted yet; call fit(X, y) first.")


def check_fitted_X(estimator, X, **check_array_kwargs) -> np.ndarray:
    """X checked for a fitted estimator's predict / transform: fitted, a valid array (check_array), and as many
    columns as at fit."""
    check_is_fitted(estimator)
    X = check_array(X, **check_array_kwargs)
    check_n_features(estimator, X)
    return X


class ClassifierMixin:
    """Classes learned at fit time; predictions map back to the original labels."""

    _estimator_type = "classifier"

    def _encode_targets(self, y) -> np.ndarray:
        """Set `classes_` from y and return y as indices 0..K-1; needs at least two classes."""
        self.classes_, encoded = np.unique(check_labels(y), return_inverse=True)
        check_two_classes(self.classes_)
        return encoded

    def predict(self, X) -> np.ndarray:
        proba = self.predict_proba(X)  # first, so an unfitted model raises NotFittedError, not AttributeError
        return self.classes_[np.argmax(proba, axis=1)]


class RegressorMixin:
    """Real-valued targets; `predict` returns one float per row."""

    _estimator_type = "regressor"


class ClusterMixin:
    """Unsupervised partitions; `predict` returns a cluster index 0..k-1 per row."""

    _estimator_type = "clusterer"

    def fit_predict(self, X, y=None, **fit_params):
        return self.fit(X, **fit_params).predict(X)


class TransformerMixin:
    _estimator_type = "transformer"

    def fit_transform(self, X, y=None, **fit_params):
        return self.fit(X, y, **fit_params).transform(X)

    def column_outputs(self) -> list[list[int]] | None:
        """Per input column, the output columns computed from that column alone, cell by cell within the row; None
        when an output mixes columns or rows (the default: PCA, a kNN imputer, polynomial features). For a
        column-wise transformer, permuting input column j permutes exactly its outputs, so permutation importance
        transforms the data once (mllib.explain.permutation_importance)."""
        return None


class ColumnwiseMixin(TransformerMixin):
    """Output column j is a fitted map of input column j, cell by cell (scalers, ordinal codes)."""

    def column_outputs(self) -> list[list[int]]:
        check_is_fitted(self)
        return [[j] for j in range(self.n_features_in_)]


def takes_groups(estimator) -> bool:
    """Whether estimator.fit accepts groups (steps that cross-validate inside their rows: stacking, selectors)."""
    fit = getattr(estimator, "fit", None)
    return fit is not None and "groups" in inspect.signature(fit).parameters


def fit_with_groups(estimator, X, y, groups=None):
    """estimator.fit(X, y, groups=groups) when groups are given and fit takes them, else estimator.fit(X, y): the
    groups reach the inner folds of a composite fitted inside an outer grouped fold."""
    if groups is not None and takes_groups(estimator):
        return estimator.fit(X, y, groups=groups)
    return estimator.fit(X, y)


def fit_blocks_with_groups(estimator, blocks, groups=None):
    """fit_with_groups for rows held in blocks: estimator.fit_blocks(blocks, groups=groups) when groups are given (one
    per row, in block order) and fit_blocks takes them, else estimator.fit_blocks(blocks); a model that holds rows
    out of its own fit (early stopping) then holds out whole groups, as fit does."""
    if groups is not None and "groups" in inspect.signature(estimator.fit_blocks).parameters:
        return estimator.fit_blocks(blocks, groups=groups)
    return estimator.fit_blocks(blocks)
