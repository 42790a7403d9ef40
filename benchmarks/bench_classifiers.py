"""Linear, Bayes, discriminant and neighbour classifiers of mllib beside scikit-learn (issue 4).

Same person-grouped 5-fold CV, same hyperparameters, single thread. Goals: AUC within 0.005 of scikit-learn or
better, fit + predict time ratio mllib / sklearn <= 1.5. Besides the 56 features and the binary target, three
variants of the same folds (prepared once, outside the timing, identical for both libraries):
- categorical naive Bayes sees every feature cut at its training part's octiles (integer codes);
- the kd-tree and the Parzen window see the 5 leading principal axes of each training part (a kd-tree prunes in
  low dimension only);
- multinomial logistic regression predicts a 4-class target, the year's physician visits (mdvis, dropped from the
  features as a same-year outcome) binned 0 / 1-2 / 3-5 / 6+; its AUC is the macro one-vs-rest average.
Run: .venv/bin/python benchmarks/bench_classifiers.py [name filters] (--quick: first 4000 rows only).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from common import Fold, compare, load_folds, visit_classes, write_table
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.linear_model import SGDClassifier
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB
from sklearn.neighbors import KNeighborsClassifier as SkKNN
from sklearn.neighbors import NearestCentroid as SkNearestCentroid
from sklearn.neighbors import RadiusNeighborsClassifier
from sklearn.svm import LinearSVC

from mllib.bayes import GaussianBayesClassifier, NaiveBayes
from mllib.decomposition import PCA
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


class _EmptyWindowPrior:
    """RadiusNeighborsClassifier with mllib's rule for an empty window (no training row within the radius): the
    class priors. scikit-learn gives such rows zero probabilities when outlier_label is not a class."""

    def __init__(self, radius):
        self.model = RadiusNeighborsClassifier(radius=radius, outlier_label=-1)

    def fit(self, X, y):
        self.prior = np.bincount(y) / y.size
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "outlier label -1 is not in classes"
            self.model.fit(X, y)
        return self

    def predict_proba(self, X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            P = self.model.predict_proba(X)
        P[P.sum(axis=1) == 0] = self.prior
        return P


PAIRS = {
    # the data hold one-hot blocks (rank 51 of 56): both sides need a little shrinkage toward (tr S / d) I
    "gaussian_bayes (shared, LDA)": (
        lambda: GaussianBayesClassifier(reg_param=1e-6),
        lambda: LinearDiscriminantAnalysis(solver="lsqr", shrinkage=1e-6),
    ),
    "gaussian_bayes (per_class, QDA, r=0.1)": (
        lambda: GaussianBayesClassifier(covariance="per_class", reg_param=0.1),
        lambda: QuadraticDiscriminantAnalysis(solver="eigen", shrinkage=0.1),
    ),
    "naive_bayes (gaussian)": (lambda: NaiveBayes(), lambda: GaussianNB()),
    "naive_bayes (bernoulli, x > 0)": (
        lambda: NaiveBayes("bernoulli", alpha=1.0, binarize=0.0),
        lambda: BernoulliNB(alpha=1.0, binarize=0.0),
    ),
    "fisher_lda": (
        lambda: FisherDiscriminant(reg=1e-6),
        lambda: LinearDiscriminantAnalysis(solver="eigen", shrinkage=1e-6),
    ),
    "nearest_centroid": (lambda: NearestCentroid(), lambda: SkNearestCentroid()),
    "perceptron (plain, 20 epochs)": (
        lambda: Perceptron(averaged=False, max_iter=20),
        lambda: _Scored(SkPerceptron(max_iter=20, tol=None, random_state=0)),
    ),
    "perceptron (averaged, 20 epochs)": (
        lambda: Perceptron(averaged=True, max_iter=20),
        lambda: _Scored(
            SGDClassifier(
                loss="perceptron",
                penalty=None,
                learning_rate="constant",
                eta0=1.0,
                average=True,
                max_iter=20,
                tol=None,
                random_state=0,
            )
        ),
    ),
    # both sides converged (see benchmarks/results/classifiers.md): scikit-learn's default tol=1e-4 on the mean loss
    # stops newton-cholesky after 4 of the ~11 Newton steps and lbfgs at max_iter=100, 0.02-0.15 from the optimum
    "logistic_regression (l2, C=1, newton vs newton-cholesky)": (
        lambda: LogisticRegression(lam=0.5, solver="newton"),
        lambda: SkLogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-8),
    ),
    "logistic_regression (l2, C=1, lbfgs)": (
        lambda: LogisticRegression(lam=0.5, solver="lbfgs", max_iter=1000),
        lambda: SkLogisticRegression(C=1.0, solver="lbfgs", tol=1e-8, max_iter=1000),
    ),
    "logistic_regression (l1, C=1)": (
        lambda: LogisticRegression(penalty="l1", lam=1.0),
        lambda: SkLogisticRegression(C=1.0, l1_ratio=1.0, solver="saga", max_iter=1000),
    ),
    # liblinear's L1 solver is the same proximal Newton method but penalises the intercept (intercept_scaling = 1)
    "logistic_regression (l1, C=1) vs liblinear": (
        lambda: LogisticRegression(penalty="l1", lam=1.0),
        lambda: SkLogisticRegression(C=1.0, l1_ratio=1.0, solver="liblinear"),
    ),
    "linear_svm (squared hinge, C=1)": (lambda: LinearSVM(), lambda: _Scored(LinearSVC(C=1.0))),
    # unweighted, the hinge optimum on these 78 % positives is a constant score (std 1e-11): AUC would be noise
    "linear_svm (hinge, C=1, balanced)": (
        lambda: _Balanced(LinearSVM(loss="hinge")),
        lambda: _Scored(LinearSVC(C=1.0, loss="hinge", class_weight="balanced")),
    ),
    "knn (k=25)": (lambda: KNeighborsClassifier(n_neighbors=25), lambda: SkKNN(n_neighbors=25)),
    "knn (k=25, distance)": (
        lambda: KNeighborsClassifier(n_neighbors=25, weights="distance"),
        lambda: SkKNN(n_neighbors=25, weights="distance"),
    ),
}

CATEGORICAL_PAIRS = {
    "naive_bayes (categorical, octile codes)": (
        lambda: NaiveBayes("categorical", alpha=1.0),
        lambda: CategoricalNB(alpha=1.0),
    ),
}

PARZEN_BANDWIDTH = 1.0  # on the 5 principal axes (std 1.5-2): a median 60 training rows per window, 2-3 % empty
LOW_DIMENSION_PAIRS = {
    "knn (k=25, kd_tree, 5 principal axes)": (
        lambda: KNeighborsClassifier(n_neighbors=25, algorithm="kd_tree"),
        lambda: SkKNN(n_neighbors=25, algorithm="kd_tree"),
    ),
    f"parzen window (box, h={PARZEN_BANDWIDTH}, 5 principal axes) vs radius neighbours": (
        lambda: KNeighborsClassifier(bandwidth=PARZEN_BANDWIDTH, kernel="box"),
        lambda: _EmptyWindowPrior(PARZEN_BANDWIDTH),
    ),
}

MULTICLASS_PAIRS = {  # converged both sides, as the binary rows
    "logistic_regression (multinomial, 4 visit classes, l2, C=1, newton vs newton-cholesky)": (
        lambda: LogisticRegression(lam=0.5, solver="newton"),
        lambda: SkLogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-8),
    ),
    "logistic_regression (multinomial, 4 visit classes, l2, C=1, lbfgs)": (
        lambda: LogisticRegression(lam=0.5, solver="lbfgs", max_iter=1000),
        lambda: SkLogisticRegression(C=1.0, solver="lbfgs", tol=1e-8, max_iter=1000),
    ),
}


def _octile_codes(folds: list[Fold]) -> list[Fold]:
    """Each feature cut at its training part's octiles, codes renumbered 0..m-1: bin j is (e_{j-1}, e_j] with the
    octiles e_j training values, so every bin that a value clipped to the training range can fall in occurs in
    training (no code unseen); a 0/1 column keeps its two values."""
    out = []
    for f in folds:
        A, B = np.empty_like(f.X_train), np.empty_like(f.X_valid)
        for j in range(f.X_train.shape[1]):
            col = f.X_train[:, j]
            edges = np.unique(np.quantile(col, np.arange(1, 8) / 8, method="inverted_cdf"))
            train = np.searchsorted(edges, col)
            valid = np.searchsorted(edges, np.clip(f.X_valid[:, j], col.min(), col.max()))
            codes, A[:, j] = np.unique(train, return_inverse=True)
            B[:, j] = np.searchsorted(codes, valid)
        out.append(Fold(A, f.y_train, B, f.y_valid))
    return out


def _principal_axes(folds: list[Fold], dims: int = 5) -> list[Fold]:
    """The folds projected on the leading principal axes of each training part."""
    out = []
    for f in folds:
        pca = PCA(dims).fit(f.X_train)
        out.append(Fold(pca.transform(f.X_train), f.y_train, pca.transform(f.X_valid), f.y_valid))
    return out


def _warmup():
    """Compile the numba loops once (cached on disk afterwards)."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 3)), rng.integers(0, 2, size=50)
    Perceptron().fit(X, y)
    LinearSVM().fit(X, y)
    KNeighborsClassifier(algorithm="kd_tree").fit(X, y).predict(X)
    KNeighborsClassifier(bandwidth=1.0).fit(X, y).predict(X)  # the kd-tree radius query


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    folds = load_folds(limit_rows=4000 if quick else None)
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    groups = [
        (PAIRS, lambda folds: folds),
        (CATEGORICAL_PAIRS, _octile_codes),
        (LOW_DIMENSION_PAIRS, _principal_axes),
        (MULTICLASS_PAIRS, visit_classes),
    ]
    rows, warmup = [], _warmup
    for pairs, prepare in groups:
        pairs = {k: v for k, v in pairs.items() if not names or any(n in k for n in names)}
        if pairs:
            rows += compare(pairs, prepare(folds), warmup=warmup)
            warmup = None
    if not quick and not names:
        write_table(rows, "classifiers.md")
