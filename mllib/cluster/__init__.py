"""Clustering and mixture models of the lecture notes: k-means (Lloyd) and Gaussian mixtures (EM)."""

from .gaussian_mixture import GaussianMixture
from .kmeans import KMeans

__all__ = ["KMeans", "GaussianMixture"]
