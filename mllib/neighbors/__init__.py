"""Nearest-neighbour learners: kNN and Parzen-window classifier and regressor, kd-tree (seed 002 section 4,
seed 001 section 6)."""

from .kdtree import build_kdtree, kdtree_query, kdtree_window_sums
from .knn import KNeighborsClassifier, KNeighborsRegressor, brute_kneighbors

__all__ = [
    "KNeighborsClassifier",
    "KNeighborsRegressor",
    "brute_kneighbors",
    "build_kdtree",
    "kdtree_query",
    "kdtree_window_sums",
]
