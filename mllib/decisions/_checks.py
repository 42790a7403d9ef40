"""Input checks shared by the decision modules: posterior matrices and per-sample confidences."""

from __future__ import annotations

import numpy as np

from ..base import check_array


def check_posteriors(proba, name: str = "proba") -> np.ndarray:
    """(n, C) class posteriors with rows in [0, 1] summing to 1; a 1-D array is read as p(y = 1) of a binary task."""
    p = check_array(proba, ensure_2d=False, name=name)
    if p.ndim == 1:
        p = np.column_stack([1.0 - p, p])
    if p.ndim != 2 or p.shape[1] < 2:
        raise ValueError(f"{name} must be (n, C >= 2) posteriors or 1-D p(y = 1), got shape {p.shape}")
    if p.min() < 0.0 or p.max() > 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got values in [{p.min()}, {p.max()}]")
    worst = float(np.max(np.abs(p.sum(axis=1) - 1.0)))
    if worst > 1e-6:
        raise ValueError(f"{name} rows must sum to 1 (posteriors), the worst row sums to 1 {worst:+.3g}")
    return p
