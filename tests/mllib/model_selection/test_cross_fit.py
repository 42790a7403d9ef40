"""cross_fit: each row predicted only by models that did not see it, averaged over the splits that validate it."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.model_selection import cross_fit


def test_rows_are_predicted_without_themselves_and_averaged_over_repeats():
    y = np.arange(6, dtype=float)
    splits = [
        (np.array([2, 3, 4, 5]), np.array([0, 1])),
        (np.array([0, 1, 4, 5]), np.array([2, 3])),
        (np.array([0, 1, 2, 3]), np.array([4, 5])),
        (np.array([1, 2, 3, 4, 5]), np.array([0])),
    ]
    seen = []

    def mean_of_fit_rows(k, fit, valid):
        seen.append((set(fit.tolist()), set(valid.tolist())))
        return np.full(valid.size, y[fit].mean())

    out = cross_fit(mean_of_fit_rows, splits, 6)
    assert all(not (f & v) for f, v in seen)
    assert out[0] == pytest.approx((y[[2, 3, 4, 5]].mean() + y[[1, 2, 3, 4, 5]].mean()) / 2)
    assert out[5] == pytest.approx(y[[0, 1, 2, 3]].mean())


def test_rows_no_split_validates_are_nan_and_matrices_keep_their_columns():
    out = cross_fit(lambda k, fit, valid: np.ones((valid.size, 3)), [(np.array([0, 1]), np.array([2]))], 4)
    assert out.shape == (4, 3) and np.isnan(out[[0, 1, 3]]).all() and (out[2] == 1).all()
    with pytest.raises(ValueError, match="at least one split"):
        cross_fit(lambda *a: None, [], 3)
