"""Evaluation metrics: confusion-matrix rates, ranking curves, probabilistic scores, regression errors.

Conventions: confusion matrices are rows = true, columns = predicted; binary labels are {0, 1}
with 1 = positive; an undefined value (zero denominator) is float('nan'), never 0.
Each name loads its module on first use (mllib/_lazy.py), so reading the scorers' names imports no SciPy.
"""

from .._lazy import lazy_namespace

__getattr__, __dir__, __all__ = lazy_namespace(
    __name__,
    {
        "auc_interval": ["auc_score_interval", "hanley_mcneil_variance"],
        "bootstrap": ["bootstrap_intervals", "percentile_interval"],
        "confusion": [
            "accuracy_score",
            "balanced_accuracy_score",
            "binary_counts",
            "binary_metrics",
            "classification_table",
            "confusion_matrix",
            "f1_macro",
            "multiclass_report",
            "precision_recall_f1",
        ],
        "probabilistic": ["brier_decomposition", "brier_score", "log_loss"],
        "ranking": [
            "average_precision_score",
            "one_vs_rest_auc",
            "precision_recall_curve",
            "roc_auc_ovr",
            "roc_auc_score",
            "roc_curve",
            "top_k_accuracy",
        ],
        "regression": ["mean_absolute_error", "mean_squared_error", "r2_score"],
        "scorers": ["DEFAULT_SCORING", "SCORERS", "Scorer", "get_scorer", "scorers_for"],
    },
)
