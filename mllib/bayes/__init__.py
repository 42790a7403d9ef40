"""Bayes decision theory: Gaussian and naive Bayes classifiers, minimum-risk decisions (seed 000 lecture 1)."""

from .decision import min_risk_decision
from .gaussian import GaussianBayesClassifier
from .naive import NaiveBayes

__all__ = ["GaussianBayesClassifier", "NaiveBayes", "min_risk_decision"]
