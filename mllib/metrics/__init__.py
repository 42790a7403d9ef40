"""Evaluation metrics: confusion-matrix rates, ranking curves, probabilistic scores, regression errors.

Conventions: confusion matrices are rows = true, columns = predicted; binary labels are {0, 1}
with 1 = positive; an undefined value (zero denominator) is float('nan'), never 0.
"""

from .auc_interval import auc_score_interval, hanley_mcneil_variance
from .bootstrap import bootstrap_intervals, percentile_interval
from .confusion import (
    accuracy_score,
    balanced_accuracy_score,
    binary_counts,
    binary_metrics,
    classification_table,
    confusion_matrix,
    f1_macro,
    multiclass_report,
    precision_recall_f1,
)
from .probabilistic import brier_decomposition, brier_score, log_loss
from .ranking import (
    average_precision_score,
    one_vs_rest_auc,
    precision_recall_curve,
    roc_auc_ovr,
    roc_auc_score,
    roc_curve,
    top_k_accuracy,
)
from .regression import mean_absolute_error, mean_squared_error, r2_score
from .scorers import DEFAULT_SCORING, SCORERS, Scorer, get_scorer, scorers_for

__all__ = [
    "confusion_matrix",
    "binary_counts",
    "classification_table",
    "binary_metrics",
    "precision_recall_f1",
    "accuracy_score",
    "balanced_accuracy_score",
    "f1_macro",
    "multiclass_report",
    "one_vs_rest_auc",
    "roc_auc_ovr",
    "top_k_accuracy",
    "roc_curve",
    "roc_auc_score",
    "precision_recall_curve",
    "average_precision_score",
    "log_loss",
    "brier_score",
    "brier_decomposition",
    "mean_squared_error",
    "mean_absolute_error",
    "r2_score",
    "auc_score_interval",
    "hanley_mcneil_variance",
    "bootstrap_intervals",
    "percentile_interval",
    "Scorer",
    "get_scorer",
    "SCORERS",
    "DEFAULT_SCORING",
    "scorers_for",
]
