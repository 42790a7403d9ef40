"""Input checks shared by the calibration modules: 1-D finite scores, {0, 1} labels, probabilities in [0, 1]."""
from __future__ import annotations

import numpy as np

from ..base import check_array, check_binary_labels


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


def check_n_bins(n_bins) -> int:
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    return int(n_bins)
