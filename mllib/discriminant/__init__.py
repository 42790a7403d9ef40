"""Discriminant projections and prototype classifiers: Fisher / multiple discriminant analysis, nearest centroid
(seed 000 lecture 3, seed 001 section 3)."""

from .centroid import NearestCentroid
from .fisher import FisherDiscriminant, LinearDiscriminantProjection

__all__ = ["FisherDiscriminant", "LinearDiscriminantProjection", "NearestCentroid"]
