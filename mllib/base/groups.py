"""Group labels for the group-wise summaries (fairness audits, calibration per group, reweighing).

Every such summary starts from np.unique(groups, return_inverse=True): the distinct labels in sorted order and each
row's index into them. GroupLabels holds that pair itself, so a grouping of n rows costs n small integers instead
of n strings: an intersection such as "sex=F,race=B" spelled per row takes 64 bytes a row as a numpy string and
sorting it three copies more; at millions of rows that, not the arithmetic, is the summary's memory."""

from __future__ import annotations

import numpy as np

from .validation import check_groups, check_rows, is_missing


class GroupLabels:
    """One group label per row as codes into the distinct labels: row i's label is values[codes[i]].

    values: the distinct labels, sorted and unique (what np.unique returns); codes: one index into values per row.
    np.asarray(labels) spells the labels out; group_index reads the codes without doing so."""

    def __init__(self, values, codes):
        values, codes = np.asarray(values), np.asarray(codes)
        valid = (
            values.ndim == 1
            and codes.ndim == 1
            and codes.dtype.kind in "iu"
            and (codes.size == 0 or (codes.min() >= 0 and codes.max() < values.size))
            and not is_missing(values).any()
            and (values.size < 2 or bool((values[1:] > values[:-1]).all()))
        )
        if not valid:
            raise ValueError(
                "GroupLabels needs 1-D values, distinct, sorted and not missing, and 1-D integer codes indexing them"
            )
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
        check_rows(**{"the data": range(n_samples), name: groups})
        present = np.bincount(groups.codes, minlength=groups.values.size) > 0
        return groups.values[present], (np.cumsum(present) - 1)[groups.codes]
    g = check_groups(groups, n_samples, name)
    try:
        return np.unique(g, return_inverse=True)
    except TypeError:
        raise ValueError(
            f"{name} mixes value types that cannot be sorted (e.g. ints and strings); use one type"
        ) from None
