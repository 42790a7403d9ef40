"""The regression kind of target (pipeline/core/task.py has the classification kinds): a numeric target encoded as
float64, every value finite; how it is encoded, described and split, and its defaults."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mllib import registry

from .errors import PipelineError
from .evaluation_records import RegressionCalibration, RegressionEvaluation
from .fairness_records import RegressionFairness
from .task_base import Target

if TYPE_CHECKING:
    from .task_base import Observed, Predictor, Response

QUANTILE_BINS = 5  # a regression target's strata: its quintiles
FIFTHS = 5  # the intervals' coverage is read along the prediction in fifths of the test predictions


class Regression(Target, kind="regression"):
    """A numeric target encoded as float64 (every value finite); models predict it in its units."""

    classifies = False
    estimators = registry.REGRESSORS
    default_models = ("ridge", "explainable_boosting_regressor", "gradient_boosting_regressor")
    headline_metric = "r2"
    test_metrics = ("rmse", "mae", "r2", "mean_residual")
    test_record = RegressionEvaluation
    calibration_record = RegressionCalibration
    fairness_record = RegressionFairness

    def encode(self, series: pd.Series) -> np.ndarray:
        encoded: np.ndarray = series.to_numpy(dtype=np.float64)
        return encoded

    def describe(self) -> str:
        return "regression target"

    def split_strategy(self, group: str | None) -> str:
        """split.strategy auto: plain k-fold, grouped when data.group is set (the stratified strategies stratify a
        regression target by its quantile bins, on request)."""
        return "group" if group else "kfold"

    def strata(self, y: np.ndarray) -> np.ndarray:
        """What stratified splits balance: the target's quantile bin (0..QUANTILE_BINS-1)."""
        edges = np.quantile(y, np.arange(1, QUANTILE_BINS) / QUANTILE_BINS)
        return np.searchsorted(edges, y, side="right").astype(np.int64)

    def class_counts(self, y: np.ndarray) -> np.ndarray:
        return np.zeros(0, dtype=np.int64)  # no classes: nothing for the split's class checks

    def counts(self, y: np.ndarray) -> dict[str, float]:
        """The target's mean, standard deviation and range over `y`."""
        return {"mean": float(y.mean()), "std": float(y.std()), "min": float(y.min()), "max": float(y.max())}

    shares = counts

    def distribution(self, values: pd.Series) -> dict[str, float]:
        """The target's mean and standard deviation over `values` (missing ones left out)."""
        numbers = pd.to_numeric(values[values.notna()], errors="coerce").dropna().to_numpy(dtype=np.float64)
        return {"mean": float(numbers.mean()), "std": float(numbers.std())} if numbers.size else {}

    @staticmethod
    def check_fits(observed: Observed, inferred: type[Target]) -> None:
        """data.task regression needs numbers."""
        if not observed.numeric:
            raise observed.forced("regression", f"is not numeric ({observed.found})")

    @classmethod
    def from_values(cls, observed: Observed, positive: object, reason: str) -> Target:
        """A numeric target whose every value is finite; data.positive_label has no meaning here."""
        observed.refuse_positive_label(positive, f"a regression target ({reason})")
        values = observed.values
        numbers = values.to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(numbers))
        if bad.size:
            raise PipelineError(
                f"{observed.source}: target column {observed.column!r} holds {bad.size} non-finite values (e.g. "
                f"{numbers[bad[0]]!r} at data row {values.index[bad[0]] + 1}); a regression target needs finite "
                "numbers: fix or remove those rows"
            )
        return cls("regression", observed.column, [], reason)

    @staticmethod
    def response(predictor: Predictor, response: str) -> Response:
        """The deployed regressor's prediction, whatever the scorer reads."""
        return predictor.predict
