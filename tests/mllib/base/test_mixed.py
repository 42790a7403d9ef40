"""MixedMatrix behaves as the object matrix it stands for (the oracle: np.asarray of it, indexed the same way), and
a ColumnTransformer fitted on it gives the same output as on that object matrix, with each block's columns handed
over unconverted."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.base import ColumnTransformer, MixedMatrix, Pipeline
from mllib.preprocessing import OneHotEncoder, SimpleImputer, StandardScaler


def sample(n=7, seed=0) -> MixedMatrix:
    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(n, 3))
    numeric[1, 2] = np.nan
    labels = rng.choice(np.array(["a", "b", "c"], dtype=object), size=(n, 2))
    labels[3, 0] = None
    return MixedMatrix(numeric, labels)


def same(a, b) -> bool:
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if a.shape != b.shape:
        return False
    return all((x is None and y is None) or x == y or (x != x and y != y) for x, y in zip(a.ravel(), b.ravel()))


def test_shape_len_and_the_object_matrix():
    X = sample()
    O = np.asarray(X)
    assert X.shape == O.shape == (7, 5) and len(X) == 7 and X.ndim == 2 and O.dtype == object
    assert all(isinstance(v, float) for v in O[:, :3].ravel()) and O[3, 3] is None and O[0, 4] in ("a", "b", "c")


@pytest.mark.parametrize(
    "key",
    [
        (slice(None), 0),
        (slice(None), 4),
        (slice(None), -1),
        (slice(None), [0, 2]),
        (slice(None), [3, 4]),
        (slice(None), [1, 3]),  # across the blocks: an object array
        (slice(None), slice(1, 4)),
        (slice(2, 5), [0, 1]),
        (2, 1),
        (2, 3),
    ],
)
def test_indexing_matches_the_object_matrix(key):
    X = sample()
    assert same(X[key], np.asarray(X)[key])


def test_rows_by_index_array_bool_mask_and_slice_stay_mixed():
    X, O = sample(), np.asarray(sample())
    for rows in (np.array([4, 0, 4]), np.arange(7) % 2 == 0, slice(1, 6, 2)):
        part = X[rows]
        assert isinstance(part, MixedMatrix) and same(part, O[rows])
    assert same(X[np.array([5, 1]), [0, 3]], O[np.ix_([5, 1], [0, 3])])  # rows x cols (np.ix_'s meaning)
    assert X[:, [0, 1]].dtype == np.float64 and X[:, [3]].dtype == object  # one block: its own array, unconverted


def test_column_assignment_and_copy_match_the_object_matrix():
    X = sample()
    O = np.asarray(X)
    perm = np.array([6, 5, 4, 3, 2, 1, 0])
    Y = X.copy()
    Y[:, [0, 4]] = X[:, [0, 4]][perm]
    P = O.copy()
    P[:, [0, 4]] = O[:, [0, 4]][perm]
    assert same(Y, P) and same(X, O)  # the copy is independent of the original
    Y[:, 3] = "z"
    Y[:, 1] = 0.5
    P[:, 3], P[:, 1] = "z", 0.5
    assert same(Y, P) and Y.numeric.dtype == np.float64


def test_blocks_must_share_their_rows():
    with pytest.raises(ValueError, match="same rows"):
        MixedMatrix(np.zeros((3, 2)), np.zeros((4, 1), dtype=object))


def test_column_transformer_on_a_mixed_matrix_equals_the_object_matrix():
    X = sample(n=40, seed=3)

    def transformer():
        return ColumnTransformer(
            [
                (
                    "numeric",
                    Pipeline([("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())]),
                    [0, 1, 2],
                ),
                (
                    "categorical",
                    Pipeline([("impute", SimpleImputer(strategy="most_frequent")), ("encode", OneHotEncoder())]),
                    [3, 4],
                ),
            ]
        )

    on_mixed, on_object = transformer().fit(X), transformer().fit(np.asarray(X))
    np.testing.assert_array_equal(on_mixed.transform(X), on_object.transform(np.asarray(X)))
    np.testing.assert_array_equal(on_mixed.transform(X[5:9]), on_object.transform(np.asarray(X)[5:9]))
