"""Linear models of the lecture notes."""

from .logistic import LogisticRegression
from .perceptron import Perceptron
from .svm import LinearSVM

__all__ = ["LinearSVM", "LogisticRegression", "Perceptron"]
