"""Input validation at the edges of every estimator: shapes, NaN/inf, length mismatches, feature counts,
labels, integer hyperparameters, random states, and the small numeric helpers (safe_divide, to_python)."""

import numpy as np
import pytest

from mllib.base import (
    NotFittedError,
    check_1d,
    check_array,
    check_binary_labels,
    check_fitted_X,
    check_int,
    check_n_features,
    check_random_state,
    check_sample_weight,
    check_X_y,
    is_missing,
    safe_divide,
    to_python,
)
from mllib.calibration import PlattScaling
from mllib.linear import LogisticRegression
from mllib.preprocessing import OneHotEncoder, SimpleImputer, StandardScaler

# ---------------------------------------------------------------- check_array


def test_check_array_returns_c_contiguous_float64():
    X = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    out = check_array(X)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, X)
    assert check_array([[1, 2]]).shape == (1, 2)


def test_check_array_dtype_none_keeps_dtype():
    X = np.array([["a", "b"]], dtype=object)
    assert check_array(X, dtype=None).dtype == object
    assert check_array(np.array([[1, 2]]), dtype=None).dtype.kind == "i"


@pytest.mark.parametrize("X", [np.zeros(3), np.zeros((2, 2, 2)), 5.0])
def test_check_array_refuses_non_2d(X):
    with pytest.raises(ValueError, match="must be 2-D"):
        check_array(X)


def test_check_array_allows_1d_when_asked():
    np.testing.assert_array_equal(check_array([1, 2], ndim=None), [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN or inf"):
        check_array([1.0, np.inf], ndim=None)


def test_check_array_refuses_no_rows():
    with pytest.raises(ValueError, match="no rows"):
        check_array(np.empty((0, 3)))


def test_check_array_nan_message_points_at_the_first_bad_entry():
    X = np.zeros((4, 3))
    X[2, 1] = np.nan
    X[3, 0] = np.nan
    with pytest.raises(ValueError, match=r"NaN or inf \(2 entries, first at row 2, column 1\)"):
        check_array(X, name="X")


def test_check_array_inf_is_refused_even_when_nan_is_allowed():
    X = np.array([[1.0, np.nan], [np.inf, 0.0]])
    with pytest.raises(ValueError, match=r"contains inf .*row 1, column 0"):
        check_array(X, allow_nan=True)
    with pytest.raises(ValueError, match="NaN or inf"):
        check_array(np.array([[1.0, -np.inf]]))
    ok = check_array(np.array([[1.0, np.nan]]), allow_nan=True)
    assert np.isnan(ok[0, 1])


def test_check_array_refuses_unconvertible_values_with_a_clear_message():
    with pytest.raises(ValueError, match="cannot be converted to float64"):
        check_array([["a", "b"]])


# ---------------------------------------------------------------- check_X_y, weights, features


def test_check_X_y_refuses_length_mismatch_and_2d_y():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"y has 2 entries, expected 3 \(one per row of X\)"):
        check_X_y(X, [0, 1])
    with pytest.raises(ValueError, match="y must be 1-D"):
        check_X_y(X, np.zeros((3, 1)))


def test_check_X_y_numeric_y_must_be_finite():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="y contains NaN or inf"):
        check_X_y(X, [0.0, np.nan, 1.0], y_numeric=True)
    _, y = check_X_y(X, ["a", "b", "a"])
    assert y.tolist() == ["a", "b", "a"]


def test_check_sample_weight():
    np.testing.assert_array_equal(check_sample_weight(None, 3), np.ones(3))
    np.testing.assert_array_equal(check_sample_weight([1, 2, 0], 3), [1.0, 2.0, 0.0])
    with pytest.raises(ValueError, match=r"sample_weight has 2 entries, expected 3"):
        check_sample_weight([1, 2], 3)
    with pytest.raises(ValueError, match=r"sample_weight must be 1-D .* got shape \(3, 1\)"):
        check_sample_weight(np.ones((3, 1)), 3)
    for bad in ([1, -1, 1], [1, np.nan, 1], [1, np.inf, 1], [0, 0, 0]):
        with pytest.raises(ValueError, match="non-negative"):
            check_sample_weight(bad, 3)


def test_check_n_features():
    class Est:
        n_features_in_ = 3

    check_n_features(Est(), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="X has 2 features, but Est was fitted with 3"):
        check_n_features(Est(), np.zeros((2, 2)))


class _Fitted:
    """Fitted as the protocol sees it: learned attributes (trailing underscore) set on the instance."""

    def __init__(self, **learned):
        vars(self).update(learned)


def test_check_fitted_X_refuses_an_unfitted_estimator_before_looking_at_X():
    with pytest.raises(NotFittedError, match="_Fitted is not fitted yet"):
        check_fitted_X(_Fitted(), "not even an array")


def test_check_fitted_X_checks_the_array_and_the_number_of_features():
    est = _Fitted(n_features_in_=3)
    X = check_fitted_X(est, [[1, 2, 3]])
    assert X.dtype == np.float64 and X.flags.c_contiguous
    np.testing.assert_array_equal(X, [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="X has 2 features, but _Fitted was fitted with 3"):
        check_fitted_X(est, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="X must be 2-D"):
        check_fitted_X(est, np.zeros(3))


def test_check_fitted_X_passes_check_array_options_through():
    est = _Fitted(n_features_in_=2)
    X = [[np.nan, 1.0]]
    with pytest.raises(ValueError, match="NaN or inf"):
        check_fitted_X(est, X)
    assert np.isnan(check_fitted_X(est, X, allow_nan=True)[0, 0])
    assert check_fitted_X(est, np.array([["a", "b"]]), dtype=None).dtype.kind == "U"
    with pytest.raises(ValueError, match="Z contains NaN"):
        check_fitted_X(est, X, name="Z")


@pytest.mark.parametrize("value", [True, False, 2.0, 2.5, "2", None, np.float64(2.0), [2]])
def test_check_int_refuses_non_integers_naming_the_parameter(value):
    with pytest.raises(ValueError, match=r"n_things must be an integer >= 0, got "):
        check_int(value, "n_things", minimum=0)


def test_check_int_bounds_are_inclusive_and_named_in_the_message():
    assert check_int(1, "k") == 1  # default minimum is 1
    with pytest.raises(ValueError, match=r"^k must be an integer >= 1, got 0$"):
        check_int(0, "k")
    assert check_int(2, "n_splits", 2) == 2
    with pytest.raises(ValueError, match=r"^n_splits must be an integer >= 2, got 1$"):
        check_int(1, "n_splits", 2)
    assert check_int(-3, "offset", -3) == -3
    assert check_int(2, "max_bins", 2, 255) == 2 and check_int(255, "max_bins", 2, 255) == 255
    for bad in (1, 256):
        with pytest.raises(ValueError, match=rf"^max_bins must be an integer in \[2, 255\], got {bad}$"):
            check_int(bad, "max_bins", 2, 255)


@pytest.mark.parametrize("value", [np.int8(7), np.int64(7), np.uint16(7), 7])
def test_check_int_accepts_numpy_integers_and_returns_a_python_int(value):
    out = check_int(value, "k")
    assert out == 7 and type(out) is int


def test_check_random_state():
    a = check_random_state(42).random(5)
    b = check_random_state(np.int64(42)).random(5)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, check_random_state(43).random(5))
    g = np.random.default_rng(0)
    assert check_random_state(g) is g
    assert isinstance(check_random_state(None), np.random.Generator)
    for bad in (1.5, "0", np.random.RandomState(0)):
        with pytest.raises(ValueError, match="random_state"):
            check_random_state(bad)


# ---------------------------------------------------------------- missing values


def test_is_missing_float_object_and_other_dtypes():
    np.testing.assert_array_equal(is_missing(np.array([1.0, np.nan])), [False, True])
    obj = np.array(["a", None, np.nan, "", 0, float("nan")], dtype=object)
    np.testing.assert_array_equal(is_missing(obj), [False, True, True, False, False, True])
    np.testing.assert_array_equal(is_missing(np.array([1, 2])), [False, False])
    np.testing.assert_array_equal(is_missing(np.array(["a", "nan"])), [False, False])
    assert is_missing(np.zeros((2, 3))).shape == (2, 3)


# ---------------------------------------------------------------- 1-D values and binary labels


def test_check_1d():
    assert check_1d(["a", "b"], "groups").dtype.kind == "U"
    with pytest.raises(ValueError, match="groups must be 1-D"):
        check_1d([[1, 2]], "groups")
    with pytest.raises(ValueError, match="groups is empty"):
        check_1d([], "groups")
    with pytest.raises(ValueError, match="groups has 2 entries, expected 3"):
        check_1d([1, 2], "groups", n_samples=3)


@pytest.mark.parametrize(
    "y",
    [
        [0, 1, 1],
        [0.0, 1.0, 1.0],
        [False, True, True],
        np.array([0, 1, 1], dtype=object),
        np.array([0, 1, 1], dtype=np.uint8),
    ],
)
def test_check_binary_labels_accepts_zero_one_in_any_numeric_form(y):
    out = check_binary_labels(y)
    assert out.dtype == bool
    np.testing.assert_array_equal(out, [False, True, True])


@pytest.mark.parametrize("y", [[0, 2, 1], [1, 2], [0.0, 0.5], [0.0, np.nan], np.array([0, None, 1], dtype=object)])
def test_check_binary_labels_refuses_other_labels(y):
    with pytest.raises(ValueError, match=r"binary with labels \{0, 1\}"):
        check_binary_labels(y)


def test_check_binary_labels_refuses_strings_even_zero_and_one():
    with pytest.raises(ValueError, match="dtype <U1"):
        check_binary_labels(["0", "1"])
    with pytest.raises(ValueError, match="contains"):
        check_binary_labels(np.array([0, "a", 1.5], dtype=object))  # unsortable mixture still gets a message
    with pytest.raises(ValueError, match="expected 4"):
        check_binary_labels([0, 1], n_samples=4)


# ---------------------------------------------------------------- helpers


def test_safe_divide_gives_nan_where_undefined_never_zero():
    assert safe_divide(1, 4) == 0.25 and isinstance(safe_divide(1, 4), float)
    assert np.isnan(safe_divide(0, 0)) and np.isnan(safe_divide(3, 0))
    out = safe_divide(np.array([1.0, 2.0, 0.0]), np.array([2.0, 0.0, 0.0]))
    np.testing.assert_array_equal(out[:1], [0.5])
    assert np.isnan(out[1:]).all()
    np.testing.assert_array_equal(safe_divide([2.0, 4.0], 2), [1.0, 2.0])  # broadcasting
    assert safe_divide(np.array([[1.0], [2.0]]), np.array([1.0, 2.0])).shape == (2, 2)


def test_to_python():
    for value, expected in [(np.float64(0.5), 0.5), (np.int64(3), 3), (np.bool_(True), True), (np.str_("a"), "a")]:
        out = to_python(value)
        assert out == expected and type(out) is type(expected)
    lst = [1]
    assert to_python(lst) is lst


# ---------------------------------------------------------------- validation through the estimators

RNG = np.random.default_rng(0)
X6 = RNG.normal(size=(6, 2))
Y6 = np.array([0, 1, 0, 1, 1, 0])


@pytest.mark.parametrize("make", [lambda: LogisticRegression(), lambda: StandardScaler()])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_numeric_estimators_refuse_nan_and_inf_at_fit_and_predict(make, bad):
    X = X6.copy()
    X[2, 1] = bad
    with pytest.raises(ValueError, match="NaN or inf"):
        make().fit(X, Y6)
    fitted = make().fit(X6, Y6)
    method = fitted.predict if hasattr(fitted, "predict") else fitted.transform
    with pytest.raises(ValueError, match="NaN or inf"):
        method(X)


@pytest.mark.parametrize(
    "make",
    [lambda: LogisticRegression(), lambda: StandardScaler(), lambda: SimpleImputer(), lambda: OneHotEncoder()],
)
def test_wrong_number_of_features_at_predict_time(make):
    est = make().fit(X6, Y6)
    method = est.predict if hasattr(est, "predict") else est.transform
    with pytest.raises(ValueError, match="X has 3 features, but .* was fitted with 2"):
        method(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="X has 1 features"):
        method(np.zeros((2, 1)))


def test_scaler_inverse_transform_checks_the_number_of_features():
    scaler = StandardScaler().fit(X6)
    with pytest.raises(ValueError, match="X has 1 features"):  # used to broadcast (n, 1) silently to (n, 2)
        scaler.inverse_transform(np.zeros((4, 1)))


def test_estimators_refuse_wrong_shapes_and_length_mismatch():
    with pytest.raises(ValueError, match="must be 2-D"):
        LogisticRegression().fit(X6[:, 0], Y6)
    with pytest.raises(ValueError, match=r"y has 5 entries, expected 6 \(one per row of X\)"):
        LogisticRegression().fit(X6, Y6[:5])
    with pytest.raises(ValueError, match="must be 2-D"):
        StandardScaler().fit(X6[:, 0])
    with pytest.raises(ValueError, match="sample_weight has 5 entries, expected 6"):
        LogisticRegression().fit(X6, Y6, sample_weight=np.ones(5))
    with pytest.raises(ValueError, match=r"is empty \(no rows\)"):
        StandardScaler().fit(np.empty((0, 2)))
    with pytest.raises(ValueError, match="scores must be 1-D"):
        PlattScaling().fit(X6, Y6)


@pytest.mark.parametrize("y", [np.zeros(6), np.array(["a"] * 6)])
def test_classifier_refuses_single_class(y):
    with pytest.raises(ValueError, match="single class"):
        LogisticRegression().fit(X6, y)


@pytest.mark.parametrize("y", [[0, 1, np.nan, 0, 1, 0], [0, 1, np.inf, 0, 1, 0], ["a", "b", None, "a", "b", "a"]])
def test_classifier_refuses_missing_labels_instead_of_making_them_a_class(y):
    with pytest.raises(ValueError, match="missing"):
        LogisticRegression().fit(X6, np.array(y, dtype=object if None in y else float))


def test_calibrator_refuses_non_binary_labels():
    with pytest.raises(ValueError, match="binary"):
        PlattScaling().fit(X6[:, 0], [0, 1, 2, 0, 1, 0])
