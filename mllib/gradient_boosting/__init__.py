"""Gradient tree boosting with histogram split finding: log-loss classifier and squared-error regressor
(seed 000, lines 3008-3028; seed 002, lines 1523-1549).

Sections cited:
- ML 1 lecture notes (seed 000): Gradient Tree Boosting - conceptually (3008)
- Machine Learning lecture notes (seed 002): Gradient Boosting (1523)"""

from .boosting import GradientBoostingClassifier, GradientBoostingRegressor

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor"]
