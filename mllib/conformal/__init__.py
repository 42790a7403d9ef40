"""Conformal prediction: sets (classification) and intervals (regression) with a finite-sample coverage guarantee,
from held-out scores.

Notes: not in the lecture notes; the standard split-conformal construction (Vovk, Gammerman and Shafer 2005;
Sadinle, Lei and Wasserman 2019 for the set rule used here; Angelopoulos and Bates 2021, section 1); normalized
scores for intervals whose width follows the errors (Papadopoulos, Gammerman and Vovk 2008).
"""

from .classification import SplitConformalClassifier, conformal_quantile, set_summary
from .normalized import ResidualScale, crossfitted_coverage
from .regression import (
    CVPlusRegressor,
    SplitConformalRegressor,
    interval_summary,
    interval_summary_by_bin,
    quantile_bins,
)

__all__ = [
    "CVPlusRegressor",
    "ResidualScale",
    "SplitConformalClassifier",
    "SplitConformalRegressor",
    "conformal_quantile",
    "crossfitted_coverage",
    "interval_summary",
    "interval_summary_by_bin",
    "quantile_bins",
    "set_summary",
]
