"""Embeddings of the lecture notes: classical multidimensional scaling."""

from .mds import ClassicalMDS, stress

__all__ = ["ClassicalMDS", "stress"]
