"""The deployed predictor: fitted features -> model -> calibrator -> decision rule, as one object that every
consumer (evaluation, fairness audit, explanations, the served model) calls, so their decisions agree by
construction. Saved and loaded as one no-pickle artifact with mllib.io."""

from .predictor import DeployedPredictor
from .regressor import INTERVAL_METHODS, DeployedRegressor

__all__ = ["INTERVAL_METHODS", "DeployedPredictor", "DeployedRegressor"]
