"""Linear, Bayes, discriminant and neighbour classifiers of mllib beside scikit-learn (issue 4).

Same person-grouped 5-fold CV, same hyperparameters, single thread. Goals: AUC within 0.005 of scikit-learn or
better, fit + predict time ratio mllib / sklearn <= 1.5. Run: .venv/bin/python benchmarks/bench_classifiers.py
(--quick: first 4000 rows only).
"""
from __future__ import annotations

import sys

from common import compare, load_folds, write_table

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.linear_model import SGDClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier as SkKNN
from sklearn.neighbors import NearestCentroid as SkNearestCentroid
from sklearn.svm import LinearSVC

from mllib.bayes import GaussianBayesClassifier, NaiveBayes
from mllib.discriminant import FisherDiscriminant, NearestCentroid
from mllib.linear import LinearSVM, LogisticRegression, Perceptron
from mllib.neighbors import KNeighborsClassifier


class _Scored:
    """A scikit-learn model without predict_proba, scored by its decision function (AUC needs only a ranking)."""

    def __init__(self, model):
        self.model = model

    def fit(self, X, y):
        self.model.fit(X, y)
        return self

    def decision_function(self, X):
        return self.model.decision_function(X)


class _Balanced:
    """An mllib model fitted with scikit-learn's class_weight="balanced" as sample weights, n / (K n_k)."""

    def __init__(self, model):
        self.model = model

    def fit(self, X, y):
        counts = np.bincount(y)
        self.model.fit(X, y, sample_weight=(y.size / (counts.size * counts))[y])
        return self

    def decision_function(self, X):
        return self.model.decision_function(X)


PAIRS = {
    # the data hold one-hot blocks (rank 51 of 56): both sides need a little shrinkage toward (tr S / d) I
    "gaussian_bayes (shared, LDA)": (lambda: GaussianBayesClassifier(reg_param=1e-6),
                                     lambda: LinearDiscriminantAnalysis(solver="lsqr", shrinkage=1e-6)),
    "gaussian_bayes (per_class, QDA, r=0.1)": (lambda: GaussianBayesClassifier(covariance="per_class", reg_param=0.1),
                                               lambda: QuadraticDiscriminantAnalysis(solver="eigen", shrinkage=0.1)),
    "naive_bayes (gaussian)": (lambda: NaiveBayes(), lambda: GaussianNB()),
    "fisher_lda": (lambda: FisherDiscriminant(reg=1e-6), lambda: LinearDiscriminantAnalysis(solver="eigen", shrinkage=1e-6)),
    "nearest_centroid": (lambda: NearestCentroid(), lambda: SkNearestCentroid()),
    "perceptron (plain, 20 epochs)": (lambda: Perceptron(averaged=False, max_iter=20),
                                      lambda: _Scored(SkPerceptron(max_iter=20, tol=None, random_state=0))),
    "perceptron (averaged, 20 epochs)": (lambda: Perceptron(averaged=True, max_iter=20),
                                         lambda: _Scored(SGDClassifier(loss="perceptron", penalty=None, learning_rate="constant",
                                                                       eta0=1.0, average=True, max_iter=20, tol=None,
                                                                       random_state=0))),
    "logistic_regression (l2, C=1)": (lambda: LogisticRegression(lam=0.5), lambda: SkLogisticRegression(C=1.0)),
    "logistic_regression (l1, C=1)": (lambda: LogisticRegression(penalty="l1", lam=1.0),
                                      lambda: SkLogisticRegression(C=1.0, l1_ratio=1.0, solver="saga", max_iter=1000)),
    # liblinear's L1 solver is the same proximal Newton method but penalises the intercept (intercept_scaling = 1)
    "logistic_regression (l1, C=1) vs liblinear": (lambda: LogisticRegression(penalty="l1", lam=1.0),
                                                   lambda: SkLogisticRegression(C=1.0, l1_ratio=1.0, solver="liblinear")),
    "linear_svm (squared hinge, C=1)": (lambda: LinearSVM(), lambda: _Scored(LinearSVC(C=1.0))),
    # unweighted, the hinge optimum on these 78 % positives is a constant score (std 1e-11): AUC would be noise
    "linear_svm (hinge, C=1, balanced)": (lambda: _Balanced(LinearSVM(loss="hinge")),
                                          lambda: _Scored(LinearSVC(C=1.0, loss="hinge", class_weight="balanced"))),
    "knn (k=25)": (lambda: KNeighborsClassifier(n_neighbors=25), lambda: SkKNN(n_neighbors=25)),
    "knn (k=25, distance)": (lambda: KNeighborsClassifier(n_neighbors=25, weights="distance"),
                             lambda: SkKNN(n_neighbors=25, weights="distance")),
}


def _warmup():
    """Compile the numba loops once (cached on disk afterwards)."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 3)), rng.integers(0, 2, size=50)
    Perceptron().fit(X, y)
    LinearSVM().fit(X, y)
    KNeighborsClassifier(algorithm="kd_tree").fit(X, y).predict(X)


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    folds = load_folds(limit_rows=4000 if quick else None)
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    pairs = {k: v for k, v in PAIRS.items() if not names or any(n in k for n in names)}
    rows = compare(pairs, folds, warmup=_warmup)
    if not quick and not names:
        write_table(rows, "classifiers.md")
