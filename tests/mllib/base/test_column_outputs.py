"""column_outputs: what each output column is computed from. The oracle is the definition itself: for a
column-wise transformer, transforming X with column j permuted equals transforming X and permuting the rows of
column j's outputs, every other output unchanged; a transformer whose outputs mix columns answers None."""

import numpy as np
import pytest

from mllib.base import ColumnTransformer, Identity, MixedMatrix, Pipeline
from mllib.decomposition import PCA
from mllib.feature_selection import VarianceThreshold
from mllib.preprocessing import (
    MinMaxScaler,
    OneHotEncoder,
    OrdinalEncoder,
    PolynomialFeatures,
    RobustScaler,
    SimpleImputer,
    StandardScaler,
)


def _numbers(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * [1, 10, 0.1, 3]
    X[:, 3] = 2.0  # constant: dropped by VarianceThreshold
    X[rng.random(n) < 0.2, 1] = np.nan
    X[rng.random(n) < 0.1, 2] = np.nan
    return X


def _labels(n=300, seed=1):
    rng = np.random.default_rng(seed)
    return np.column_stack(
        [
            rng.choice(np.array(["a", "b", "c", "rare"], dtype=object), size=n, p=[0.4, 0.3, 0.28, 0.02]),
            rng.choice(np.array(["x", "y"], dtype=object), size=n),
        ]
    )


def _mixed(n=300):
    return MixedMatrix(_numbers(n), _labels(n))


CASES = {
    "standard": (lambda: StandardScaler(), lambda: np.nan_to_num(_numbers())),
    "minmax": (lambda: MinMaxScaler(), lambda: np.nan_to_num(_numbers())),
    "robust": (lambda: RobustScaler(), lambda: np.nan_to_num(_numbers())),
    "imputer with indicators": (lambda: SimpleImputer(strategy="median", add_indicator=True), _numbers),
    "one-hot with pooling": (lambda: OneHotEncoder(min_frequency=10, handle_unknown="ignore"), _labels),
    "ordinal": (lambda: OrdinalEncoder(), _labels),
    "variance threshold": (lambda: VarianceThreshold(), lambda: np.nan_to_num(_numbers())),
    "pipeline": (
        lambda: Pipeline(
            [
                ("impute", SimpleImputer(add_indicator=True)),
                ("scale", StandardScaler()),
                ("select", VarianceThreshold()),
            ]
        ),
        _numbers,
    ),
    "column transformer on raw rows": (
        lambda: ColumnTransformer(
            [
                (
                    "numeric",
                    Pipeline([("impute", SimpleImputer(add_indicator=True)), ("scale", StandardScaler())]),
                    [0, 1, 2],
                ),
                ("categorical", OneHotEncoder(min_frequency=10, handle_unknown="ignore"), [4, 5]),
            ]
        ),  # column 3 is taken by no transformer
        _mixed,
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_permuting_a_column_permutes_exactly_its_outputs(name):
    make, data = CASES[name]
    X = data()
    transformer = make().fit(X)
    outputs = transformer.column_outputs()
    Z = transformer.transform(X)
    assert len(outputs) == X.shape[1]
    every = sorted(o for out in outputs for o in out)
    assert len(every) == len(set(every))  # each output belongs to one input column
    perm = np.random.default_rng(3).permutation(X.shape[0])
    for j, out in enumerate(outputs):
        X_perm = X.copy()
        X_perm[:, [j]] = X[:, [j]][perm]
        expected = Z.copy()
        expected[:, out] = Z[:, out][perm]
        np.testing.assert_array_equal(transformer.transform(X_perm), expected)


def test_the_maps_agree_with_what_each_output_is():
    ct = CASES["column transformer on raw rows"][0]().fit(_mixed())
    names = ct.get_feature_names_out(["n0", "n1", "n2", "n3", "c0", "c1"])
    outputs = ct.column_outputs()
    assert [names[o] for o in outputs[1]] == ["n1", "n1_missing"]
    assert outputs[3] == []
    assert [names[o] for o in outputs[5]] == ["c1=x", "c1=y"]
    assert [names[o] for o in outputs[4]] == ["c0=a", "c0=b", "c0=c", "c0=infrequent"]


@pytest.mark.parametrize(
    "make",
    [
        lambda: PCA(n_components=2),
        lambda: PolynomialFeatures(degree=2),
        lambda: Pipeline([("scale", StandardScaler()), ("pca", PCA(n_components=2))]),
        lambda: ColumnTransformer([("pca", PCA(n_components=2), [0, 1, 2]), ("scale", StandardScaler(), [3])]),
    ],
)
def test_outputs_that_mix_columns_answer_none(make):
    X = np.nan_to_num(_numbers())
    assert make().fit(X).column_outputs() is None


def test_identity_passes_rows_through_as_float64():
    X = np.arange(12).reshape(4, 3)
    identity = Identity().fit(X)
    Z = identity.transform(X)
    assert Z.dtype == np.float64 and np.array_equal(Z, X)
    assert identity.column_outputs() == [[0], [1], [2]]
    with pytest.raises(ValueError, match="features"):
        identity.transform(np.zeros((2, 4)))
