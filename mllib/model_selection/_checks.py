"""Input checks shared by the splitters, and the runtime leakage guard.

Rule: no group (patient, hospital, ...) may appear on both sides of a split, because records of
one entity in train and test leak information (seed 004, D4:499-512; catalogue 2.2 L4/L5).
Every splitter calls `check_no_group_overlap` whenever `groups` is given, even row-level ones.

Sections cited: Ghent ML notes (seed 004): 3.3 Risks of Data Splitting and IID Assumption Fulfillment (499)"""

from __future__ import annotations

import numpy as np

from mllib.base import GroupLabels, Interval, check_1d, check_rows, check_shape, check_value, to_python


def num_samples(X=None, y=None, groups=None) -> int:
    """Number of rows, inferred from whichever of X / y / groups is given (at least one); they must agree."""
    given = {name: a for name, a in (("X", X), ("y", y), ("groups", groups)) if a is not None}
    if not given:
        raise ValueError("cannot infer the number of rows: pass at least one of X, y or groups to split()")
    rows = {  # a row per entry: an empty or a scalar input is refused by name
        name: a
        if isinstance(a, GroupLabels)
        else check_shape(a if hasattr(a, "shape") else np.asarray(a), (1, 2), name)
        for name, a in given.items()
    }
    return check_rows(**rows)


def check_enough(have: int, need: int, units: str, who: str, fix: str = "lower split.n_splits") -> None:
    """A split into parts needs at least `need` of its units (rows, groups or times): one per part at least."""
    if have < need:
        raise ValueError(f"{who} needs at least {need} {units} but there are only {have}; {fix}")


def part_size(size, n: int, name: str) -> float:
    """size, a float fraction in (0, 1) or an int row count in [1, n - 1] of n rows, as a fraction of n."""
    counts = Interval(True, 1, n - 1, label=f"an int row count in [1, {n - 1}] for {n} rows")
    check_value("", name, size, [Interval(False, 0, 1, "neither", "a float fraction in (0, 1)"), counts])
    return size / n if isinstance(size, (int, np.integer)) else float(size)


def column(a, name: str, n: int | None = None) -> np.ndarray:
    """a as a 1-D array (labels or group ids of any dtype), optionally checking its length."""
    a = check_1d(a, name, n)
    if a.dtype.kind == "f" and np.isnan(a).any():
        raise ValueError(f"{name} contains NaN ({int(np.isnan(a).sum())} rows); fill or drop them before splitting")
    return a


def encode(a) -> tuple[np.ndarray, np.ndarray]:
    """(unique values sorted, code per row in 0..n_unique-1)."""
    values, codes = np.unique(a, return_inverse=True)
    return values, codes.reshape(-1).astype(np.int64)


def check_no_group_overlap(train_idx, test_idx, groups, *, splitter: str | None = None) -> None:
    """Raise ValueError if any group id occurs in both train_idx and test_idx rows.

    groups: the group id of each row, or GroupLabels (the ids encoded once, for a caller that checks many splits).
    The message lists up to five offending group ids and, when `splitter` names a row-level
    splitter, says that it leaks groups and which grouped splitter to use instead.
    """
    values, codes = (groups.values, groups.codes) if isinstance(groups, GroupLabels) else encode(groups)
    # a flag per group and side, set in one pass over each side's rows: intersecting the two sides' ids sorted
    # both (4.6 s a split at 16M rows)
    sides = np.zeros((2, values.size), dtype=bool)
    sides[0, codes[np.asarray(train_idx, dtype=np.int64)]] = True
    sides[1, codes[np.asarray(test_idx, dtype=np.int64)]] = True
    both = values[sides.all(axis=0)]
    if both.size == 0:
        return
    shown = ", ".join(repr(to_python(v)) for v in both[:5])
    more = f" (and {both.size - 5} more)" if both.size > 5 else ""
    who = f"{splitter} " if splitter else ""
    raise ValueError(
        f"{who}split leaks groups: {both.size} group(s) appear in both train and test: [{shown}]{more}. "
        "Rows of one group (patient, hospital, ...) must stay on one side; use GroupKFold, "
        "StratifiedGroupKFold or LeaveOneGroupOut, or do not pass groups to a row-level splitter."
    )
