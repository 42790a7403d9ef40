"""Linear models of the lecture notes (each class loads its module on first use: mllib/_lazy.py)."""

from .._lazy import lazy_namespace

__getattr__, __dir__, __all__ = lazy_namespace(
    __name__, {"logistic": ["LogisticRegression"], "perceptron": ["Perceptron"], "svm": ["LinearSVM"]}
)
