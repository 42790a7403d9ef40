"""Explainability: model-agnostic views of what a fitted model relies on.

Notes: seed 004, D4:2002-2056 (section 11.2); catalogue section 4.
"""
from .permutation import permutation_importance

__all__ = ["permutation_importance"]
