"""Neural networks: multilayer perceptrons trained by backpropagation (seed 000 lectures 8-9, lines 2164-2565)."""

from .mlp import MLPClassifier, MLPRegressor

__all__ = ["MLPClassifier", "MLPRegressor"]
