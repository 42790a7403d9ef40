"""Calibration: map scores to probabilities that mean what they say, and measure how far they are from it.

Notes: seed 004, D4:1935-1996 (section 11.1); seed 003, D3:164-177; catalogue section 3.
Every calibrator fits on held-out (out-of-fold) scores: fit(scores, y, sample_weight=None),
transform(scores) -> p(y = 1), predict_proba(scores) -> (n, 2). For K > 2 classes, TemperatureScaling and
NoCalibration take (n, K) scores directly and OneVsRestCalibration wraps any binary calibrator. PlattScaling,
BetaCalibration and TemperatureScaling are strictly increasing in the score (they never reorder or tie two rows);
IsotonicCalibration's steps and HistogramBinning's bins tie the rows of a step or bin.

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Probabilistic classifier (164)
- Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1935)"""

from .beta import BetaCalibration
from .calibration_error import (
    calibration_summary,
    classwise_ece,
    expected_calibration_error,
    group_calibration_summary,
    maximum_calibration_error,
    top_label_calibration,
)
from .histogram import HistogramBinning
from .identity import NoCalibration
from .isotonic import IsotonicCalibration, pool_adjacent_violators
from .one_vs_rest import OneVsRestCalibration
from .platt import PlattScaling, platt_targets
from .reliability import reliability_curve
from .scores import decision_scores
from .temperature import TemperatureScaling

__all__ = [
    "PlattScaling",
    "BetaCalibration",
    "IsotonicCalibration",
    "TemperatureScaling",
    "HistogramBinning",
    "NoCalibration",
    "OneVsRestCalibration",
    "platt_targets",
    "pool_adjacent_violators",
    "decision_scores",
    "reliability_curve",
    "expected_calibration_error",
    "maximum_calibration_error",
    "calibration_summary",
    "group_calibration_summary",
    "top_label_calibration",
    "classwise_ece",
]
