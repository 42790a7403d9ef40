"""Input checks of the calibration modules: {0, 1} labels (scores, probabilities and groups are checked by the
shared mllib.base checks, re-exported here)."""

from __future__ import annotations

import numpy as np

from ..base import check_binary_labels, check_probabilities, check_scores, group_index

__all__ = ["check_binary", "check_probabilities", "check_scores", "group_index"]


def check_binary(y, n_samples: int, name: str = "y") -> np.ndarray:
    """y as a float64 array of 0.0 / 1.0 (1 = positive class), one label per score."""
    return check_binary_labels(y, name, n_samples).astype(np.float64)
