"""One deployed regressor: raw rows -> fitted features -> model -> prediction, with a conformal prediction interval.

Interval rule (mllib.conformal.regression): CV+ from the K fold pipelines (the features and the model fitted
without fold k) and the out-of-fold residuals, or split conformal (the final model's prediction -/+ the conformal
quantile of the out-of-fold absolute residuals); with a scale (mllib.conformal.ResidualScale, one per fold for CV+),
of the normalized residuals |y - mu| / sigma(mu), so the width follows the errors. Models with a predictive
distribution (Gaussian process, Bayesian linear regression) also give their own Gaussian interval, mean -/+ z std,
reported beside the conformal ones.

A model fitted on log(y + c) (mllib.regression.LogTarget) predicts in y's units through its back-transform (the
smearing estimate of the mean, or the median); its intervals are computed on the scale it is fitted on, from the log-
scale residuals and predictions, and their ends mapped back by exp(.) - c: a monotone map, so the coverage is kept and
the width grows with the prediction. A floor (0 for a target never negative) holds every prediction and interval end
at or above it: a clip, counted by the caller from predict_unclipped; the interval ends need no count, a value below
the floor being impossible.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from ..base import FINITE, BaseEstimator, Options, check_hyperparameters, check_is_fitted, check_value
from ..regression.target import LogTarget, fitted_scale_prediction, returns_std

INTERVAL_METHODS = ("cv_plus", "split")


class DeployedRegressor(BaseEstimator):
    """features -> model, and the interval of `interval_method`.

    Parameters
    ----------
    features : transformer
        The transformer fitted on every training row.
    model : regressor
        The regressor fitted on every training row.
    split : SplitConformalRegressor
        Fitted on the out-of-fold residuals.
    cv_plus : CVPlusRegressor or None, default None
        Fitted on the out-of-fold residuals (needed for "cv_plus").
    fold_features : list of transformers or None, default None
        Per fold k, the transformer fitted without fold k (needed for "cv_plus").
    fold_models : list of regressors or None, default None
        Per fold k, the model fitted without fold k (needed for "cv_plus").
    interval_method : {"cv_plus", "split"}, default "cv_plus"
        Which conformal interval predict_interval returns.
    floor : float or None, default None
        The least value a prediction or an interval end takes (0 for a target that is never negative; None: no
        floor).
    scale : ResidualScale or None, default None
        sigma of the split interval's normalized scores, fitted on every out-of-fold residual (None: plain
        residuals).
    fold_scales : list of ResidualScale or None, default None
        Per fold k, sigma_{-k} of CV+'s normalized scores, fitted without fold k (None: plain residuals).
    """

    _constraints = {"interval_method": Options(INTERVAL_METHODS), "floor": [Options((None,)), FINITE]}

    def __init__(
        self,
        features,
        model,
        split,
        cv_plus=None,
        fold_features=None,
        fold_models=None,
        interval_method: str = "cv_plus",
        floor: float | None = None,
        scale=None,
        fold_scales=None,
    ):
        self.features = features
        self.model = model
        self.split = split
        self.cv_plus = cv_plus
        self.fold_features = fold_features
        self.fold_models = fold_models
        self.interval_method = interval_method
        self.floor = floor
        self.scale = scale
        self.fold_scales = fold_scales

    def fit(self, X=None, y=None) -> DeployedRegressor:
        """Check the parts (fitted where the pipeline fits them) and the interval method."""
        check_hyperparameters(self)
        for part in (self.features, self.model, self.split):
            check_is_fitted(part)
        if self.interval_method == "cv_plus" and (self.cv_plus is None or self.fold_models is None):
            raise ValueError("interval_method 'cv_plus' needs cv_plus, fold_features and fold_models")
        if self.cv_plus is not None:
            parts = [
                self.fold_features or [],
                self.fold_models or [],
                *([self.fold_scales] if self.fold_scales else []),
            ]
            if {len(p) for p in parts} != {self.cv_plus.n_folds_}:
                scales = f" ({len(self.fold_scales)} fold scales)" if self.fold_scales else ""
                raise ValueError(
                    f"cv_plus was fitted on {self.cv_plus.n_folds_} folds but there are "
                    f"{len(self.fold_features or [])} fold transformers and {len(self.fold_models or [])} "
                    f"fold models{scales}"
                )
        self.coverage_ = float(self.split.coverage)
        return self

    def transform(self, X) -> np.ndarray:
        check_is_fitted(self)
        return self.features.transform(X)

    def predict(self, X) -> np.ndarray:
        return self.floored(self.predict_unclipped(X))

    def predict_unclipped(self, X) -> np.ndarray:
        """The model's prediction in y's units before the floor."""
        return self.model.predict(self.transform(X))

    def decision_rule(self) -> None:
        """A regressor decides nothing: its prediction is the output."""
        return None

    def predict_interval(self, X, method: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) of the deployed method (or `method`), in y's units."""
        method = method or self.interval_method
        check_value("predict_interval", "method", method, self._constraints["interval_method"])
        if method == "cv_plus":
            folds = np.column_stack(
                [fitted_scale_prediction(m, f.transform(X)) for f, m in zip(self.fold_features, self.fold_models)]
            )
            scales = None if self.fold_scales is None else np.column_stack(
                [s.predict(folds[:, k]) for k, s in enumerate(self.fold_scales)]
            )  # fmt: skip
            lower, upper = self.cv_plus.predict_interval(folds, scales)
        else:
            centre = fitted_scale_prediction(self.model, self.transform(X))
            lower, upper = self.split.predict_interval(
                centre, None if self.scale is None else self.scale.predict(centre)
            )
        return self._in_target_units(lower), self._in_target_units(upper)

    def _in_target_units(self, bound: np.ndarray) -> np.ndarray:
        """An interval end on the model's fitted scale in y's units (a log target's exp(b) - c), at least the floor."""
        if isinstance(self.model, LogTarget):
            bound = self.model.quantile_from_log(bound)
        return self.floored(bound)

    def floored(self, values: np.ndarray) -> np.ndarray:
        """The values, at least the floor."""
        return values if self.floor is None else np.maximum(values, self.floor)

    def model_interval(self, X) -> tuple[np.ndarray, np.ndarray] | None:
        """The model's own Gaussian interval mean -/+ z_{(1 + coverage) / 2} std, or None when it has no std."""
        if not returns_std(self.model):
            return None
        mean, std = self.model.predict(self.transform(X), return_std=True)
        z = ndtri(0.5 + self.coverage_ / 2)
        return self.floored(mean - z * std), self.floored(mean + z * std)
