"""Group labels for the group-wise summaries (fairness audits, calibration per group, reweighing).

Every such summary starts from np.unique(groups, return_inverse=True): the distinct labels in sorted order and each
row's index into them. GroupLabels holds that pair itself, so a grouping of n rows costs n small integers instead
of n strings: an intersection such as "sex=F,race=B" spelled per row takes 64 bytes a row as a numpy string and
sorting it three copies more; at millions of rows that, not the arithmetic, is the summary's memory."""

from __future__ import annotations

import numpy as np

from .validation import check_groups, is_missing


class GroupLabels:
    """One group label per row as codes into the distinct labels: row i's label is values[codes[i]].

    values: the distinct labels, sorted and unique (what np.unique returns); codes: one index into values per row.
    np.asarray(labels) spells the labels out; group_index reads the codes without doing so."""

    def __init__(self, values, codes):
        values, codes = np.asarray(values), np.asarray(codes)
        if values.ndim != 1 or codes.ndim != 1 or codes.dtype.kind not in "iu":
            raise ValueError("GroupLabels needs 1-D values and 1-D integer codes")
        if values.size and (codes.min(initial=0) < 0 or codes.max(initial=0) >= values.size):
            raise ValueError(f"codes must index the {values.size} values, got codes in [{codes.min()}, {codes.max()}]")
        if not values.size and codes.size:
            raise ValueError("codes given for no values")
        if is_missing(values).any() or (values.size > 1 and not (values[1:] > values[:-1]).all()):
            raise ValueError("values must be distinct, sorted and not missing")
        self.values, self.codes = values, codes.astype(np.intp, copy=False)

    @classmethod
    def of(cls, labels) -> GroupLabels:
        """Labels given one per row (any sortable values), as codes."""
        values, codes = np.unique(np.asarray(labels), return_inverse=True)
        return cls(values, codes)

    def __len__(self) -> int:
        return self.codes.shape[0]

    def __array__(self, dtype=None, copy=None):
        return self.values[self.codes] if dtype is None else self.values[self.codes].astype(dtype)

    def __getitem__(self, rows) -> GroupLabels:
        return GroupLabels(self.values, self.codes[rows])


def group_index(groups, n_samples: int, name: str = "groups") -> tuple[np.ndarray, np.ndarray]:
    """(the distinct group values in sorted order, each row's index into them): np.unique(groups,
    return_inverse=True) of checked groups; of GroupLabels, from their codes (the values no row holds dropped)."""
    if isinstance(groups, GroupLabels):
        if len(groups) != n_samples:
            raise ValueError(f"{name} has {len(groups)} entries, expected {n_samples} (same as y_true)")
        present = np.bincount(groups.codes, minlength=groups.values.size) > 0
        return groups.values[present], (np.cumsum(present) - 1)[groups.codes]
    g = check_groups(groups, n_samples, name)
    try:
        return np.unique(g, return_inverse=True)
    except TypeError:
        raise ValueError(
            f"{name} mixes value types that cannot be sorted (e.g. ints and strings); use one type"
        ) from None
