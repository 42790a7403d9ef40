"""Raw tabular data with numeric and label columns, without boxing every number in a Python object.

An object matrix (numbers as Python floats beside strings) is the plain numpy form of such data, but it costs
~32 bytes per number instead of 8 and every numeric step converts it back to float64 (measured on 800,000 rows x
33 columns: 0.85 GB for the matrix and ~14 s of conversions per pass of the features). MixedMatrix keeps the
numeric columns as one float64 block (NaN = missing) and the label columns as one object block (None = missing),
in that column order, and answers the operations estimators apply to raw data: shape, rows, column selection
(one block's columns come back as that block's array, with no conversion), column assignment and copy. Anything
else sees the equivalent object matrix through np.asarray(X). X[rows, cols] with index arrays for both selects the
rows x cols sub-matrix (np.ix_'s meaning, not numpy's element-wise pairing).
"""

from __future__ import annotations

import numpy as np


class MixedMatrix:
    """A 2-D matrix: columns 0 .. p_numeric - 1 are the float64 block `numeric`, the rest the object block `labels`.

    Parameters
    ----------
    numeric : array-like of shape (n_samples, p_numeric)
        Numbers, NaN where missing.
    labels : array-like of shape (n_samples, p_labels)
        Category labels (usually strings), None where missing.
    """

    ndim = 2
    dtype = np.dtype(object)

    def __init__(self, numeric, labels):
        numeric = np.asarray(numeric, dtype=np.float64)
        labels = np.asarray(labels, dtype=object)
        if numeric.ndim != 2 or labels.ndim != 2 or numeric.shape[0] != labels.shape[0]:
            raise ValueError(
                f"numeric and labels must be 2-D with the same rows, got shapes {numeric.shape} and {labels.shape}"
            )
        self.numeric, self.labels = numeric, labels

    @property
    def n_numeric(self) -> int:
        return self.numeric.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        return (self.numeric.shape[0], self.numeric.shape[1] + self.labels.shape[1])

    def __len__(self) -> int:
        return self.numeric.shape[0]

    def __array__(self, dtype=None, copy=None):
        out = np.empty(self.shape, dtype=object)
        out[:, : self.n_numeric] = self.numeric
        out[:, self.n_numeric :] = self.labels
        return out if dtype is None or np.dtype(dtype) == object else out.astype(dtype)

    def copy(self) -> MixedMatrix:
        return MixedMatrix(self.numeric.copy(), self.labels.copy())

    def _columns(self, cols) -> np.ndarray | int:
        if isinstance(cols, (int, np.integer)):
            j = int(cols) + (self.shape[1] if cols < 0 else 0)
            if not 0 <= j < self.shape[1]:
                raise IndexError(f"column {cols} is out of bounds for {self.shape[1]} columns")
            return j
        return np.arange(self.shape[1])[cols]

    @staticmethod
    def _take(block: np.ndarray, rows, cols) -> np.ndarray:
        if isinstance(rows, slice) or np.ndim(cols) == 0:
            return block[rows, cols]
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        return block[np.ix_(rows, cols)]

    def __getitem__(self, key):
        if not isinstance(key, tuple):  # rows
            if isinstance(key, (int, np.integer)):
                return np.asarray(MixedMatrix(self.numeric[[key]], self.labels[[key]]))[0]
            return MixedMatrix(self.numeric[key], self.labels[key])
        rows, cols = key
        cols = self._columns(cols)
        p = self.n_numeric
        if np.ndim(cols) == 0:
            return self._take(self.numeric, rows, cols) if cols < p else self._take(self.labels, rows, cols - p)
        if (cols < p).all():
            return self._take(self.numeric, rows, cols)
        if (cols >= p).all():
            return self._take(self.labels, rows, cols - p)
        return np.asarray(self)[rows][:, cols]

    def __setitem__(self, key, value) -> None:
        rows, cols = key if isinstance(key, tuple) else (key, slice(None))
        cols = self._columns(cols)
        p = self.n_numeric
        if np.ndim(cols) == 0:
            block, j = (self.numeric, cols) if cols < p else (self.labels, cols - p)
            block[rows, j] = value
            return
        n_rows = np.arange(len(self))[rows].size
        value = np.broadcast_to(np.asarray(value, dtype=object if (cols >= p).any() else None), (n_rows, len(cols)))
        for i, j in enumerate(cols):
            block, jj = (self.numeric, j) if j < p else (self.labels, j - p)
            block[rows, jj] = value[:, i]

    def __repr__(self) -> str:
        return f"MixedMatrix({self.shape[0]} rows: {self.n_numeric} numeric, {self.labels.shape[1]} label columns)"
