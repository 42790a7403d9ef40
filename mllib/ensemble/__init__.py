"""Ensembles of trees and other learners: random forests, bagging and the AdaBoost family.

Notes: seed 000, lines 2843-2968 (bagging, random forests) and 2969-3520 (boosting); seed 002, lines 1396-1521,
1654-1667; seed-001-003-004 catalogue sections 6 and 7.9-7.10.
"""

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
