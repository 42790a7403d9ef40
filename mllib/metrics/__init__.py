"""Evaluation metrics: confusion-matrix rates, ranking curves, probabilistic scores, regression errors.

Conventions: confusion matrices are rows = true, columns = predicted; binary labels are {0, 1}
with 1 = positive; an undefined value (zero denominator) is float('nan'), never 0.
"""
from .confusion import (
    accuracy_score,
    balanced_accuracy_score,
    binary_counts,
    binary_metrics,
    classification_table,
    confusion_matrix,
    precision_recall_f1,
)
from .probabilistic import brier_decomposition, brier_score, log_loss
from .ranking import average_precision_score, precision_recall_curve, roc_auc_score, roc_curve
from .regression import mean_absolute_error, mean_squared_error, r2_score
from .scorers import SCORERS, Scorer, get_scorer

__all__ = [
    "confusion_matrix", "binary_counts", "classification_table", "binary_metrics", "precision_recall_f1",
    "accuracy_score", "balanced_accuracy_score",
    "roc_curve", "roc_auc_score", "precision_recall_curve", "average_precision_score",
    "log_loss", "brier_score", "brier_decomposition",
    "mean_squared_error", "mean_absolute_error", "r2_score",
    "Scorer", "get_scorer", "SCORERS",
]
