"""Bayes decision theory: Gaussian and naive Bayes classifiers (seed 000 lecture 1); their minimum-risk decisions
are mllib.decisions'."""

from .gaussian import GaussianBayesClassifier
from .naive import NaiveBayes

__all__ = ["GaussianBayesClassifier", "NaiveBayes"]
