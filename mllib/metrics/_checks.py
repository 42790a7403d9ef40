"""Input checks shared by the metric modules, so every metric fails at its edges with the same message.

Also `divide`: the one place where a zero denominator becomes float('nan') ("undefined"), never 0.
"""
from __future__ import annotations

import numpy as np

from mllib.base import check_sample_weight

_NUMERIC_KINDS = "biuf"


def as_1d(values, name: str) -> np.ndarray:
    """values as a non-empty 1-D array, dtype kept (labels may be strings)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    return arr


def check_same_length(**arrays) -> int:
    lengths = {name: len(arr) for name, arr in arrays.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"inconsistent numbers of samples: {lengths}")
    return next(iter(lengths.values()))


def weights(sample_weight, n_samples: int) -> np.ndarray:
    """Float weights of length n_samples (ones when None); non-negative, finite, positive sum."""
    return check_sample_weight(sample_weight, n_samples)


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


def binary_labels(y, name: str) -> np.ndarray:
    """y as a boolean "is positive" mask; y must take values in {0, 1} (bools, ints or floats)."""
    y = as_1d(y, name)
    if y.dtype.kind == "b":
        return y
    if y.dtype.kind in _NUMERIC_KINDS or y.dtype.kind == "O":
        is_zero, is_one = y == 0, y == 1
        bad = ~(is_zero | is_one)
    else:  # strings: never a valid 0/1 label, even "0" and "1"
        is_one, bad = None, np.ones(y.shape, dtype=bool)
    if bad.any():
        raise ValueError(
            f"{name} must be binary with labels {{0, 1}} (1 = positive), but contains {_describe_values(y[bad])}; "
            "encode the positive class as 1 and everything else as 0"
        )
    return np.asarray(is_one, dtype=bool)


def class_labels(y, name: str) -> np.ndarray:
    """Class labels as a 1-D array: numeric without NaN, or strings; mixed-type object arrays are rejected."""
    y = as_1d(y, name)
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


def divide(numerator, denominator):
    """numerator / denominator as float64, with nan ("undefined") where the denominator is 0.

    Returns a Python float when both inputs are scalars, else an array.
    """
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return float(out) if out.ndim == 0 else out
