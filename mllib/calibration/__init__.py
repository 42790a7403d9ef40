"""Calibration: map scores to probabilities that mean what they say, and measure how far they are from it.

Notes: seed 004, D4:1935-1996 (section 11.1); seed 003, D3:164-177; catalogue section 3.
"""
from .calibration_error import expected_calibration_error, maximum_calibration_error
from .identity import NoCalibration
from .platt import PlattScaling
from .reliability import reliability_curve
from .scores import decision_scores

__all__ = ["PlattScaling", "NoCalibration", "decision_scores", "reliability_curve", "expected_calibration_error", "maximum_calibration_error"]
