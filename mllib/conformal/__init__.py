"""Conformal prediction: sets (classification) and intervals (regression) with a finite-sample coverage guarantee,
from held-out scores.

Notes: not in the lecture notes; the standard split-conformal construction (Vovk, Gammerman and Shafer 2005;
Sadinle, Lei and Wasserman 2019 for the set rule used here; Angelopoulos and Bates 2021, section 1).
"""

from .classification import SplitConformalClassifier, conformal_quantile, set_summary
from .regression import CVPlusRegressor, SplitConformalRegressor, interval_summary

__all__ = [
    "CVPlusRegressor",
    "SplitConformalClassifier",
    "SplitConformalRegressor",
    "conformal_quantile",
    "interval_summary",
    "set_summary",
]
