"""No-skill baselines: what a model must beat to have learned anything from the features (seed 004, D4:389-409:
an error rate means little without the error of the trivial rule beside it).

Sections cited: Ghent ML notes (seed 004): 3.1 Error Functions for Model Selection (389)"""

from .prior import MeanRegressor, PriorClassifier

__all__ = ["MeanRegressor", "PriorClassifier"]
