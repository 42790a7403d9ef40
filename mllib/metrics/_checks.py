"""Input checks shared by the metric modules, so every metric fails at its edges with the same message.

Zero denominators go through mllib.base.safe_divide: float('nan') ("undefined"), never 0.
"""

from __future__ import annotations

import numpy as np

from mllib.base import check_labels

_NUMERIC_KINDS = "biuf"


def _describe_values(values: np.ndarray, limit: int = 10) -> list:
    try:
        distinct = np.unique(values)
    except TypeError:  # object arrays mixing types cannot be sorted
        distinct = np.array(list(dict.fromkeys(values.tolist())), dtype=object)
    return distinct[:limit].tolist()


def class_labels(y, name: str) -> np.ndarray:
    """Class labels as a 1-D array: numeric without NaN, or strings; mixed-type object arrays are rejected."""
    y = check_labels(y, name)
    if y.dtype.kind == "O":
        try:
            np.unique(y)
        except TypeError:
            raise ValueError(f"{name} mixes label types that cannot be ordered: {_describe_values(y)}") from None
    return y


def check_label_kinds(**arrays) -> None:
    """Refuse to compare numeric labels with string labels (numpy would silently cast 1 to '1')."""
    kinds = {name: ("numeric" if arr.dtype.kind in _NUMERIC_KINDS else "string/object") for name, arr in arrays.items()}
    if len(set(kinds.values())) > 1:
        raise ValueError(f"labels of different kinds cannot be compared: {kinds}")
