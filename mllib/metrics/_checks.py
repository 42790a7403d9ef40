"""Input checks shared by the metric modules, so every metric fails at its edges with the same message.

Zero denominators go through mllib.base.safe_divide: float('nan') ("undefined"), never 0.
"""

from __future__ import annotations

import numpy as np

from mllib.base import check_1d

_NUMERIC_KINDS = "biuf"


def check_same_length(**arrays) -> int:
    lengths = {name: len(arr) for name, arr in arrays.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"inconsistent numbers of samples: {lengths}")
    return next(iter(lengths.values()))


def finite_floats(values, name: str, ndim: int | tuple[int, ...] = 1) -> np.ndarray:
    """values as float64 of the given ndim, rejecting NaN and inf with the position of the first one."""
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} cannot be converted to float64: {exc}") from None
    if arr.ndim not in allowed:
        expected = " or ".join(f"{d}-D" for d in allowed)
        raise ValueError(f"{name} must be {expected}, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    bad = ~np.isfinite(arr)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        where = first[0] if len(first) == 1 else first
        raise ValueError(
            f"{name} contains NaN or inf ({int(bad.sum())} entries, first at index {where}); "
            "a metric cannot rank or score a missing prediction"
        )
    return arr


def _describe_values(values: np.ndarray, limit: int = 10) -> list:
    try:
        distinct = np.unique(values)
    except TypeError:  # object arrays mixing types cannot be sorted
        distinct = np.array(list(dict.fromkeys(values.tolist())), dtype=object)
    return distinct[:limit].tolist()


def class_labels(y, name: str) -> np.ndarray:
    """Class labels as a 1-D array: numeric without NaN, or strings; mixed-type object arrays are rejected."""
    y = check_1d(y, name)
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"{name} contains NaN labels ({int(np.isnan(y).sum())} entries)")
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
