"""The regression kind of target (pipeline/core/task.py has the classification kinds): a numeric target encoded as
float64, every value finite; what its split, metrics, intervals and gate checks are."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mllib import registry

from .errors import PipelineError
from .evaluation_records import RegressionCalibration, RegressionEvaluation
from .fairness_records import RegressionFairness
from .task_base import Target, finite

QUANTILE_BINS = 5  # a regression target's strata: its quintiles
FIFTHS = 5  # the intervals' coverage is read along the prediction in fifths of the test predictions


class Regression(Target, kind="regression"):
    """A numeric target encoded as float64 (every value finite); models predict it in its units."""

    classifies = False
    estimators = registry.REGRESSORS
    default_models = ("ridge", "explainable_boosting_regressor", "gradient_boosting_regressor")
    tree = "decision_tree_regressor"
    no_skill_name = "mean"
    headline_metric, headline_label = "r2", "R^2"
    test_metrics = ("rmse", "mae", "r2", "mean_residual")
    test_record = RegressionEvaluation
    calibration_record = RegressionCalibration
    fairness_record = RegressionFairness
    fairness_gaps = ("interval_coverage_gap",)
    per_class = ""
    refused_projections = ("lda",)  # LDA projects onto directions that separate classes

    def encode(self, series: pd.Series) -> np.ndarray:
        return series.to_numpy(dtype=np.float64)

    def describe(self) -> str:
        return "regression target"

    def split_strategy(self, group) -> str:
        """split.strategy auto: plain k-fold, grouped when data.group is set (the stratified strategies stratify a
        regression target by its quantile bins, on request)."""
        return "group" if group else "kfold"

    def strata(self, y: np.ndarray) -> np.ndarray:
        """What stratified splits balance: the target's quantile bin (0..QUANTILE_BINS-1)."""
        edges = np.quantile(y, np.arange(1, QUANTILE_BINS) / QUANTILE_BINS)
        return np.searchsorted(edges, y, side="right").astype(np.int64)

    def class_counts(self, y: np.ndarray) -> np.ndarray:
        return np.zeros(0, dtype=np.int64)  # no classes: nothing for the split's class checks

    def counts(self, y: np.ndarray) -> dict:
        """The target's mean, standard deviation and range over `y`."""
        return {"mean": float(y.mean()), "std": float(y.std()), "min": float(y.min()), "max": float(y.max())}

    shares = counts

    def distribution(self, values: pd.Series) -> dict:
        """The target's mean and standard deviation over `values` (missing ones left out)."""
        numbers = pd.to_numeric(values[values.notna()], errors="coerce").dropna().to_numpy(dtype=np.float64)
        return {"mean": float(numbers.mean()), "std": float(numbers.std())} if numbers.size else {}

    def output_name(self) -> str:
        return f"predicted {self.column} (its units)"

    @staticmethod
    def check_fits(observed, inferred: type[Target]) -> None:
        """data.task regression needs numbers."""
        if not observed.numeric:
            raise observed.forced("regression", f"is not numeric ({observed.found})")

    @classmethod
    def from_values(cls, observed, positive, reason: str) -> Target:
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
        return Target("regression", observed.column, [], reason)

    def no_skill(self):
        from mllib.baseline import MeanRegressor

        return MeanRegressor()

    def fold_scores(self, model, X) -> np.ndarray:
        """The prediction on the scale the model is fitted on (log(y + c) for a log target: the scale the conformal
        intervals are computed on)."""
        from mllib.regression import fitted_scale_prediction

        return fitted_scale_prediction(model, X)

    explained = {
        "score": "prediction",
        "probability": "prediction",
        "relevance": "network output (the prediction of the standardized target)",
    }

    def explained_outputs(self) -> list[str]:
        return [self.column]

    @staticmethod
    def response(predictor, response: str):
        """The deployed regressor's prediction, whatever the scorer reads."""
        return predictor.predict

    @staticmethod
    def scorer_input(scorer, P, predictions: np.ndarray) -> np.ndarray:
        """What the search's scorer reads of the deployed outputs: the predictions."""
        return predictions

    @staticmethod
    def quality_figures(test: RegressionEvaluation, calibration: RegressionCalibration) -> dict:
        """The headline section of the deployed intervals: their test coverage and width, the coverage asked, and the
        worst fifth of the test predictions: its coverage and the lower end of its interval (what the gate reads)."""
        deployed, figures = test.intervals.deployed_summary, test.bootstrap.figures
        fifths = [figures[f"coverage_fifth_{k + 1}"] for k in range(FIFTHS) if f"coverage_fifth_{k + 1}" in figures]
        lows = [finite(f.interval[0]) for f in fifths]
        return {
            "intervals": {
                "coverage": deployed.coverage,
                "coverage_low": finite(figures["coverage"].interval[0]),
                "mean_width": deployed.mean_width,
                "target_coverage": test.intervals.coverage_target,
                "worst_fifth_coverage": min(
                    (finite(f.value) for f in fifths if finite(f.value) is not None), default=None
                ),
                "worst_fifth_coverage_low": None if None in lows or not lows else min(lows),
            }
        }

    @staticmethod
    def group_gaps(audit) -> dict:
        """The headline's gaps of one grouping (its RegressionAudit): absolute error, bias (mean residual) and
        interval coverage, each with its interval (difference, difference_interval)."""
        return {m: getattr(audit.gaps, m) for m in ("mae", "mean_residual", "interval_coverage")}

    @staticmethod
    def quality_check(figures: dict, cfg: dict) -> tuple[str, float | None, float | None, str]:
        """The promotion gate's check of the intervals: how far the lower end of the coverage's interval in the worst
        fifth of the test predictions falls short of the coverage asked. The promise is made to every row, so it is
        held where the intervals hold least: an overall 0.90 can be 0.99 on small predictions and 0.66 on the largest
        fifth (a constant width on a skewed target). Its lower end also bounds the overall coverage's from below, up
        to the draws' noise: the overall check is implied."""
        coverage, target = figures.get("intervals.worst_fifth_coverage_low"), figures.get("intervals.target_coverage")
        shortfall = None if coverage is None else target - coverage
        name = (
            "interval coverage shortfall in the worst fifth of predictions (target - lower end of its coverage's "
            "interval) <= max_coverage_shortfall"
        )
        fix = (
            "calibration.interval_score normalized (intervals scale with the prediction), or model.target_transform log"
        )
        return name, shortfall, cfg["max_coverage_shortfall"], fix

    @staticmethod
    def decision_checks(figures: dict, cfg: dict, costs_set: bool) -> list[tuple]:
        """A regression target makes no decisions: no checks."""
        return []

    @staticmethod
    def point_metrics(y: np.ndarray, pred: np.ndarray) -> dict[str, float]:
        """RMSE, MAE, R^2 and the mean residual of the predictions `pred`."""
        from mllib.metrics import mean_absolute_error, mean_squared_error, r2_score

        return {
            "rmse": float(np.sqrt(mean_squared_error(y, pred))),
            "mae": mean_absolute_error(y, pred),
            "r2": r2_score(y, pred),
            "mean_residual": float(np.mean(y - pred)),
        }

    def test_figures(
        self, y: np.ndarray, pred: np.ndarray, lower: np.ndarray, upper: np.ndarray, fifth: np.ndarray
    ) -> dict[str, float]:
        """The test figures given an interval (evaluate.n_boot): the point metrics and the deployed intervals'
        coverage, overall and in each fifth of the test predictions (fifth: each row's, 0..4; NaN where a draw has
        none of its rows)."""
        covered = (lower <= y) & (y <= upper)
        by_fifth = {
            f"coverage_fifth_{k + 1}": float(covered[fifth == k].mean()) if np.any(fifth == k) else math.nan
            for k in range(FIFTHS)
        }
        return self.point_metrics(y, pred) | {"coverage": float(np.mean(covered))} | by_fifth
