"""Ensembles of trees and other learners: random forests, bagging and the AdaBoost family.

Notes: seed 000, lines 2843-2968 (bagging, random forests) and 2969-3520 (boosting); seed 002, lines 1396-1521,
1654-1667; seed-001-003-004 catalogue sections 6 and 7.9-7.10.

Sections cited:
- ML 1 lecture notes (seed 000): → Decision Tree regularization via model averaging (ensembles) (2843)
- Machine Learning lecture notes (seed 002): Bootstrap & Bagging (1396)"""

from .adaboost import AdaBoostClassifier
from .bagging import BaggingClassifier, BaggingRegressor
from .forest import RandomForestClassifier, RandomForestRegressor
from .stacking import StackingClassifier, StackingRegressor

__all__ = [
    "RandomForestClassifier",
    "RandomForestRegressor",
    "StackingClassifier",
    "StackingRegressor",
    "BaggingClassifier",
    "BaggingRegressor",
    "AdaBoostClassifier",
]
