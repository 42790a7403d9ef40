"""A regressor fitted on the standardized target: z = (y - mean) / scale, prediction = mean + scale * f(x).

Models without an intercept (kernel ridge, Gaussian processes with a zero prior mean, networks whose output bias
starts at 0) fit a target far from 0 badly, and penalties and noise precisions given in target units change meaning
with the target's scale. Fitting on z makes their hyperparameters scale-free (scikit-learn's
TransformedTargetRegressor with a StandardScaler). Ridge with an unpenalized intercept and trees give the same
predictions either way. What the explainers read is given back in target units: coef_ / intercept_ of a linear
model, tree_ensemble() of a tree model, the predictive std of a probabilistic one.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..base import (
    BaseEstimator,
    RegressorMixin,
    check_is_fitted,
    check_sample_weight,
    check_X_y,
    clone,
    takes_groups,
)
from ..base.blocks import summed


class StandardizedTarget(RegressorMixin, BaseEstimator):
    """A regressor fitted on the standardized target (y - mean) / scale, its predictions mapped back. Its
    hyperparameters are set through this wrapper: set_params(lam=1.0) sets the wrapped regressor's lam (grid search
    over the wrapped model's grid).

    Parameters
    ----------
    regressor : regressor
        An unfitted mllib regressor.

    Fitted: mean_, scale_ (weighted mean and standard deviation of y; scale 1 for a constant y), regressor_.
    """

    def __init__(self, regressor):
        self.regressor = regressor

    def set_params(self, **params) -> StandardizedTarget:
        own = {k: v for k, v in params.items() if k.partition("__")[0] == "regressor"}
        super().set_params(**own)
        inner = {k: v for k, v in params.items() if k not in own}
        if inner:
            self.regressor.set_params(**inner)
        return self

    def fit(self, X, y, sample_weight=None, groups=None) -> StandardizedTarget:
        """groups reach the wrapped regressor when its fit takes them (fit_with_groups)."""
        X, y = check_X_y(X, y, y_numeric=True)
        w = check_sample_weight(sample_weight, X.shape[0])
        self.mean_ = float(np.average(y, weights=w))
        spread = float(np.sqrt(np.average((y - self.mean_) ** 2, weights=w)))
        self.scale_ = spread if spread > 0 else 1.0
        self.regressor_ = clone(self.regressor)
        z = (y - self.mean_) / self.scale_
        weighted = {} if sample_weight is None else {"sample_weight": w}
        grouped = {"groups": groups} if groups is not None and takes_groups(self.regressor_) else {}
        self.regressor_.fit(X, z, **weighted, **grouped)
        self.n_features_in_ = X.shape[1]
        return self

    def fit_blocks(self, blocks):
        """fit from rows held in blocks (mllib.base.RowBlocks; a block is (X, y, sample_weight or None)): the target's
        weighted mean and spread in two passes over the blocks, then the wrapped regressor's fit_blocks on the
        standardized target (held where the blocks are)."""
        if not hasattr(self.regressor, "fit_blocks"):
            raise ValueError(f"{type(self.regressor).__name__} has no fit_blocks: it needs its rows in one matrix")
        total, y_sum = summed(blocks.map(_target_sums))
        self.mean_ = float(y_sum / total)
        spread = float(np.sqrt(summed(blocks.map(_squared_deviations, self.mean_)) / total))
        self.scale_ = spread if spread > 0 else 1.0
        self.regressor_ = clone(self.regressor).fit_blocks(blocks.transform(_standardized, self.mean_, self.scale_))
        self.n_features_in_ = self.regressor_.n_features_in_
        return self

    def predict(self, X, return_std: bool = False):
        check_is_fitted(self)
        if return_std:
            mean, std = self.regressor_.predict(X, return_std=True)
            return self.mean_ + self.scale_ * mean, self.scale_ * std
        return self.mean_ + self.scale_ * self.regressor_.predict(X)

    def __getattr__(self, name: str):
        """coef_ / intercept_ and tree_ensemble of the wrapped model, in target units (only where it has them)."""
        if name in ("coef_", "intercept_", "tree_ensemble") and "regressor_" in vars(self):
            inner = self.regressor_
            if hasattr(inner, name):
                if name == "coef_":
                    return np.asarray(inner.coef_) * self.scale_
                if name == "intercept_":
                    return self.mean_ + self.scale_ * np.asarray(inner.intercept_)
                return self._tree_ensemble
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def _tree_ensemble(self) -> dict:
        ensemble = self.regressor_.tree_ensemble()
        return {
            **ensemble,
            "offset": self.mean_ + self.scale_ * np.asarray(ensemble["offset"], dtype=np.float64),
            "scale": self.scale_ * np.asarray(ensemble["scale"], dtype=np.float64),
        }


def returns_std(model) -> bool:
    """The model's predict takes return_std (a predictive distribution)."""
    target = model.regressor_ if isinstance(model, StandardizedTarget) else model
    return "return_std" in inspect.signature(target.predict).parameters


def _weights(block) -> np.ndarray:
    X, y, w = block
    return np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)


def _target_sums(block) -> tuple:
    w = _weights(block)
    return float(w.sum()), float(w @ np.asarray(block[1], dtype=np.float64))


def _squared_deviations(block, mean: float) -> float:
    w = _weights(block)
    return float(w @ (np.asarray(block[1], dtype=np.float64) - mean) ** 2)


def _standardized(block, mean: float, scale: float) -> tuple:
    X, y, w = block
    return X, (np.asarray(y, dtype=np.float64) - mean) / scale, w
