"""GroupImputer: the catalogue oracle (groups [a, a, b, b], values [1, NaN, 5, 7] -> the NaN becomes 1), a brute
per-group oracle computed with pandas, the documented fallbacks (unseen group, missing group value, group without
an observed value), group_column=None == SimpleImputer, and missing indicators shared with SimpleImputer."""

import numpy as np
import pandas as pd
import pytest

from mllib.preprocessing import GroupImputer, SimpleImputer


def test_catalogue_oracle_group_mean():
    X = np.array([["a", 1.0], ["a", np.nan], ["b", 5.0], ["b", 7.0]], dtype=object)
    out = GroupImputer(group_column=0).fit_transform(X)
    assert out.tolist() == [["a", 1.0], ["a", 1.0], ["b", 5.0], ["b", 7.0]]
    # the global mean would have given (1 + 5 + 7) / 3
    assert SimpleImputer().fit_transform(X[:, 1:])[1, 0] == pytest.approx(13 / 3)


def _pandas_oracle(X_fit, X_new, g, strategy):
    """Per-group statistic of each value column on the fit rows; global statistic where the group gives none."""
    cols = [j for j in range(X_fit.shape[1]) if j != g]
    fit = pd.DataFrame(X_fit)
    agg = {"mean": "mean", "median": "median", "most_frequent": lambda s: s.mode().min()}[strategy]
    out = X_new.copy()
    for j in cols:
        per_group = fit.groupby(g)[j].agg(agg)
        overall = agg(fit[j].dropna()) if callable(agg) else getattr(fit[j].dropna(), agg)()
        for i in np.flatnonzero(np.isnan(X_new[:, j])):
            value = per_group.get(X_new[i, g], np.nan)
            out[i, j] = overall if pd.isna(value) else value
    return out


@pytest.mark.parametrize("strategy", ["mean", "median", "most_frequent"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_a_pandas_groupby_oracle(strategy, seed):
    rng = np.random.default_rng(seed)
    n, d, g = 90, 4, 2
    X = rng.integers(0, 5, size=(n, d)).astype(float) if strategy == "most_frequent" else rng.normal(size=(n, d))
    X[:, g] = rng.integers(0, 6, size=n)  # six groups
    X[X[:, g] == 5, 0] = np.nan  # group 5 never observes column 0: falls back to the global statistic
    mask = rng.random((n, d)) < 0.25
    mask[:, g] = False
    X[mask] = np.nan
    X_new = rng.normal(size=(30, d))
    X_new[:, g] = rng.integers(0, 8, size=30)  # groups 6 and 7 are unseen at fit
    X_new[rng.random((30, d)) < 0.4] = np.nan
    X_new[:, g] = np.where(np.isnan(X_new[:, g]), 0.0, X_new[:, g])
    imp = GroupImputer(group_column=g, strategy=strategy).fit(X)
    np.testing.assert_allclose(imp.transform(X_new), _pandas_oracle(X, X_new, g, strategy), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(imp.groups_, np.arange(6.0))


def test_fallbacks_unseen_group_missing_group_value_and_empty_group():
    X = np.array([[0.0, 1.0, np.nan], [0.0, 3.0, np.nan], [1.0, 10.0, 4.0], [1.0, np.nan, 6.0], [1.0, 10.0, 2.0]])
    imp = GroupImputer(group_column=0).fit(X)
    np.testing.assert_array_equal(imp.statistics_, [6.0, 4.0])
    np.testing.assert_array_equal(imp.group_statistics_, [[2.0, 4.0], [10.0, 4.0]])  # group 0: column 2 -> global
    X_new = np.array([[0.0, np.nan, np.nan], [1.0, np.nan, np.nan], [9.0, np.nan, np.nan], [np.nan, np.nan, 1.0]])
    out = imp.transform(X_new)
    np.testing.assert_array_equal(out, [[0.0, 2.0, 4.0], [1.0, 10.0, 4.0], [9.0, 6.0, 4.0], [1.0, 6.0, 1.0]])
    # the missing group value becomes the most frequent group (1), but the row still takes the global statistics


@pytest.mark.parametrize("strategy", ["mean", "median", "most_frequent"])
@pytest.mark.parametrize("add_indicator", [False, True])
def test_no_group_column_is_simple_imputation(strategy, add_indicator):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 4, size=(50, 3)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    X_new = rng.normal(size=(10, 3))
    X_new[rng.random(X_new.shape) < 0.5] = np.nan
    ours = GroupImputer(strategy=strategy, add_indicator=add_indicator).fit(X)
    ref = SimpleImputer(strategy=strategy, add_indicator=add_indicator).fit(X)
    np.testing.assert_array_equal(ours.transform(X_new), ref.transform(X_new))
    assert ours.get_feature_names_out(["a", "b", "c"]) == ref.get_feature_names_out(["a", "b", "c"])


def test_missing_indicators_include_the_group_column():
    X = np.array([[0.0, np.nan, 1.0], [np.nan, 2.0, 1.0], [1.0, 4.0, 1.0]])
    imp = GroupImputer(group_column=0, add_indicator=True).fit(X)
    np.testing.assert_array_equal(imp.indicator_columns_, [0, 1])
    out = imp.transform(np.array([[np.nan, np.nan, np.nan]]))
    np.testing.assert_array_equal(out, [[0.0, 3.0, 1.0, 1.0, 1.0]])  # group fill: 0 and 1 tie -> 0
    assert imp.get_feature_names_out(["site", "b", "c"]) == ["site", "b", "c", "site_missing", "b_missing"]


def test_most_frequent_on_string_columns_grouped_by_a_string_column():
    X = np.array([["n", "x"], ["n", None], ["n", "x"], ["s", "y"], ["s", np.nan], ["s", "z"], ["s", "y"]], dtype=object)
    out = GroupImputer(group_column=0, strategy="most_frequent").fit_transform(X)
    assert out[:, 1].tolist() == ["x", "x", "x", "y", "y", "z", "y"]


def test_errors():
    X = np.array([[0.0, 1.0], [1.0, np.nan]])
    with pytest.raises(ValueError, match="strategy must be one of"):
        GroupImputer(strategy="constant").fit(X)
    with pytest.raises(ValueError, match=r"group_column must be column indices in \[0, 2\)"):
        GroupImputer(group_column=2).fit(X)
    with pytest.raises(ValueError, match="group_column must be None or an integer >= 0, got True"):
        GroupImputer(group_column=True).fit(X)
    with pytest.raises(ValueError, match="value column 0 has no observed values"):
        GroupImputer(group_column=0).fit(np.array([[0.0, np.nan], [1.0, np.nan]]))
    with pytest.raises(ValueError, match="cannot be converted"):
        GroupImputer(group_column=0).fit(np.array([["a", "b"]], dtype=object))
    imp = GroupImputer(group_column=0).fit(X)
    with pytest.raises(ValueError, match="X has 3 features"):
        imp.transform(np.ones((1, 3)))


def test_numeric_group_codes_in_an_object_array_with_none():
    # as a column transformer hands over a mixed frame: numbers and None in an object array
    X = np.array([[1, 2.0], [1, None], [2, 5.0], [None, None], [2, np.nan]], dtype=object)
    imp = GroupImputer(group_column=0).fit(X)
    assert imp.groups_.dtype == np.float64 and imp.groups_.tolist() == [1.0, 2.0]
    np.testing.assert_array_equal(imp.transform(X), [[1, 2], [1, 2], [2, 5], [1, 3.5], [2, 5]])
