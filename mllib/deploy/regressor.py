"""One deployed regressor: raw rows -> fitted features -> model -> prediction, with a conformal prediction interval.

Interval rule (mllib.conformal.regression): CV+ from the K fold pipelines (the features and the model fitted
without fold k) and the out-of-fold residuals, or split conformal (the final model's prediction -/+ the conformal
quantile of the out-of-fold absolute residuals). Models with a predictive distribution (Gaussian process, Bayesian
linear regression) also give their own Gaussian interval, mean -/+ z std, reported beside the conformal ones.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from ..base import BaseEstimator, Options, check_hyperparameters, check_is_fitted, check_value
from ..regression.target import returns_std

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
    """

    _constraints = {"interval_method": Options(INTERVAL_METHODS)}

    def __init__(
        self,
        features,
        model,
        split,
        cv_plus=None,
        fold_features=None,
        fold_models=None,
        interval_method: str = "cv_plus",
    ):
        self.features = features
        self.model = model
        self.split = split
        self.cv_plus = cv_plus
        self.fold_features = fold_features
        self.fold_models = fold_models
        self.interval_method = interval_method

    def fit(self, X=None, y=None) -> DeployedRegressor:
        """Check the parts (fitted where the pipeline fits them) and the interval method."""
        check_hyperparameters(self)
        for part in (self.features, self.model, self.split):
            check_is_fitted(part)
        if self.interval_method == "cv_plus" and (self.cv_plus is None or self.fold_models is None):
            raise ValueError("interval_method 'cv_plus' needs cv_plus, fold_features and fold_models")
        if self.cv_plus is not None:
            counts = {len(self.fold_features or []), len(self.fold_models or []), self.cv_plus.n_folds_}
            if len(counts) > 1:
                raise ValueError(
                    f"cv_plus was fitted on {self.cv_plus.n_folds_} folds but there are "
                    f"{len(self.fold_features or [])} fold transformers and {len(self.fold_models or [])} "
                    "fold models"
                )
        self.coverage_ = float(self.split.coverage)
        return self

    def transform(self, X) -> np.ndarray:
        check_is_fitted(self)
        return self.features.transform(X)

    def predict(self, X) -> np.ndarray:
        return self.model.predict(self.transform(X))

    def decision_rule(self) -> None:
        """A regressor decides nothing: its prediction is the output."""
        return None

    def predict_interval(self, X, method: str | None = None, prediction=None) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) of the deployed method (or `method`); prediction: predict(X), if already computed."""
        method = method or self.interval_method
        check_value("predict_interval", "method", method, self._constraints["interval_method"])
        if method == "cv_plus":
            folds = np.column_stack([m.predict(f.transform(X)) for f, m in zip(self.fold_features, self.fold_models)])
            return self.cv_plus.predict_interval(folds)
        return self.split.predict_interval(self.predict(X) if prediction is None else prediction)

    def model_interval(self, X) -> tuple[np.ndarray, np.ndarray] | None:
        """The model's own Gaussian interval mean -/+ z_{(1 + coverage) / 2} std, or None when it has no std."""
        if not returns_std(self.model):
            return None
        mean, std = self.model.predict(self.transform(X), return_std=True)
        z = ndtri(0.5 + self.coverage_ / 2)
        return mean - z * std, mean + z * std
