"""Input checks specific to the fairness modules."""
from __future__ import annotations

import numpy as np

from ..base import is_missing




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
