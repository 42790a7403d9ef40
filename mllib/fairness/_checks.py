"""Input checks and the nan-safe division shared by the fairness modules."""
from __future__ import annotations

import numpy as np

from ..base import is_missing


def check_binary(y, name: str, n_samples: int | None = None) -> np.ndarray:
    """y as a boolean "is positive" mask; y must take values in {0, 1} (bools, ints, floats or objects)."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}")
    if y.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if n_samples is not None and y.shape[0] != n_samples:
        raise ValueError(f"{name} has {y.shape[0]} entries, expected {n_samples} (same as y_true)")
    if y.dtype.kind == "b":
        return y
    if y.dtype.kind not in "iufO":  # strings, even "0"/"1", are not silently cast
        raise ValueError(f"{name} must be binary with labels {{0, 1}}, got dtype {y.dtype}")
    is_one = y == 1
    bad = ~(is_one | (y == 0))
    if bad.any():
        shown = list(dict.fromkeys(y[bad].tolist()))[:5]
        raise ValueError(f"{name} must be binary with labels {{0, 1}} (1 = positive), but contains {shown}")
    return np.asarray(is_one, dtype=bool)


def check_groups(groups, n_samples: int) -> np.ndarray:
    """groups as a 1-D array of hashable, mutually sortable values with no missing entries."""
    g = np.asarray(groups)
    if g.ndim != 1:
        raise ValueError(f"groups must be 1-D (one group value per sample), got shape {g.shape}")
    if g.shape[0] != n_samples:
        raise ValueError(f"groups has {g.shape[0]} entries, expected {n_samples} (same as y_true)")
    missing = is_missing(g)
    if missing.any():
        raise ValueError(
            f"groups contains {int(missing.sum())} missing values (None/NaN); give them an explicit category, "
            "a fairness report must not drop rows silently"
        )
    return g


def divide(numerator, denominator) -> np.ndarray:
    """numerator / denominator as float64, nan ("undefined") where the denominator is 0, never a silent 0."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def native(value):
    """numpy scalars as plain Python values, so results serialise to JSON / MLflow as they are."""
    return value.item() if isinstance(value, np.generic) else value
