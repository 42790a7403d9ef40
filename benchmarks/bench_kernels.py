"""Kernel machines beside scikit-learn on the default data: SVC (rbf, C=1, gamma="scale", tol=1e-3), and Nystroem
features (500 rbf landmarks, gamma = 1/n_features) + L2 logistic regression (lam = 1/(2C), C = 1, both solved to
tol 1e-8), the way the kernel models scale. Landmarks are sampled by each library's own generator, so those AUCs
differ by sampling.

Both sides score the validation rows by the decision function's ranking (mllib's predict_proba is a monotone
map of it; scikit-learn runs with probability=False, so common.positive_score takes its decision_function).
Run: .venv/bin/python benchmarks/bench_kernels.py [limit_rows]
"""

from __future__ import annotations

import sys

from common import compare, load_folds, write_table


def main() -> None:
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else None
    folds = load_folds(limit)
    from sklearn.kernel_approximation import Nystroem as SkNystroem
    from sklearn.linear_model import LogisticRegression as SkLogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import SVC as SkSVC

    from mllib.base import Pipeline
    from mllib.kernels import Nystroem
    from mllib.linear import LogisticRegression
    from mllib.svm import SVC

    pairs = {
        "svm (rbf, C=1, gamma=scale)": (
            lambda: SVC(C=1.0, kernel="rbf", gamma="scale", tol=1e-3, cache_size=200.0),
            lambda: SkSVC(C=1.0, kernel="rbf", gamma="scale", tol=1e-3, cache_size=200.0),
        ),
        "nystroem (500, rbf) + logistic": (
            lambda: Pipeline(
                [
                    ("nystroem", Nystroem(n_components=500, kernel="rbf", gamma="auto", random_state=0)),
                    ("logistic", LogisticRegression(lam=0.5)),
                ]
            ),
            lambda: make_pipeline(
                SkNystroem(kernel="rbf", gamma=None, n_components=500, random_state=0),
                # tol=1e-8: converged like mllib (the default 1e-4 stops ~100 L-BFGS steps short)
                SkLogisticRegression(C=1.0, max_iter=1000, tol=1e-8),
            ),
        ),
    }
    rows = compare(pairs, folds, measure_memory=True)
    write_table(rows, "kernels.md" if limit is None else f"kernels_{limit}.md")


if __name__ == "__main__":
    main()
