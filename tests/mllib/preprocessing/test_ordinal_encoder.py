"""OrdinalEncoder: codes 0..K-1 in sorted order (agreement with scikit-learn on strings and numbers), a declared
order for ordinal scales (D3:117-119), the unseen-category policy, and inverse_transform (unknown -> None)."""

import numpy as np
import pytest
from sklearn.preprocessing import OrdinalEncoder as SkOrdinalEncoder

from mllib.preprocessing import OrdinalEncoder


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_sklearn_on_random_strings_and_unseen_values(seed):
    rng = np.random.default_rng(seed)
    levels = [["red", "green", "blue"], ["s", "m", "l", "xl"], ["0", "1"]]
    X = np.column_stack([rng.choice(c, 40) for c in levels]).astype(object)
    X_new = np.column_stack([rng.choice(c + ["unseen"], 25) for c in levels]).astype(object)
    ours = OrdinalEncoder().fit(X)
    ref = SkOrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(X)
    for a, b in zip(ours.categories_, ref.categories_):
        assert a.tolist() == b.tolist()
    np.testing.assert_array_equal(ours.transform(X), ref.transform(X))
    np.testing.assert_array_equal(ours.transform(X_new), ref.transform(X_new))
    assert (
        ours.inverse_transform(ours.transform(X_new)).tolist() == ref.inverse_transform(ref.transform(X_new)).tolist()
    )


def test_agrees_with_sklearn_on_numeric_columns_and_round_trips_exactly():
    X = np.random.default_rng(3).normal(size=(30, 3))
    ours = OrdinalEncoder().fit(X)
    np.testing.assert_array_equal(ours.transform(X), SkOrdinalEncoder().fit_transform(X))
    back = ours.inverse_transform(ours.transform(X))
    assert back.dtype == np.float64
    np.testing.assert_array_equal(back, X)


def test_declared_order_is_the_code_order():
    enc = OrdinalEncoder(categories=[["tiny", "small", "medium", "large"]]).fit(np.array([["small"], ["large"]]))
    np.testing.assert_array_equal(enc.transform(np.array([["large"], ["tiny"], ["medium"]])), [[3.0], [0.0], [2.0]])
    assert enc.inverse_transform(np.array([[1.0], [3.0]])).tolist() == [["small"], ["large"]]
    ref = SkOrdinalEncoder(categories=[["tiny", "small", "medium", "large"]]).fit(np.array([["small"], ["large"]]))
    np.testing.assert_array_equal(enc.transform(np.array([["medium"]])), ref.transform(np.array([["medium"]])))


def test_unknown_policies():
    X = np.array([["a"], ["b"]], dtype=object)
    default = OrdinalEncoder().fit(X)
    np.testing.assert_array_equal(default.transform(np.array([["c"], ["b"]], dtype=object)), [[-1.0], [1.0]])
    assert default.inverse_transform(np.array([[-1.0], [0.0]])).tolist() == [[None], ["a"]]
    nan = OrdinalEncoder(unknown_value=np.nan).fit(X)
    out = nan.transform(np.array([["c"], ["a"]], dtype=object))
    assert np.isnan(out[0, 0]) and out[1, 0] == 0.0
    assert nan.inverse_transform(out).tolist() == [[None], ["a"]]
    strict = OrdinalEncoder(handle_unknown="error").fit(X)
    with pytest.raises(ValueError, match=r"column 0 has categories \['c'\] unseen at fit time"):
        strict.transform(np.array([["c"]], dtype=object))


def test_errors():
    X = np.array([["a"], ["b"], ["c"]], dtype=object)
    with pytest.raises(ValueError, match="unknown_value=1 is the code of a category"):
        OrdinalEncoder(unknown_value=1).fit(X)
    with pytest.raises(ValueError, match="handle_unknown must be one of"):
        OrdinalEncoder(handle_unknown="ignore").fit(X)
    with pytest.raises(ValueError, match="unknown_value must be a number or NaN"):
        OrdinalEncoder(unknown_value="other").fit(X)
    with pytest.raises(ValueError, match="column 0 has missing values"):
        OrdinalEncoder().fit(np.array([["a"], [None]], dtype=object))
    enc = OrdinalEncoder().fit(X)
    with pytest.raises(ValueError, match=r"Z column 0 has \[3.0, 0.5\], which are not codes"):
        enc.inverse_transform(np.array([[3.0], [0.5], [1.0]]))
    with pytest.raises(ValueError, match="X has 2 features"):
        enc.transform(np.array([["a", "b"]], dtype=object))
