"""Conformal prediction intervals for regression, from held-out residuals.

Split conformal: on n held-out rows the absolute residuals R_i = |y_i - mu(x_i)|; q = the ceil((n + 1)(1 - alpha))-th
smallest; the interval of a new x is [mu(x) - q, mu(x) + q]. If the model mu never saw the held-out rows and the
rows are exchangeable, P(y in interval) >= 1 - alpha (Vovk et al. 2005; Lei et al. 2018, section 2.2).

CV+ (Barber, Candes, Ramdas and Tibshirani 2021, section 3): with K fold models mu_{-k}, each fitted without fold k,
and R_i = |y_i - mu_{-k(i)}(x_i)| the out-of-fold residuals, the interval of a new x is
[ the floor(alpha (n + 1))-th smallest of {mu_{-k(i)}(x) - R_i},  the ceil((1 - alpha)(n + 1))-th smallest of
{mu_{-k(i)}(x) + R_i} ]. Guaranteed coverage >= 1 - 2 alpha - sqrt(2 / n_fold) (1 - 2 alpha with one row per fold:
jackknife+); in practice close to 1 - alpha. Unlike split conformal it uses every training row both for fitting
and for calibration. An order statistic whose rank falls outside 1..n is -inf / +inf (too few rows for the level).

Normalized scores (Papadopoulos, Gammerman and Vovk 2008, "Normalized nonconformity measures for regression
conformal prediction"; Lei et al. 2018, section 5.2, locally weighted conformal): with a scale sigma(x) > 0 fitted
without the rows it scores, R_i = |y_i - mu(x_i)| / sigma(x_i) and the interval is mu(x) -/+ q sigma(x), wide where
the residuals are large and narrow where they are small; the guarantee is the same (the scores of exchangeable rows
are exchangeable). CV+ takes fold k's scale sigma_{-k} with its model: the values mu_{-k(i)}(x) -/+ R_i
sigma_{-k(i)}(x). sigma = 1 gives the plain intervals, float for float.
The order statistics come from a selection in the K folds' sorted residuals (mllib/conformal/_kernels.py), without
the n_new x n matrix; with many folds (jackknife+) partitioning that matrix chunk by chunk is cheaper; both give
the same floats.
Notes: not in the lecture notes; the references above.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..base import (
    OPEN_UNIT,
    BaseEstimator,
    check_array,
    check_class_indices,
    check_hyperparameters,
    check_is_fitted,
    check_rows,
    check_value,
    check_width,
)
from ..base.constraints import POSITIVE_FINITE
from .classification import _RANK_SLACK, conformal_quantile


def _check_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    y, p = check_array(y_true, ndim=1, name="y_true"), check_array(y_pred, ndim=1, name="y_pred")
    check_rows(y_true=y, y_pred=p)
    return y, p


class SplitConformalRegressor(BaseEstimator):
    """Intervals mu(x) -/+ q with coverage >= `coverage` from the residuals of held-out rows.
    fit(y_true, y_pred): held-out targets and the predictions of a model that never saw those rows.

    Parameters
    ----------
    coverage : float, default 0.9
        1 - alpha, the target probability that the interval holds the true value.

    Attributes
    ----------
    threshold_ : float
        q; +inf when too few rows for the level.
    n_calibration_ : int
        The number of held-out rows fitted on.
    """

    _constraints = {"coverage": OPEN_UNIT}

    def __init__(self, coverage: float = 0.9):
        self.coverage = coverage

    def fit(self, y_true, y_pred, scale=None) -> SplitConformalRegressor:
        """scale: sigma of each held-out row (normalized scores |y - mu| / sigma), or None (plain residuals)."""
        check_hyperparameters(self)
        y, p = _check_pair(y_true, y_pred)
        self.threshold_ = conformal_quantile(_scores(y, p, scale), self.coverage)
        self.n_calibration_ = int(y.size)
        return self

    def predict_interval(self, y_pred, scale=None) -> tuple[np.ndarray, np.ndarray]:
        """mu -/+ q (scale None), or mu -/+ q sigma with sigma the scale at each row (normalized scores)."""
        check_is_fitted(self)
        p = check_array(y_pred, ndim=None, name="y_pred")
        if scale is None:
            return p - self.threshold_, p + self.threshold_
        half = self.threshold_ * _checked_scale(scale, p.shape)
        return p - half, p + half


class CVPlusRegressor(BaseEstimator):
    """CV+ intervals from out-of-fold residuals and the fold models' predictions at new rows.
    fit(y_true, oof_pred, fold): every training row's target, its prediction by the model fitted without its fold,
    and that fold's index 0..K-1. predict_interval(fold_predictions): (n, K) predictions of the K fold models at the
    new rows (column k by the model fitted without fold k).

    Parameters
    ----------
    coverage : float, default 0.9
        1 - alpha; CV+ guarantees at least 1 - 2 alpha, close to 1 - alpha in practice.

    Attributes
    ----------
    residuals_ : ndarray
        The training rows' out-of-fold scores: |y - p|, divided by the row's scale when fit is given one.
    fold_ : ndarray
        Each training row's fold index.
    n_folds_ : int
        K, the number of folds.
    """

    _constraints = {"coverage": OPEN_UNIT}

    def __init__(self, coverage: float = 0.9):
        self.coverage = coverage

    def fit(self, y_true, oof_pred, fold, scale=None) -> CVPlusRegressor:
        """scale: sigma_{-k(i)}(x_i) of each row (normalized scores), or None (plain residuals)."""
        check_hyperparameters(self)
        y, p = _check_pair(y_true, oof_pred)
        fold = check_class_indices(fold, int(np.max(fold)) + 1, "fold", "the fold models")
        check_rows(y_true=y, fold=fold)
        self.residuals_ = _scores(y, p, scale)
        self.fold_ = fold.astype(np.int64)
        self.n_folds_ = int(fold.max()) + 1
        vars(self).pop("_by_fold", None)
        return self

    @functools.cached_property
    def _by_fold(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The residuals sorted within each fold, ascending and negated descending (mu - r is mu + (-r), the
        floating-point operation np.partition sees), and each fold's start. Kept for the next call, not saved."""
        order = np.lexsort((self.residuals_, self.fold_))
        ascending = self.residuals_[order]
        starts = np.concatenate([[0], np.cumsum(np.bincount(self.fold_, minlength=self.n_folds_))])
        descending = -np.concatenate([ascending[a:b][::-1] for a, b in zip(starts[:-1], starts[1:])])
        return ascending, descending, starts

    def _ranks(self) -> tuple[int, int]:
        n, alpha = self.residuals_.size, 1.0 - self.coverage
        return math.floor(alpha * (n + 1) + _RANK_SLACK), math.ceil((1 - alpha) * (n + 1) - _RANK_SLACK)

    def predict_interval(self, fold_predictions, fold_scales=None) -> tuple[np.ndarray, np.ndarray]:
        """fold_scales: (n, K), sigma_{-k} at each new row, for normalized scores (None: plain residuals)."""
        check_is_fitted(self)
        P = check_array(fold_predictions, name="fold_predictions")
        check_width(P, self.n_folds_, "fold_predictions", "CV+")  # one column per fold model
        S = None if fold_scales is None else _checked_scale(fold_scales, P.shape)
        n = self.residuals_.size
        low_rank, high_rank = self._ranks()
        lower, upper = np.full(P.shape[0], -np.inf), np.full(P.shape[0], np.inf)
        if _searches_beat_partition(n, self.n_folds_):
            from ._kernels import cv_plus_order_statistic  # numba: imported when used, not with mllib.conformal

            ascending, descending, starts = self._by_fold
            P = np.ascontiguousarray(P)
            S_or_ones = np.ones_like(P) if S is None else np.ascontiguousarray(S)  # 1 * r is r, float for float
            if low_rank >= 1:
                lower[:] = cv_plus_order_statistic(P, S_or_ones, descending, starts, low_rank)
            if high_rank <= n:
                upper[:] = cv_plus_order_statistic(P, S_or_ones, ascending, starts, high_rank)
        else:
            chunk = max(1, _PARTITION_ELEMENTS // n)
            for start in range(0, P.shape[0], chunk):
                rows = slice(start, start + chunk)
                mu = P[rows][:, self.fold_]  # mu_{-k(i)}(x) for every training row i
                spread = self.residuals_ if S is None else S[rows][:, self.fold_] * self.residuals_
                if low_rank >= 1:
                    lower[rows] = np.partition(mu - spread, low_rank - 1, axis=1)[:, low_rank - 1]
                if high_rank <= n:
                    upper[rows] = np.partition(mu + spread, high_rank - 1, axis=1)[:, high_rank - 1]
        return lower + 0.0, upper + 0.0  # -0.0 ties with 0.0 and either may be selected: one zero


def _scores(y: np.ndarray, p: np.ndarray, scale) -> np.ndarray:
    """|y - p|, divided by the rows' scale when one is given."""
    residuals = np.abs(y - p)
    return residuals if scale is None else residuals / _checked_scale(scale, y.shape)


def _checked_scale(scale, shape: tuple) -> np.ndarray:
    """A finite scale > 0 for each prediction (shape: the predictions', (n,) or (n, K))."""
    s = check_array(scale, ndim=len(shape), name="scale")
    check_rows(predictions=np.empty(shape[0]), scale=s)
    if len(shape) == 2:
        check_width(s, shape[1], "scale", "the fold models")
    check_value("", "the smallest scale", float(s.min()), POSITIVE_FINITE)
    return s


_PARTITION_ELEMENTS = 1 << 21  # 16 MB per temporary of the n_new x n_train matrix, chunk by chunk


def _searches_beat_partition(n: int, n_folds: int) -> bool:
    """Whether the selection in K sorted folds (O(K^2) per round for the weighted median) costs less than
    partitioning n values per row. Per new row (benchmarks/bench_conformal.py): n = 616,000, K = 5: 12 us against
    8.6 ms; n = 20,000, K = 100: 76 against 282 us; jackknife+ (K = n = 500): 105 against 8 us."""
    return n_folds * n_folds < n


def quantile_bins(values, n_bins: int = 5) -> np.ndarray:
    """Each value's bin 0..n_bins-1 between the values' own quantiles (j / n_bins): fifths for n_bins 5. Values at
    an edge go up; many tied values can leave a bin smaller or empty."""
    v = check_array(values, ndim=1, name="values")
    edges = np.quantile(v, np.arange(1, n_bins) / n_bins)
    return np.searchsorted(edges, v, side="right").astype(np.int64)


def interval_summary_by_bin(y_true, lower, upper, prediction, n_bins: int = 5) -> list[dict]:
    """interval_summary within each quantile bin of the prediction (quantile_bins: fifths by default), lowest
    predictions first, with the bin's prediction range: conditional coverage along the prediction, where a constant
    width misses (too wide where the target is small, too narrow where it is large)."""
    bins = quantile_bins(prediction, n_bins)
    p = np.asarray(prediction, dtype=np.float64)
    y, lower, upper = (np.asarray(a, dtype=np.float64) for a in (y_true, lower, upper))
    summaries = []
    for b in range(n_bins):
        rows = bins == b
        if rows.any():
            shown = interval_summary(y[rows], lower[rows], upper[rows])
            summaries.append({"bin": b + 1, "prediction": [float(p[rows].min()), float(p[rows].max())], **shown})
    return summaries


def interval_summary(y_true, lower, upper) -> dict:
    """Coverage (share of rows with lower <= y <= upper), mean and median width, n."""
    y = np.asarray(y_true, dtype=np.float64)
    lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    width = upper - lower
    return {
        "coverage": float(np.mean((lower <= y) & (y <= upper))),
        "mean_width": float(width.mean()),
        "median_width": float(np.median(width)),
        "n": int(y.size),
    }
