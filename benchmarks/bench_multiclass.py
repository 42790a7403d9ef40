"""Multiclass: mllib's classifiers beside scikit-learn's on a 4-class target, the pipeline's person-grouped
5-fold CV of the default data (the same rows and feature matrices as every benchmark; common.visit_classes), scored
by the macro one-vs-rest ROC AUC the pipeline's train stage uses for multiclass targets (search.scoring auto).

Goal (issue 11): macro AUC within 0.01 of scikit-learn's on the same folds; the time ratio beside it.
Run: .venv/bin/python benchmarks/bench_multiclass.py   (after `make run`)
"""

from __future__ import annotations

from common import VISIT_CLASSES, compare, load_folds, visit_classes, write_table


def warm_up() -> None:
    """Compile the numba loops of the tree models once (cached on disk afterwards)."""
    import numpy as np

    from mllib.ensemble import RandomForestClassifier
    from mllib.gradient_boosting import GradientBoostingClassifier

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.integers(0, 3, size=200)
    RandomForestClassifier(n_estimators=2).fit(X, y).predict_proba(X)
    GradientBoostingClassifier(max_iter=2).fit(X, y).predict_proba(X)


def main() -> None:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.ensemble import RandomForestClassifier as SkForest
    from sklearn.linear_model import LogisticRegression as SkLogistic
    from sklearn.neighbors import KNeighborsClassifier as SkKNN

    from mllib.bayes import GaussianBayesClassifier
    from mllib.ensemble import RandomForestClassifier
    from mllib.gradient_boosting import GradientBoostingClassifier
    from mllib.linear import LogisticRegression
    from mllib.neighbors import KNeighborsClassifier

    pairs = {
        # the pipeline's default model (model.name auto) at its chosen lam = 10, i.e. C = 1 / (2 lam)
        "logistic_regression (multinomial, lam 10 = C 0.05)": (
            lambda: LogisticRegression(lam=10.0),
            lambda: SkLogistic(C=0.05, solver="newton-cholesky", tol=1e-8),
        ),
        "gaussian_bayes (shared covariance, LDA)": (
            lambda: GaussianBayesClassifier(covariance="shared", reg_param=1e-6),
            lambda: LinearDiscriminantAnalysis(solver="eigen", shrinkage=1e-6),
        ),
        "knn (k=25)": (lambda: KNeighborsClassifier(n_neighbors=25), lambda: SkKNN(n_neighbors=25)),
        "random_forest (200 trees, min_samples_leaf 5)": (
            lambda: RandomForestClassifier(n_estimators=200, min_samples_leaf=5, random_state=0),
            lambda: SkForest(n_estimators=200, min_samples_leaf=5, random_state=0, n_jobs=1),
        ),
        "gradient_boosting (multinomial, 100 iter, lr 0.1, 31 leaves)": (
            lambda: GradientBoostingClassifier(max_iter=100, learning_rate=0.1, max_leaf_nodes=31),
            lambda: HistGradientBoostingClassifier(
                max_iter=100, learning_rate=0.1, max_leaf_nodes=31, early_stopping=False, random_state=0
            ),
        ),
    }
    rows = compare(pairs, visit_classes(load_folds()), warmup=warm_up)
    header = (
        "# Multiclass classifiers vs scikit-learn\n\n"
        f"Person-grouped 5-fold CV of the default data with a 4-class target ({VISIT_CLASSES}), the "
        "pipeline's folds and feature matrices; auc = macro one-vs-rest ROC AUC (the multiclass scorer of the "
        "train stage); seconds = fit + predict summed over the folds, single thread, both libraries alternated "
        "in one run (the ratio is the figure, not the seconds). Goal (issue 11): auc within 0.01.\n\n"
    )
    write_table(rows, "multiclass.md", before=header)


if __name__ == "__main__":
    main()
