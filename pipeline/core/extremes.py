"""Values no measurement takes, the first rules of validate's extreme check (pipeline/core/schema.py); the served
model applies the same rules (pipeline/serving/contract.py), so this module needs numpy only."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

# values no measurement takes: the integer types' limits (a column's missing-value code written by a program) and
# float32's largest; beyond 1e100, an overflow
MACHINE_LIMITS = np.array(
    [2**31 - 1, -(2**31), 2**32 - 1, 2**63 - 1, -(2**63), 2**64 - 1, float(np.finfo(np.float32).max)], dtype=np.float64
)
OVERFLOW = 1e100


def typical_magnitude(x: np.ndarray) -> float | None:
    """The median of the finite non-zero |values| that are neither a machine limit nor an overflow (None: none)."""
    magnitude = np.abs(x[np.isfinite(x) & (x != 0) & (np.abs(x) < OVERFLOW) & ~np.isin(x, MACHINE_LIMITS)])
    return float(np.median(magnitude)) if magnitude.size else None


def machine_extreme(x: np.ndarray) -> npt.NDArray[np.bool_]:
    """Values no measurement takes: a machine limit or an overflow (the first rule of extreme_checks)."""
    extreme: npt.NDArray[np.bool_] = np.isin(x, MACHINE_LIMITS) | (np.abs(x) >= OVERFLOW)
    return extreme
