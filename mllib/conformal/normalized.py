"""The scale of normalized conformal scores, and a cross-fitted look at the coverage it gives.

Normalized scores |y - mu(x)| / sigma(x) (Papadopoulos, Gammerman and Vovk 2008; Lei et al. 2018, section 5.2) make
an interval wide where the model errs much and narrow where it errs little; sigma must not have seen the rows it
scores. Lei et al. fit sigma(x) as a regression of the absolute residuals on x. Here sigma is a function of the
prediction alone, sigma(mu(x)): the heteroscedasticity of a skewed target (errors that grow with the level) is a
function of the level, the scale needs no features, and one smooth curve of one variable cannot overfit the rows it
is fitted on. The curve passes through a statistic of the absolute residuals in each of `n_bins` bins of equal rows
ordered by the prediction (at the bins' mean predictions), linear between them and constant beyond the outer ones,
never below `floor_share` of the statistic over every row (a score divided by a scale near 0 would be unbounded).
The statistic is the mean absolute residual, or its `level` quantile: at the interval's coverage, the score is about
1 at the interval's edge in every bin, whatever the shape of the residuals there (heavier tails where the target is
large), so the coverage holds along the prediction and not only on average: a smoothed form of conformal prediction
within bins of the prediction (Mondrian conformal regressors, Bostrom and Johansson 2020), which keeps one
calibration set and so the global guarantee.

Cross-fitted coverage: for the rows of fold k, the split-conformal interval around their out-of-fold predictions
whose quantile (and scale) comes from the other folds' rows only, so every row is judged by an interval fitted
without it: what the intervals would hold on new rows, per row, to compare plain and normalized scores within bins
of the prediction before any test row is seen.
Notes: not in the lecture notes; the references above.
"""

from __future__ import annotations

import numpy as np

from ..base import (
    OPEN_UNIT,
    OPTIONAL,
    BaseEstimator,
    check_array,
    check_hyperparameters,
    check_is_fitted,
    check_rows,
    positive_int,
)
from .classification import conformal_quantile


class ResidualScale(BaseEstimator):
    """sigma(mu): the mean absolute residual, or its `level` quantile, as a piecewise linear function of the
    prediction. fit(prediction, absolute_residual) on held-out rows; predict(prediction) > 0.

    Parameters
    ----------
    n_bins : int, default 20
        Bins of equal rows ordered by the prediction (fewer when there are fewer than min_rows rows per bin: one bin
        is a constant scale, the plain residuals).
    min_rows : int, default 100
        Rows per bin at least.
    level : float or None, default None
        The quantile of the absolute residuals in each bin (the interval's coverage); None: their mean.
    floor_share : float, default 0.05
        The scale is at least this share of the statistic over every row.

    Attributes
    ----------
    centres_ : ndarray
        The bins' mean predictions, increasing.
    values_ : ndarray
        Their statistic, floored.
    floor_ : float
        The floor: floor_share times the statistic over every row.
    """

    _constraints = {
        "n_bins": positive_int(1),
        "min_rows": positive_int(1),
        "level": [OPTIONAL, OPEN_UNIT],
        "floor_share": OPEN_UNIT,
    }

    def __init__(self, n_bins: int = 20, min_rows: int = 100, level: float | None = None, floor_share: float = 0.05):
        self.n_bins = n_bins
        self.min_rows = min_rows
        self.level = level
        self.floor_share = floor_share

    def _statistic(self, r: np.ndarray) -> float:
        return float(r.mean() if self.level is None else np.quantile(r, self.level))

    def fit(self, prediction, absolute_residual) -> ResidualScale:
        check_hyperparameters(self)
        p = check_array(prediction, ndim=1, name="prediction")
        r = np.abs(check_array(absolute_residual, ndim=1, name="absolute_residual"))
        n = check_rows(prediction=p, absolute_residual=r)
        bins = np.array_split(np.argsort(p, kind="stable"), max(1, min(self.n_bins, n // self.min_rows)))
        centres = np.array([p[b].mean() for b in bins])
        statistics = np.array([self._statistic(r[b]) for b in bins])
        self.centres_, merged = np.unique(centres, return_inverse=True)  # tied predictions: one point
        values = np.bincount(merged, weights=statistics) / np.bincount(merged)
        overall = self._statistic(r)
        self.floor_ = self.floor_share * overall if overall > 0 else 1.0  # no residual at all: any scale will do
        self.values_ = np.maximum(values, self.floor_)
        return self

    def predict(self, prediction) -> np.ndarray:
        check_is_fitted(self)
        p = check_array(prediction, ndim=None, name="prediction")
        return np.interp(p, self.centres_, self.values_)


def crossfitted_coverage(y_true, oof_pred, fold, coverage: float, scales: list | None = None) -> np.ndarray:
    """Whether each row lies in the split-conformal interval fitted without its fold: for fold k, the
    ceil((m + 1) coverage)-th smallest score of the m rows of the other folds, the score |y - mu| (scales None) or
    |y - mu| / sigma_{-k}(mu) with scales[k] a fitted ResidualScale (fitted on the other folds' rows)."""
    y = check_array(y_true, ndim=1, name="y_true")
    p = check_array(oof_pred, ndim=1, name="oof_pred")
    fold = np.asarray(fold)
    check_rows(y_true=y, oof_pred=p, fold=fold)
    residual = np.abs(y - p)
    covered = np.zeros(y.size, dtype=bool)
    for k in np.unique(fold):
        inside, others = fold == k, fold != k
        scale = np.ones(y.size) if scales is None else scales[k].predict(p)
        threshold = conformal_quantile(residual[others] / scale[others], coverage)
        covered[inside] = residual[inside] <= threshold * scale[inside]
    return covered
