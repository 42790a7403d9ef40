"""OneHotEncoder: the catalogue oracle (item 18: ["f","m","m"] with categories [f, m, o] -> [[1,0,0],[0,1,0],
[0,1,0]]), the category list fixed at fit, unseen categories (zeros or error), agreement with scikit-learn, and
inverse_transform (round trip; an unseen category's all-zero block -> None, as in scikit-learn)."""

import numpy as np
import pytest
from sklearn.preprocessing import OneHotEncoder as SkOneHotEncoder

from mllib.preprocessing import OneHotEncoder


def test_catalogue_oracle_declared_category_that_does_not_occur_keeps_its_column():
    enc = OneHotEncoder(categories=[["f", "m", "o"]]).fit(np.array([["f"], ["m"], ["m"]]))
    out = enc.transform(np.array([["f"], ["m"], ["m"]]))
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 1, 0], [0, 1, 0]])
    assert out.dtype == np.float64
    assert enc.get_feature_names_out(["sex"]) == ["sex=f", "sex=m", "sex=o"]


def test_declared_categories_longer_than_the_fit_strings_are_kept_whole():
    # the fit data has dtype <U1; the declared "other" must not be truncated to "o"
    enc = OneHotEncoder(categories=[["f", "m", "other"]]).fit(np.array([["f"], ["m"]]))
    assert enc.categories_[0].tolist() == ["f", "m", "other"]
    np.testing.assert_array_equal(enc.transform(np.array([["other"], ["o"]])), [[0, 0, 1], [0, 0, 0]])
    obj = OneHotEncoder(categories=[["f", "m", "other"]]).fit(np.array([["f"], ["m"]], dtype=object))
    np.testing.assert_array_equal(obj.transform(np.array([["other"]], dtype=object)), [[0, 0, 1]])


def test_auto_categories_are_sorted_per_column_and_blocks_follow_column_order():
    X = np.array([["b", "z"], ["a", "y"], ["b", "y"]], dtype=object)
    enc = OneHotEncoder().fit(X)
    assert [c.tolist() for c in enc.categories_] == [["a", "b"], ["y", "z"]]
    np.testing.assert_array_equal(enc.transform(X), [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 1, 0]])
    assert enc.get_feature_names_out(["p", "q"]) == ["p=a", "p=b", "q=y", "q=z"]


def test_numeric_categories():
    X = np.array([[3.0], [1.0], [3.0], [2.0]])
    enc = OneHotEncoder().fit(X)
    np.testing.assert_array_equal(enc.transform(np.array([[2.0], [3.0], [4.0]])), [[0, 1, 0], [0, 0, 1], [0, 0, 0]])


def test_unseen_category_ignore_gives_zeros_and_error_raises():
    X = np.array([["a"], ["b"]], dtype=object)
    ignore = OneHotEncoder(handle_unknown="ignore").fit(X)
    np.testing.assert_array_equal(ignore.transform(np.array([["c"], ["a"]], dtype=object)), [[0, 0], [1, 0]])
    strict = OneHotEncoder(handle_unknown="error").fit(X)
    np.testing.assert_array_equal(strict.transform(X), [[1, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"column 0 has categories \['c'\] unseen at fit time"):
        strict.transform(np.array([["c"], ["a"]], dtype=object))


def test_every_row_has_exactly_one_one_per_column_for_seen_categories():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.choice(list("abc"), 40), rng.choice(["x", "y"], 40)]).astype(object)
    out = OneHotEncoder().fit_transform(X)
    np.testing.assert_array_equal(out[:, :3].sum(axis=1), 1.0)
    np.testing.assert_array_equal(out[:, 3:].sum(axis=1), 1.0)
    assert set(np.unique(out)) == {0.0, 1.0}


def test_errors():
    with pytest.raises(ValueError, match="column 1 has missing values"):
        OneHotEncoder().fit(np.array([["a", None]], dtype=object))
    with pytest.raises(ValueError, match="NaN or inf"):
        OneHotEncoder().fit(np.array([[1.0], [np.nan]]))
    enc = OneHotEncoder().fit(np.array([["a"]], dtype=object))
    with pytest.raises(ValueError, match="missing values"):
        enc.transform(np.array([[np.nan]], dtype=object))
    with pytest.raises(ValueError, match="handle_unknown must be one of"):
        OneHotEncoder(handle_unknown="zeros").fit(np.array([["a"]]))
    with pytest.raises(ValueError, match="categories must be one of 'auto' or a list of lists"):
        OneHotEncoder(categories="sorted").fit(np.array([["a"]]))
    with pytest.raises(ValueError, match="categories lists 1 columns but X has 2"):
        OneHotEncoder(categories=[["a"]]).fit(np.array([["a", "b"]]))
    with pytest.raises(ValueError, match=r"column 0 has values \['z'\] not in the declared categories"):
        OneHotEncoder(categories=[["a", "b"]]).fit(np.array([["a"], ["z"]]))
    with pytest.raises(ValueError, match="X has 2 features"):
        enc.transform(np.array([["a", "a"]], dtype=object))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_sklearn_on_random_data(seed):
    rng = np.random.default_rng(seed)
    levels = [["red", "green", "blue"], ["s", "m", "l", "xl", "xxl"], ["0", "1"]]
    X = np.column_stack([rng.choice(c, 40) for c in levels]).astype(object)
    X_new = np.column_stack([rng.choice(c + ["unseen"], 25) for c in levels]).astype(object)
    ours = OneHotEncoder(handle_unknown="ignore").fit(X)
    ref = SkOneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(X)
    for a, b in zip(ours.categories_, ref.categories_):
        assert a.tolist() == b.tolist()
    np.testing.assert_array_equal(ours.transform(X), ref.transform(X))
    np.testing.assert_array_equal(ours.transform(X_new), ref.transform(X_new))
    names = ours.get_feature_names_out(["c", "s", "b"])
    assert [n.replace("=", "_") for n in names] == ref.get_feature_names_out(["c", "s", "b"]).tolist()
    # inverse: an unseen category's all-zero block maps back to None, every seen category to itself
    back = ours.inverse_transform(ours.transform(X_new))
    assert back.dtype == object and back.tolist() == ref.inverse_transform(ref.transform(X_new)).tolist()
    unseen = X_new == "unseen"
    assert unseen.any() and all(v is None for v in back[unseen])
    assert back[~unseen].tolist() == X_new[~unseen].tolist()


def test_agrees_with_sklearn_with_declared_categories():
    X = np.array([["m"], ["f"], ["m"]], dtype=object)
    cats = [["f", "m", "o"]]
    ours = OneHotEncoder(categories=cats).fit(X).transform(X)
    ref = SkOneHotEncoder(categories=cats, sparse_output=False).fit(X).transform(X)
    np.testing.assert_array_equal(ours, ref)


# ---------------------------------------------------------------- inverse_transform


def test_inverse_transform_round_trips_string_and_numeric_categories():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.choice(["north", "south", "east"], 30), rng.choice(["a", "b"], 30)]).astype(object)
    enc = OneHotEncoder(handle_unknown="error").fit(X)
    back = enc.inverse_transform(enc.transform(X))
    assert back.dtype == object and back.tolist() == X.tolist() and all(type(v) is str for v in back.ravel())
    X_num = rng.integers(0, 5, size=(30, 2)).astype(float)
    enc = OneHotEncoder().fit(X_num)
    back = enc.inverse_transform(enc.transform(X_num))
    assert back.dtype == np.float64 and np.array_equal(back, X_num)
    # declared categories that never occur still invert to themselves
    enc = OneHotEncoder(categories=[["f", "m", "o"]]).fit(np.array([["f"], ["m"]], dtype=object))
    assert enc.inverse_transform(np.array([[0.0, 0.0, 1.0]])).tolist() == [["o"]]


def test_inverse_transform_errors():
    X = np.array([["a", "x"], ["b", "y"]], dtype=object)
    enc = OneHotEncoder(handle_unknown="ignore").fit(X)
    with pytest.raises(ValueError, match="Z has 3 columns, but the encoding .* was fitted with 4"):
        enc.inverse_transform(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="0/1 indicators"):
        enc.inverse_transform(np.array([[0.5, 0.5, 1.0, 0.0]]))
    with pytest.raises(ValueError, match="row 1 of Z is not an encoding of column 1"):
        enc.inverse_transform(np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]]))
    strict = OneHotEncoder(handle_unknown="error").fit(X)
    with pytest.raises(ValueError, match="row 0 of Z is not an encoding of column 0"):
        strict.inverse_transform(np.array([[0.0, 0.0, 1.0, 0.0]]))


# ---- pooling rare levels (min_frequency, max_categories) ----------------------------------------------------


@pytest.mark.parametrize(
    "settings",
    [
        {"min_frequency": 3},
        {"min_frequency": 0.05},
        {"max_categories": 4},
        {"min_frequency": 2, "max_categories": 3},
        {"max_categories": 50},
    ],
)
def test_pooling_matches_scikit_learn(settings):
    rng = np.random.default_rng(3)
    levels = np.array([f"l{i:02d}" for i in range(12)], dtype=object)
    X = np.column_stack(
        [
            rng.choice(levels, size=200, p=np.geomspace(1, 0.05, 12) / np.geomspace(1, 0.05, 12).sum()),
            rng.choice(levels[:3], size=200),
        ]
    )
    X_new = np.column_stack([np.append(levels, "unseen"), np.append(levels[:3].repeat(4), "unseen")])
    ours = OneHotEncoder(**settings).fit(X)
    ref = SkOneHotEncoder(handle_unknown="infrequent_if_exist", sparse_output=False, **settings).fit(X)
    np.testing.assert_array_equal(ours.transform(X_new), ref.transform(X_new))
    expected = [
        n.replace("_infrequent_sklearn", "=infrequent").replace("_", "=", 1) if "=" not in n else n
        for n in ref.get_feature_names_out(["a", "b"])
    ]
    assert ours.get_feature_names_out(["a", "b"]) == expected
    for ours_rare, ref_rare in zip(ours.infrequent_categories_, ref.infrequent_categories_):
        assert (ours_rare.tolist() if ours_rare.size else None) == (None if ref_rare is None else sorted(ref_rare))


def test_pooling_bounds_the_width_and_inverse_gives_none_for_the_pool():
    X = np.array([[f"id{i}"] for i in range(2000)] + [["common"]] * 50, dtype=object)
    encoder = OneHotEncoder(min_frequency=10, max_categories=50).fit(X)
    assert encoder.transform(X).shape == (2050, 2)  # "common" and the pooled 2,000 singletons
    assert encoder.inverse_transform(encoder.transform(X[[0, -1]])).tolist() == [[None], ["common"]]
    assert OneHotEncoder().fit(X).transform(X).shape == (2050, 2001)  # no pooling by default


@pytest.mark.parametrize(
    "settings",
    [
        {"min_frequency": 0},
        {"min_frequency": 1.5},
        {"min_frequency": True},
        {"max_categories": 1},
        {"max_categories": 2.0},
    ],
)
def test_pooling_settings_are_checked(settings):
    with pytest.raises(ValueError, match="min_frequency|max_categories"):
        OneHotEncoder(**settings).fit(np.array([["a"], ["b"]], dtype=object))


def test_unknown_level_without_a_pool_is_all_zeros_and_with_error_raises():
    X = np.array([["a"]] * 5 + [["b"]] * 5, dtype=object)
    assert OneHotEncoder(min_frequency=2).fit(X).transform(np.array([["c"]], dtype=object)).tolist() == [[0.0, 0.0]]
    with pytest.raises(ValueError, match="unseen"):
        OneHotEncoder(min_frequency=2, handle_unknown="error").fit(X).transform(np.array([["c"]], dtype=object))
