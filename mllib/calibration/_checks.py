"""Input checks shared by the calibration modules: 1-D finite scores, {0, 1} labels, probabilities in [0, 1],
group labels (also used by mllib.fairness)."""
from __future__ import annotations

import numpy as np

from ..base import check_array, check_binary_labels, is_missing


def check_scores(scores, name: str = "scores") -> np.ndarray:
    """scores as a finite 1-D float64 array (one real score per sample)."""
    arr = np.asarray(scores)
    if arr.ndim != 1:
        hint = f"; for predict_proba output pass {name}[:, 1]" if arr.ndim == 2 and arr.shape[1] == 2 else ""
        raise ValueError(f"{name} must be 1-D (one score per sample), got shape {arr.shape}{hint}")
    return check_array(arr, ensure_2d=False, name=name)


def check_probabilities(proba, name: str = "proba") -> np.ndarray:
    """proba as a finite 1-D float64 array of positive-class probabilities in [0, 1]."""
    p = check_scores(proba, name)
    if p.min() < 0.0 or p.max() > 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got values in [{p.min()}, {p.max()}]")
    return p


def check_binary(y, n_samples: int, name: str = "y") -> np.ndarray:
    """y as a float64 array of 0.0 / 1.0 (1 = positive class), one label per score."""
    return check_binary_labels(y, name, n_samples).astype(np.float64)


def check_groups(groups, n_samples: int, name: str = "groups") -> np.ndarray:
    """groups as a 1-D array of hashable, mutually sortable values with no missing entries."""
    g = np.asarray(groups)
    if g.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one group value per sample), got shape {g.shape}")
    if g.shape[0] != n_samples:
        raise ValueError(f"{name} has {g.shape[0]} entries, expected {n_samples} (same as y_true)")
    missing = is_missing(g)
    if missing.any():
        raise ValueError(
            f"{name} contains {int(missing.sum())} missing values (None/NaN); give them an explicit category, "
            "a fairness report must not drop rows silently"
        )
    return g
