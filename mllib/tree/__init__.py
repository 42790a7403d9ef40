"""CART decision trees (classifier and regressor), impurity criteria, histogram binning and cost-complexity pruning.

Notes: seed 000, lines 2566-2749 (catalogue I1-I3); seed 002, lines 1551-1629 (P12).

Sections cited:
- ML 1 lecture notes (seed 000): Lecture 10: Decision Trees and Random Forests (2566)
- Machine Learning lecture notes (seed 002): Decision Trees (1551)"""

from ._traversal import apply, fill_internal_values, find_leaf, mean_leaf_values
from .cart import DecisionTreeClassifier, DecisionTreeRegressor
from .criteria import entropy, gini, impurity_decrease, misclassification, realboost_z, squared_error
from .pruning import choose_ccp_alpha, pruning_path

__all__ = [
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "gini",
    "entropy",
    "misclassification",
    "realboost_z",
    "squared_error",
    "impurity_decrease",
    "pruning_path",
    "choose_ccp_alpha",
    # compiled traversal shared with the ensembles and gradient boosting (one leaf search for every tree)
    "apply",
    "fill_internal_values",
    "find_leaf",
    "mean_leaf_values",
]
