"""Linear models of the lecture notes."""
from .logistic import LogisticRegression

__all__ = ["LogisticRegression"]
