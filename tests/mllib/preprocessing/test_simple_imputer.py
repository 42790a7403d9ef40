"""SimpleImputer: catalogue oracle (mean of [1, NaN, 3] is 2, item 19), median / most_frequent (ties -> the
smallest) / constant, missing indicators only for columns with missing values at fit, object (string) columns
with None / NaN, and agreement with scikit-learn's SimpleImputer."""

import numpy as np
import pytest
from sklearn.impute import SimpleImputer as SkSimpleImputer

from mllib.preprocessing import SimpleImputer


def test_catalogue_oracle_mean_of_one_nan_three_is_two():
    out = SimpleImputer(strategy="mean").fit_transform(np.array([[1.0], [np.nan], [3.0]]))
    np.testing.assert_array_equal(out, [[1.0], [2.0], [3.0]])


def test_median_per_column():
    X = np.array([[1.0, 5.0], [np.nan, np.nan], [3.0, 1.0], [10.0, 2.0], [np.nan, 4.0]])
    imp = SimpleImputer(strategy="median").fit(X)
    np.testing.assert_array_equal(imp.statistics_, [3.0, 3.0])
    np.testing.assert_array_equal(imp.transform(X)[[1, 4]], [[3.0, 3.0], [3.0, 4.0]])


def test_most_frequent_ties_go_to_the_smallest_value():
    X = np.array([[3.0, 2.0], [1.0, 2.0], [3.0, np.nan], [1.0, 9.0], [np.nan, 9.0], [2.0, np.nan]])
    imp = SimpleImputer(strategy="most_frequent").fit(X)
    np.testing.assert_array_equal(imp.statistics_, [1.0, 2.0])  # 1 and 3 tie twice; 2 and 9 tie twice


def test_most_frequent_on_strings_with_none_and_nan():
    X = np.array([["b", "x"], [None, "y"], ["a", np.nan], ["b", "y"], [np.nan, None], ["a", "z"]], dtype=object)
    imp = SimpleImputer(strategy="most_frequent").fit(X)
    assert imp.statistics_.tolist() == ["a", "y"]  # "a" and "b" tie -> "a"
    out = imp.transform(X)
    assert out.dtype == object
    assert out.tolist() == [["b", "x"], ["a", "y"], ["a", "y"], ["b", "y"], ["a", "y"], ["a", "z"]]


def test_string_ties_go_to_the_alphabetically_first():
    X = np.array([["zeta"], ["alpha"], ["zeta"], ["alpha"], [None]], dtype=object)
    assert SimpleImputer(strategy="most_frequent").fit(X).statistics_.tolist() == ["alpha"]


def test_unicode_string_arrays_are_accepted():
    X = np.array([["a"], ["b"], ["b"]])  # dtype <U1, no missing
    out = SimpleImputer(strategy="most_frequent").fit(X).transform(np.array([["a"], ["c"]]))
    assert out.tolist() == [["a"], ["c"]]


def test_constant_on_numbers_and_strings():
    X = np.array([[1.0, np.nan], [np.nan, 2.0]])
    out = SimpleImputer(strategy="constant", fill_value=-1.0).fit_transform(X)
    np.testing.assert_array_equal(out, [[1.0, -1.0], [-1.0, 2.0]])
    S = np.array([["a", None], [np.nan, "b"]], dtype=object)
    out = SimpleImputer(strategy="constant", fill_value="missing").fit_transform(S)
    assert out.tolist() == [["a", "missing"], ["missing", "b"]]
    with pytest.raises(ValueError, match="needs a fill_value"):
        SimpleImputer(strategy="constant").fit(X)


def test_object_array_of_numbers_with_none_is_numeric_for_mean_and_median():
    X = np.array([[1, None], [None, 4], [3, 6]], dtype=object)
    np.testing.assert_array_equal(SimpleImputer("mean").fit(X).statistics_, [2.0, 5.0])
    out = SimpleImputer("median").fit_transform(X)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [[1.0, 5.0], [2.0, 4.0], [3.0, 6.0]])


def test_statistics_come_from_fit_rows_not_from_transform_rows():
    imp = SimpleImputer("mean").fit(np.array([[0.0], [2.0]]))
    np.testing.assert_array_equal(imp.transform(np.array([[np.nan], [100.0], [np.nan]])), [[1.0], [100.0], [1.0]])


def test_missing_indicators_only_for_columns_with_missing_values_at_fit():
    X_fit = np.array([[np.nan, 1.0, 2.0], [1.0, 2.0, np.nan], [3.0, 4.0, 5.0]])
    imp = SimpleImputer(add_indicator=True).fit(X_fit)
    np.testing.assert_array_equal(imp.indicator_columns_, [0, 2])
    X_new = np.array([[np.nan, np.nan, 1.0], [0.0, 1.0, np.nan]])  # column 1 missing only now
    out = imp.transform(X_new)
    np.testing.assert_array_equal(out, [[2.0, 7 / 3, 1.0, 1.0, 0.0], [0.0, 1.0, 3.5, 0.0, 1.0]])
    assert imp.get_feature_names_out(["a", "b", "c"]) == ["a", "b", "c", "a_missing", "c_missing"]
    # no missing values at fit: no indicator columns at all
    plain = SimpleImputer(add_indicator=True).fit(np.ones((3, 2)))
    assert plain.transform(np.array([[np.nan, 1.0]])).shape == (1, 2)
    assert plain.get_feature_names_out(["a", "b"]) == ["a", "b"]


def test_indicators_on_object_columns():
    X = np.array([["a"], [None], ["a"]], dtype=object)
    out = SimpleImputer("most_frequent", add_indicator=True).fit_transform(X)
    assert out.shape == (3, 2)
    assert out[:, 0].tolist() == ["a", "a", "a"]
    np.testing.assert_array_equal(out[:, 1].astype(float), [0.0, 1.0, 0.0])


def test_errors():
    with pytest.raises(ValueError, match="strategy must be one of"):
        SimpleImputer(strategy="mode").fit(np.ones((2, 1)))
    with pytest.raises(ValueError, match="column 1 has no observed values"):
        SimpleImputer().fit(np.array([[1.0, np.nan], [2.0, np.nan]]))
    with pytest.raises(ValueError, match="inf"):
        SimpleImputer().fit(np.array([[1.0], [np.inf]]))
    with pytest.raises(ValueError, match="cannot be converted"):
        SimpleImputer("mean").fit(np.array([["a"], ["b"]], dtype=object))
    imp = SimpleImputer().fit(np.ones((2, 2)))
    with pytest.raises(ValueError, match="X has 3 features"):
        imp.transform(np.ones((2, 3)))


@pytest.mark.parametrize("strategy", ["mean", "median", "most_frequent", "constant"])
@pytest.mark.parametrize("add_indicator", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_sklearn_on_random_data(strategy, add_indicator, seed):
    rng = np.random.default_rng(seed)
    n, d = 60, 5
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 100, size=d)
    if strategy == "most_frequent":
        X = rng.integers(0, 6, size=(n, d)).astype(float)  # plenty of ties
    X[rng.random((n, d)) < 0.2] = np.nan
    X[:, 1] = np.where(np.isnan(X[:, 1]), 0.5, X[:, 1])  # one column without missing values
    X_new = rng.normal(size=(20, d))
    X_new[rng.random((20, d)) < 0.3] = np.nan
    kw = {"fill_value": 7.25} if strategy == "constant" else {}
    ours = SimpleImputer(strategy=strategy, add_indicator=add_indicator, **kw).fit(X)
    ref = SkSimpleImputer(strategy=strategy, add_indicator=add_indicator, **kw).fit(X)
    assert ours.statistics_.dtype == np.float64
    np.testing.assert_allclose(ours.statistics_, ref.statistics_.astype(float), rtol=1e-12, atol=0)
    np.testing.assert_allclose(ours.transform(X_new), ref.transform(X_new), rtol=1e-12, atol=0)
    np.testing.assert_allclose(ours.transform(X), ref.transform(X), rtol=1e-12, atol=0)


def test_agrees_with_sklearn_on_string_columns():
    rng = np.random.default_rng(3)
    X = rng.choice(["apple", "pear", "fig", "kiwi"], size=(50, 3)).astype(object)
    X[rng.random(X.shape) < 0.2] = None
    ref = SkSimpleImputer(strategy="most_frequent", missing_values=None).fit(X)
    ours = SimpleImputer(strategy="most_frequent").fit(X)
    assert ours.statistics_.tolist() == ref.statistics_.tolist()
    assert ours.transform(X).tolist() == ref.transform(X).tolist()
