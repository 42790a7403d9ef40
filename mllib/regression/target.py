"""Regressors fitted on a transformed target, their predictions mapped back to the target's units.

StandardizedTarget: z = (y - mean) / scale, prediction = mean + scale * f(x). Models without an intercept (kernel
ridge, Gaussian processes with a zero prior mean, networks whose output bias starts at 0) fit a target far from 0
badly, and penalties and noise precisions given in target units change meaning with the target's scale. Fitting on z
makes their hyperparameters scale-free (scikit-learn's TransformedTargetRegressor with a StandardScaler). Ridge with an
unpenalized intercept and trees give the same predictions either way. What the explainers read is given back in
target units: coef_ / intercept_ of a linear model, tree_ensemble() of a tree model, the predictive std of a
probabilistic one.

LogTarget: z = log(y + c), for a non-negative target whose spread grows with its level (prices, incomes, counts): a
multiplicative error y = m(x) e becomes the additive log y = log m(x) + log e that least squares and trees fit well,
and exp of any prediction is positive. Back to y's units (Duan 1983, "Smearing estimate: a nonparametric
retransformation method", JASA 78, 605-610): exp(f(x)) - c estimates the conditional median of y when the log-scale
errors are symmetric, not its mean (E[exp(e)] > exp(E[e]): Jensen); Duan's smearing estimate corrects for the mean
without assuming a distribution for e,
    E[y | x] = exp(f(x)) E[exp(e)] - c,   E[exp(e)] estimated by S = sum_i w_i exp(e_i) / sum_i w_i,
e_i = log(y_i + c) - f(x_i) the fit's residuals on its training rows (Duan's definition: in-sample residuals, so a
model that interpolates its rows leaves S near 1 and predicts medians). Quantiles need no correction: a monotone map
carries them, so an interval for log(y + c) maps to one for y with the same coverage (exp(lower) - c, exp(upper) -
c). c = 0 when every training value is positive; with zeros, c = the smallest positive value (log1p's c = 1 is in the
target's units: it would treat prices in dollars and in thousands of dollars differently). The explainers read the
wrapped model: their attributions add up to the log-scale prediction f(x).
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from ..base import (
    POSITIVE,
    BaseEstimator,
    HasMethod,
    Interval,
    Options,
    RegressorMixin,
    check_hyperparameters,
    check_is_fitted,
    check_sample_weight,
    check_value,
    check_X_y,
    clone,
    fit_blocks_with_groups,
    takes_groups,
)
from ..base.blocks import summed

BACK_TRANSFORMS = ("mean", "median")


class _TargetWrapper(RegressorMixin, BaseEstimator):
    """What both wrappers share: the wrapped regressor's hyperparameters set through the wrapper (set_params(lam=1.0)
    sets the wrapped regressor's lam: a grid search over the wrapped model's grid), and its fit on the transformed
    target with the rows' weights and groups."""

    def set_params(self, **params) -> _TargetWrapper:
        own = {k: v for k, v in params.items() if k.partition("__")[0] in self._param_names()}
        super().set_params(**own)
        inner = {k: v for k, v in params.items() if k not in own}
        if inner:
            self.regressor.set_params(**inner)
        return self

    def _fit_wrapped(self, X: np.ndarray, z: np.ndarray, sample_weight, groups) -> None:
        """regressor_: a clone of the regressor fitted on (X, z); groups reach it when its fit takes them."""
        self.regressor_ = clone(self.regressor)
        weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
        grouped = {"groups": groups} if groups is not None and takes_groups(self.regressor_) else {}
        self.regressor_.fit(X, z, **weighted, **grouped)
        self.n_features_in_ = X.shape[1]


class StandardizedTarget(_TargetWrapper):
    """A regressor fitted on the standardized target (y - mean) / scale, its predictions mapped back. Its
    hyperparameters are set through this wrapper: set_params(lam=1.0) sets the wrapped regressor's lam (grid search
    over the wrapped model's grid).

    Parameters
    ----------
    regressor : regressor
        An unfitted mllib regressor.

    Attributes
    ----------
    mean_ : float
        The weighted mean of y.
    scale_ : float
        The weighted standard deviation of y; 1 for a constant y.
    regressor_ : regressor
        The fitted clone of `regressor`.
    """

    def __init__(self, regressor):
        self.regressor = regressor

    def fit(self, X, y, sample_weight=None, groups=None) -> StandardizedTarget:
        """groups reach the wrapped regressor when its fit takes them (fit_with_groups)."""
        X, y = check_X_y(X, y, y_numeric=True)
        w = check_sample_weight(sample_weight, X.shape[0])
        self.mean_ = float(np.average(y, weights=w))
        spread = float(np.sqrt(np.average((y - self.mean_) ** 2, weights=w)))
        self.scale_ = spread if spread > 0 else 1.0
        self._fit_wrapped(X, (y - self.mean_) / self.scale_, None if sample_weight is None else w, groups)
        return self

    def fit_blocks(self, blocks, groups=None):
        """fit from rows held in blocks (mllib.base.RowBlocks; a block is (X, y, sample_weight or None)): the target's
        weighted mean and spread in two passes over the blocks, then the wrapped regressor's fit_blocks on the
        standardized target (held where the blocks are); groups reach it when its fit_blocks takes them."""
        if not hasattr(self.regressor, "fit_blocks"):
            raise ValueError(f"{type(self.regressor).__name__} has no fit_blocks: it needs its rows in one matrix")
        total, y_sum = summed(blocks.map(_target_sums))
        self.mean_ = float(y_sum / total)
        spread = float(np.sqrt(summed(blocks.map(_squared_deviations, self.mean_)) / total))
        self.scale_ = spread if spread > 0 else 1.0
        standardized = blocks.transform(_standardized, self.mean_, self.scale_)
        self.regressor_ = fit_blocks_with_groups(clone(self.regressor), standardized, groups)
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


_FINITE_SHIFT = Interval(False, 0, math.inf, "left", "a finite number >= 0")


def log_shift(y) -> float:
    """c of log(y + c): 0 when every value is positive, else the smallest positive value (1 when there is none)."""
    y = np.asarray(y, dtype=np.float64)
    if y.min() > 0:
        return 0.0
    positive = y[y > 0]
    return float(positive.min()) if positive.size else 1.0


class LogTarget(_TargetWrapper):
    """A regressor fitted on log(y + shift), its predictions mapped back to y's units: the mean (Duan's smearing
    estimate) or the median. Its hyperparameters are set through this wrapper, as StandardizedTarget's.

    Parameters
    ----------
    regressor : regressor
        An unfitted mllib regressor (the pipeline's: a StandardizedTarget, which standardizes the log target).
    shift : float or None, default None
        c of log(y + c), >= 0; None: log_shift of the training target (0 when every value is positive). Fold models
        whose intervals are pooled need one c: give it.
    back_transform : {"mean", "median"}, default "mean"
        "mean": exp(f(x)) S - c with S Duan's smearing estimate (what squared error rewards); "median": exp(f(x)) - c
        (what absolute error rewards).

    Attributes
    ----------
    shift_ : float
        c, the shift of log(y + c).
    smearing_ : float
        S; 1.0 for "median".
    log_range_ : ndarray
        The smallest and largest log(y + c) of the training rows: f(x) is held inside it before exp, as a tree's
        predictions are; a linear f extrapolated by exp turned a diamond's mistyped width of 58.9 mm into a price R^2
        of -10^9 on a validation fold.
    regressor_ : regressor
        The fitted clone of `regressor`.
    n_features_in_ : int
        The number of input columns.
    """

    _constraints = {
        "regressor": HasMethod("fit", "a regressor"),
        "shift": [Options((None,)), _FINITE_SHIFT],
        "back_transform": Options(BACK_TRANSFORMS),
    }

    def __init__(self, regressor, shift: float | None = None, back_transform: str = "mean"):
        self.regressor = regressor
        self.shift = shift
        self.back_transform = back_transform

    def _set_shift(self, lowest: float, shift: float) -> None:
        """shift_ from the given shift (log_shift's when the shift is None: a target that is never negative)."""
        check_hyperparameters(self)
        if self.shift is None:
            check_value(type(self).__name__, "the smallest y (shift None)", lowest, _FINITE_SHIFT)
        self.shift_ = float(shift)
        check_value(type(self).__name__, "the smallest y + shift", lowest + self.shift_, POSITIVE)  # its log

    def fit(self, X, y, sample_weight=None, groups=None) -> LogTarget:
        """groups reach the wrapped regressor when its fit takes them (fit_with_groups)."""
        X, y = check_X_y(X, y, y_numeric=True)
        w = check_sample_weight(sample_weight, X.shape[0])
        lowest = float(y.min())
        self._set_shift(lowest, (log_shift(y) if lowest >= 0 else 0.0) if self.shift is None else self.shift)
        z = self.log_target(y)
        self.log_range_ = np.array([z.min(), z.max()])
        self._fit_wrapped(X, z, None if sample_weight is None else w, groups)
        residual = z - self.regressor_.predict(X)
        self.smearing_ = float(np.average(_exp(residual), weights=w)) if self.back_transform == "mean" else 1.0
        return self

    def fit_blocks(self, blocks, groups=None):
        """fit from rows held in blocks (mllib.base.RowBlocks; a block is (X, y, sample_weight or None)): the wrapped
        regressor's fit_blocks on log(y + c) (held where the blocks are; groups reach it when it takes them), then the
        smearing estimate's two sums."""
        lowest = min(blocks.map(_lowest))
        self._set_shift(lowest, self.shift if self.shift is not None else _shift_of_blocks(blocks, lowest))
        logged = blocks.transform(_logged, self.shift_)
        ranges = np.array(logged.map(_target_range))
        self.log_range_ = np.array([ranges[:, 0].min(), ranges[:, 1].max()])
        self.regressor_ = fit_blocks_with_groups(clone(self.regressor), logged, groups)
        self.n_features_in_ = self.regressor_.n_features_in_
        if self.back_transform == "mean":
            total, smeared = summed(logged.map(_smeared_sums, self.regressor_))
            self.smearing_ = float(smeared / total)
        else:
            self.smearing_ = 1.0
        return self

    def log_target(self, y) -> np.ndarray:
        """log(y + c): the scale the wrapped regressor is fitted on."""
        check_is_fitted(self)
        return np.log(np.asarray(y, dtype=np.float64) + self.shift_)

    def predict_log(self, X) -> np.ndarray:
        """f(x): the wrapped regressor's prediction of log(y + c)."""
        check_is_fitted(self)
        return self.regressor_.predict(X)

    def from_log(self, z) -> np.ndarray:
        """The point prediction in y's units of log-scale predictions z: exp(z) S - c (S = 1 for the median), z held
        in log_range_."""
        check_is_fitted(self)
        return _exp(self._in_range(z)) * self.smearing_ - self.shift_

    def quantile_from_log(self, z) -> np.ndarray:
        """A quantile of log(y + c) in y's units, exp(z) - c: the monotone map, no smearing (interval ends; z held
        in log_range_)."""
        check_is_fitted(self)
        return _exp(self._in_range(z)) - self.shift_

    def _in_range(self, z) -> np.ndarray:
        return np.clip(np.asarray(z, dtype=np.float64), *self.log_range_)

    def predict(self, X) -> np.ndarray:
        return self.from_log(self.predict_log(X))

    def __getattr__(self, name: str):
        """coef_ / intercept_ and tree_ensemble of the wrapped model, on the log scale (only where it has them)."""
        if name in ("coef_", "intercept_", "tree_ensemble") and "regressor_" in vars(self):
            return getattr(self.regressor_, name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")


def _exp(z) -> np.ndarray:
    """exp element by element through the C library's exp (inf beyond the largest float). numpy's AVX-512 loop for
    float64 exp gives other last bits than the C library's, which numpy uses where its dispatch is pinned to x86-64-v3
    (importing pipeline pins it); a served model's process may load numpy before the pin (MLflow does), so the same
    deployed regressor would predict prices an ulp apart in the stage and in the server."""
    z = np.asarray(z, dtype=np.float64)
    return np.fromiter(map(_exp_one, z.ravel().tolist()), dtype=np.float64, count=z.size).reshape(z.shape)


def _exp_one(value: float) -> float:
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def fitted_scale_prediction(model, X) -> np.ndarray:
    """The prediction on the scale the model is fitted on: log(y + c) for a LogTarget, y's units otherwise (what
    conformal intervals of a log target are computed on)."""
    return model.predict_log(X) if isinstance(model, LogTarget) else model.predict(X)


def returns_std(model) -> bool:
    """The model's predict takes return_std (a predictive distribution; a LogTarget's does not)."""
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


def _lowest(block) -> float:
    return float(np.min(block[1]))


def _lowest_positive(block) -> float:
    y = np.asarray(block[1], dtype=np.float64)
    return float(y[y > 0].min()) if np.any(y > 0) else math.inf


def _shift_of_blocks(blocks, lowest: float) -> float:
    """log_shift over every block's rows."""
    if lowest > 0:
        return 0.0
    smallest = min(blocks.map(_lowest_positive))
    return smallest if math.isfinite(smallest) else 1.0


def _target_range(block) -> tuple:
    return float(np.min(block[1])), float(np.max(block[1]))


def _logged(block, shift: float) -> tuple:
    X, y, w = block
    return X, np.log(np.asarray(y, dtype=np.float64) + shift), w


def _smeared_sums(block, model) -> tuple:
    X, z, w = block
    weights = _weights(block)
    return float(weights.sum()), float(weights @ _exp(z - model.predict(X)))
