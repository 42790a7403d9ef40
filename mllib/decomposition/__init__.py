"""Linear dimension reduction fitted on training rows only: principal component analysis."""

from .pca import PCA

__all__ = ["PCA"]
