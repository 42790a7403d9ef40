"""Explainable boosting machines: additive models of shape functions per feature and per pair of features (GA2M),
fitted by bagged cyclic gradient boosting (Lou, Caruana & Gehrke 2012; Lou et al. 2013; Nori et al. 2019).

Notes: seed 000, lines 4342-4356 (ante-hoc interpretability: f(x) = sum_i g_i(x_i)); seed 000, lines 3008-3028 and
seed 002, lines 1523-1549 (gradient boosting).

Sections cited:
- ML 1 lecture notes (seed 000): Approaches to interpretability (4342)
- ML 1 lecture notes (seed 000): Gradient Tree Boosting - conceptually (3008)
- Machine Learning lecture notes (seed 002): Gradient Boosting (1523)"""

from .explainable_boosting import ExplainableBoostingClassifier, ExplainableBoostingRegressor

__all__ = ["ExplainableBoostingClassifier", "ExplainableBoostingRegressor"]
