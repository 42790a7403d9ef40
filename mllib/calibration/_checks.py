"""Input checks of the calibration modules: {0, 1} labels (scores, probabilities and groups are checked by the
shared mllib.base checks, re-exported here), scores a logistic map cannot fit with raw labels; the row chunks their
fits sum over."""

from __future__ import annotations

import numpy as np

from ..base import check_binary_labels, check_probabilities, check_scores, group_index

__all__ = ["check_binary", "check_not_separated", "check_probabilities", "check_scores", "group_index", "row_chunks"]

# rows per step of a fit's sums over the calibration rows: the step's temporaries stay in the CPU's cache and in
# memory the allocator reuses. Whole-column temporaries of 12.8M rows came as fresh pages the kernel had to clear
# every time: from 1M to 20M rows the calibrate stage's system time per row tripled.
_CHUNK_ROWS = 65_536


def row_chunks(n_rows: int):
    """Slices of at most _CHUNK_ROWS consecutive rows covering 0..n_rows; one slice (the whole-array sums, to the
    bit) up to _CHUNK_ROWS rows."""
    return (slice(start, start + _CHUNK_ROWS) for start in range(0, n_rows, _CHUNK_ROWS))


def check_binary(y, n_samples: int, name: str = "y") -> np.ndarray:
    """y as a float64 array of 0.0 / 1.0 (1 = positive class), one label per score."""
    return check_binary_labels(y, name, n_samples).astype(np.float64)


def check_not_separated(s: np.ndarray, y: np.ndarray) -> None:
    """With raw 0/1 targets a logistic map's maximum-likelihood slope is infinite when a threshold on the score
    separates the classes (ties allowed): Platt scaling and beta calibration refuse such scores."""
    pos, neg = s[y == 1], s[y == 0]
    if neg.max() <= pos.min() or pos.max() <= neg.min():
        raise ValueError(
            "the scores separate the classes, so with smooth_targets=False the maximum-likelihood slope is infinite; "
            "use smooth_targets=True (Platt's targets keep the map's parameters finite)"
        )
