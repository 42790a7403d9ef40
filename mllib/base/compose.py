"""Composites that keep data-fitted steps inside the cross-validation loop.

`Pipeline` chains transformers and a final estimator, so `fit` sees only the rows it is given
(the notes' leakage rule: everything computed from data is refitted per fold, 004 D4:567, 808).
`ColumnTransformer` applies different transformers to different columns (numeric vs categorical)
and concatenates their outputs.

Sections cited: Ghent ML notes (seed 004): 3.5 Analysis of Model Performance (567)"""

from __future__ import annotations

import numpy as np

from .estimator import (
    BaseEstimator,
    ColumnwiseMixin,
    TransformerMixin,
    check_is_fitted,
    clone,
    fit_with_groups,
    split_params,
    takes_groups,
)
from .mixed import MixedMatrix
from .validation import check_array, check_column_indices, check_n_features, check_shape


def _then(outputs: list[list[int]] | None, step) -> list[list[int]] | None:
    """Column-wise maps composed: input column j -> the next step's outputs of j's outputs (None if either mixes)."""
    following = step.column_outputs() if outputs is not None and hasattr(step, "column_outputs") else None
    if following is None:
        return None
    return [sorted({o for k in first for o in following[k]}) for first in outputs]


def _feature_names(transformer, input_names: list[str]) -> list[str]:
    if hasattr(transformer, "get_feature_names_out"):
        return list(transformer.get_feature_names_out(input_names))
    return list(input_names)


def _fit_blocks(estimator, blocks):
    if not hasattr(estimator, "fit_blocks"):
        raise ValueError(
            f"{type(estimator).__name__} cannot be fitted from rows held in blocks (it has no fit_blocks: its fit "
            "needs every row at once)"
        )
    return estimator.fit_blocks(blocks)


def _transformed(block, step):
    X, y, w = block
    return step.transform(X), y, w


def _columns(block, cols):
    X, y, w = block
    if not isinstance(X, MixedMatrix):
        X = np.asarray(X)
    return X[:, cols], y, w


def _width(block) -> int:
    return block[0].shape[1]


class Pipeline(BaseEstimator):
    """Transformers then a final estimator, fitted in order on the rows given (so a fold's fit never sees other rows).

    Parameters
    ----------
    steps : list of (str, estimator)
        Named steps; all but the last are transformers.
    """

    def __init__(self, steps):
        self.steps = steps

    def get_params(self, deep: bool = True) -> dict:
        params = {"steps": self.steps}
        if deep:
            for name, step in self.steps:
                params[name] = step
                params.update({f"{name}__{k}": v for k, v in step.get_params(deep=True).items()})
        return params

    def set_params(self, **params) -> Pipeline:
        if "steps" in params:
            self.steps = params.pop("steps")
        steps, nested = split_params("Pipeline", params, [n for n, _ in self.steps])
        self.steps = [(n, steps.get(n, s)) for n, s in self.steps]  # whole steps first, then their parameters
        named = dict(self.steps)
        for head, sub in nested.items():
            named[head].set_params(**sub)
        return self

    def _check_steps(self):
        names = [n for n, _ in self.steps]
        if not self.steps or len(set(names)) != len(names):
            raise ValueError(
                f"Pipeline steps must be a non-empty list of uniquely named (name, estimator) pairs, got {names}"
            )

    @property
    def _final(self):
        return self.steps[-1][1]

    def _transform_all_but_last(self, X):
        for _, step in self.steps[:-1]:
            X = step.transform(X)
        return X

    def fit(self, X, y=None, sample_weight=None, groups=None):
        """Fit each step on the previous steps' output; groups reach the steps whose fit takes them (a selector or
        stacking cross-validating inside these rows)."""
        self._check_steps()
        for _, step in self.steps[:-1]:
            X = (
                step.fit(X, y, groups=groups).transform(X)
                if groups is not None and takes_groups(step)
                else step.fit_transform(X, y)
            )
        if sample_weight is None:
            fit_with_groups(self._final, X, y, groups)
        else:
            self._final.fit(X, y, sample_weight=sample_weight)
        self.n_features_in_ = getattr(self.steps[0][1], "n_features_in_", None)
        return self

    def fit_blocks(self, blocks):
        """fit from rows held in blocks (mllib.base.RowBlocks): each step fitted by its own fit_blocks on the blocks
        as the previous steps transform them (held where they are)."""
        self._check_steps()
        for _, step in self.steps[:-1]:
            _fit_blocks(step, blocks)
            blocks = blocks.transform(_transformed, step)
        _fit_blocks(self._final, blocks)
        self.n_features_in_ = getattr(self.steps[0][1], "n_features_in_", None)
        return self

    def transform(self, X):
        check_is_fitted(self)
        return self._final.transform(self._transform_all_but_last(X))

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)

    def predict(self, X):
        check_is_fitted(self)
        return self._final.predict(self._transform_all_but_last(X))

    def predict_proba(self, X):
        check_is_fitted(self)
        return self._final.predict_proba(self._transform_all_but_last(X))

    def decision_function(self, X):
        check_is_fitted(self)
        return self._final.decision_function(self._transform_all_but_last(X))

    @property
    def classes_(self):
        return self._final.classes_

    def get_feature_names_out(self, input_names):
        names = list(input_names)
        for _, step in self.steps:
            names = _feature_names(step, names)
        return names

    def column_outputs(self) -> list[list[int]] | None:
        """Column-wise when every step is (TransformerMixin.column_outputs): the steps' maps composed."""
        check_is_fitted(self)
        outputs = [[j] for j in range(self.n_features_in_)] if self.n_features_in_ is not None else None
        for _, step in self.steps:
            outputs = _then(outputs, step)
        return outputs


class ColumnTransformer(TransformerMixin, BaseEstimator):
    """Different transformers on different columns. Each transformer is cloned and fitted on its own columns;
    outputs are concatenated as float64 in the order the transformers are listed.

    Parameters
    ----------
    transformers : list of (str, transformer, list of int)
        Named transformers with the column indices each takes; columns not listed are dropped. X may be a
        MixedMatrix (raw data: a float64 block of numbers and an object block of labels): a transformer whose
        columns lie in one block receives that block's columns as they are.
    """

    def __init__(self, transformers):
        self.transformers = transformers

    def get_params(self, deep: bool = True) -> dict:
        params = {"transformers": self.transformers}
        if deep:
            for name, trans, _ in self.transformers:
                params.update({f"{name}__{k}": v for k, v in trans.get_params(deep=True).items()})
        return params

    def set_params(self, **params) -> ColumnTransformer:
        if "transformers" in params:
            self.transformers = params.pop("transformers")
        names = [name for name, _, _ in self.transformers]
        whole, nested = split_params("ColumnTransformer", params, names)
        self.transformers = [(n, whole.get(n, t), cols) for n, t, cols in self.transformers]
        named = {name: trans for name, trans, _ in self.transformers}
        for head, sub in nested.items():
            named[head].set_params(**sub)
        return self

    def _check_columns(self, X):
        if not isinstance(X, MixedMatrix):  # a MixedMatrix hands each transformer its block's columns unconverted
            X = np.asarray(X)
        check_shape(X, 2, "X", "n_samples, n_features")
        for name, _, cols in self.transformers:
            check_column_indices(np.asarray(cols, dtype=int).tolist(), X.shape[1], f"transformer {name!r}'s columns")
        return X

    def fit(self, X, y=None):
        X = self._check_columns(X)
        self.n_features_in_ = X.shape[1]
        self.transformers_ = [
            (name, clone(trans).fit(X[:, list(cols)], y), list(map(int, cols)))
            for name, trans, cols in self.transformers
            if len(cols)
        ]
        return self

    def fit_blocks(self, blocks):
        """fit from rows held in blocks (mllib.base.RowBlocks): each transformer fitted by its own fit_blocks on its
        columns of the blocks."""
        self.n_features_in_ = blocks.map(_width)[0]
        self.transformers_ = []
        for name, trans, cols in self.transformers:
            if len(cols):
                fitted = _fit_blocks(clone(trans), blocks.transform(_columns, list(map(int, cols))))
                self.transformers_.append((name, fitted, list(map(int, cols))))
        return self

    def transform(self, X):
        check_is_fitted(self)
        X = self._check_columns(X)
        check_n_features(self, X)
        parts = [np.asarray(trans.transform(X[:, cols]), dtype=np.float64) for _, trans, cols in self.transformers_]
        return np.hstack(parts) if parts else np.empty((X.shape[0], 0))

    def column_outputs(self) -> list[list[int]] | None:
        """Column-wise when every transformer is: each one's map shifted to where its outputs sit in the concatenation
        (a column no transformer takes has no outputs)."""
        check_is_fitted(self)
        outputs, start = [[] for _ in range(self.n_features_in_)], 0
        for _, trans, cols in self.transformers_:
            own = trans.column_outputs() if hasattr(trans, "column_outputs") else None
            if own is None:
                return None
            for col, out in zip(cols, own):
                outputs[col].extend(start + o for o in out)
            start += sum(map(len, own))
        return outputs

    def get_feature_names_out(self, input_names):
        check_is_fitted(self)
        input_names = list(input_names)
        names = []
        for _, trans, cols in self.transformers_:
            names.extend(_feature_names(trans, [input_names[c] for c in cols]))
        return names


class Identity(ColumnwiseMixin, BaseEstimator):
    """Rows through unchanged, as float64: stands in for features already applied (permutation importance
    transforms the data once, then runs the rest of a deployed chain on the result)."""

    def fit(self, X, y=None):
        self.n_features_in_ = check_array(X, allow_nan=True).shape[1]
        return self

    def transform(self, X):
        check_is_fitted(self)
        X = check_array(X, allow_nan=True)
        check_n_features(self, X)
        return X
