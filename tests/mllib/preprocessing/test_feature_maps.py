"""Feature maps of seed 002, lines 378-417: polynomial features (the notes' dimension formulas, scikit-learn's
columns, order and names), RBF bumps (closed form, every training row as a centre, bias), piece-wise features
(knots at training quantiles; hinge / linear / constant bases checked against their definitions)."""

import numpy as np
import pytest
from sklearn.preprocessing import PolynomialFeatures as SkPolynomialFeatures

from mllib.preprocessing import PiecewiseFeatures, PolynomialFeatures, RBFFeatures


@pytest.mark.parametrize("d, quadratic, cubic", [(1, 3, 4), (2, 6, 10), (3, 10, 20), (5, 21, 56)])
def test_polynomial_dimensions_of_the_notes(d, quadratic, cubic):
    X = np.ones((2, d))
    assert PolynomialFeatures(2).fit_transform(X).shape[1] == quadratic == 1 + d + d * (d + 1) // 2
    assert PolynomialFeatures(3).fit_transform(X).shape[1] == cubic


def test_polynomial_quadratic_by_hand():
    out = PolynomialFeatures(2).fit_transform(np.array([[2.0, 3.0]]))
    np.testing.assert_array_equal(out, [[1.0, 2.0, 3.0, 4.0, 6.0, 9.0]])  # 1, x1, x2, x1^2, x1 x2, x2^2
    assert PolynomialFeatures(2).fit(np.ones((1, 2))).get_feature_names_out(["a", "b"]) == [
        "1",
        "a",
        "b",
        "a^2",
        "a b",
        "b^2",
    ]


@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("interaction_only", [False, True])
@pytest.mark.parametrize("include_bias", [False, True])
def test_polynomial_agrees_with_sklearn(degree, interaction_only, include_bias):
    rng = np.random.default_rng(degree)
    X, X_new = rng.normal(size=(30, 4)), rng.normal(size=(10, 4)) * 3
    kw = dict(degree=degree, interaction_only=interaction_only, include_bias=include_bias)
    ours, ref = PolynomialFeatures(**kw).fit(X), SkPolynomialFeatures(**kw).fit(X)
    np.testing.assert_array_equal(ours.powers_, ref.powers_)
    np.testing.assert_allclose(ours.transform(X_new), ref.transform(X_new), rtol=1e-13, atol=1e-15)
    names = ["x0", "x1", "x2", "x3"]
    assert ours.get_feature_names_out(names) == ref.get_feature_names_out(names).tolist()


def test_rbf_closed_form_and_all_training_rows_as_centres():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    rbf = RBFFeatures(n_centers=None, include_bias=True).fit(X)
    out = rbf.transform(np.array([[1.0, 1.0]]))
    # phi_j(x) = exp(-||x - c_j||^2 / 2): squared distances 2, 1, 2 (seed 002, lines 401-417: n + 1 features)
    np.testing.assert_allclose(out, [[1.0, np.exp(-1.0), np.exp(-0.5), np.exp(-1.0)]], rtol=1e-15)
    assert rbf.get_feature_names_out(["a", "b"]) == ["1", "rbf0", "rbf1", "rbf2"]
    wide = RBFFeatures(n_centers=None, width=2.0).fit(X).transform(np.array([[1.0, 1.0]]))
    np.testing.assert_allclose(wide, [[np.exp(-0.25), np.exp(-0.125), np.exp(-0.25)]], rtol=1e-15)
    train = RBFFeatures(n_centers=None).fit_transform(X)
    np.testing.assert_array_equal(np.diag(train), 1.0)  # each training row sits on its own bump


def test_rbf_subset_of_distinct_training_rows_is_reproducible():
    X = np.random.default_rng(0).normal(size=(50, 3))
    a = RBFFeatures(n_centers=10, random_state=1).fit(X)
    b = RBFFeatures(n_centers=10, random_state=1).fit(X)
    np.testing.assert_array_equal(a.centers_, b.centers_)
    assert a.centers_.shape == (10, 3) and len({tuple(c) for c in a.centers_}) == 10
    assert all((X == c).all(axis=1).any() for c in a.centers_)
    assert RBFFeatures(n_centers=100).fit(X).centers_.shape == (50, 3)  # more centres than rows: every row


def test_piecewise_knots_are_interior_training_quantiles():
    x = np.arange(1.0, 10.0)[:, None]  # 1..9: quartiles 3, 5, 7
    pw = PiecewiseFeatures(n_knots=3).fit(x)
    np.testing.assert_array_equal(pw.knots_[0], [3.0, 5.0, 7.0])
    binary = PiecewiseFeatures().fit(np.array([[0.0], [0.0], [0.0], [1.0]]))
    assert binary.knots_[0].size == 0 and binary.transform(np.array([[1.0]])).shape == (1, 1)


def test_piecewise_bases_by_definition():
    x_fit = np.arange(1.0, 10.0)[:, None]
    x = np.array([[0.0], [3.0], [4.0], [7.5], [20.0]])
    hinge = PiecewiseFeatures(kind="hinge").fit(x_fit)
    np.testing.assert_array_equal(hinge.transform(x), np.column_stack([x[:, 0], np.maximum(x - [3.0, 5.0, 7.0], 0)]))
    assert hinge.get_feature_names_out(["t"]) == ["t", "(t-3)+", "(t-5)+", "(t-7)+"]
    const = PiecewiseFeatures(kind="constant").fit(x_fit).transform(x)
    # pieces (-inf, 3], (3, 5], (5, 7], (7, inf): a value at a knot belongs to the piece it closes
    np.testing.assert_array_equal(const, [[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 0, 1]])
    linear = PiecewiseFeatures(kind="linear").fit(x_fit)
    np.testing.assert_array_equal(linear.transform(x), const * x)
    assert linear.get_feature_names_out(["t"])[1] == "t*[3<t<=5]"


def test_piecewise_hinge_spans_continuous_piecewise_linear_functions():
    # a continuous piece-wise linear g with kinks at the knots is exactly linear in the hinge features
    rng = np.random.default_rng(1)
    x = rng.uniform(-3, 3, size=(200, 1))
    pw = PiecewiseFeatures(n_knots=4).fit(x)
    knots = pw.knots_[0]
    g = 0.5 + 2.0 * x[:, 0] + sum(c * np.maximum(x[:, 0] - k, 0) for c, k in zip([-3.0, 1.0, 4.0, -2.5], knots))
    F = np.column_stack([np.ones(200), pw.transform(x)])
    beta, *_ = np.linalg.lstsq(F, g, rcond=None)
    np.testing.assert_allclose(F @ beta, g, atol=1e-10)


def test_multiple_columns_stack_in_column_order():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    pw = PiecewiseFeatures(n_knots=2, kind="constant").fit(X)
    out = pw.transform(X)
    assert out.shape == (40, 6)
    np.testing.assert_array_equal(out[:, :3].sum(axis=1), 1.0)
    np.testing.assert_array_equal(out[:, 3:].sum(axis=1), 1.0)
    np.testing.assert_array_equal(
        out[:, :3], PiecewiseFeatures(n_knots=2, kind="constant").fit(X[:, :1]).transform(X[:, :1])
    )


def test_errors():
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match="degree must be an integer >= 1"):
        PolynomialFeatures(degree=0).fit(X)
    with pytest.raises(ValueError, match="n_centers must be None or an integer >= 1"):
        RBFFeatures(n_centers=0).fit(X)
    with pytest.raises(ValueError, match="width must be a positive number"):
        RBFFeatures(width=0.0).fit(X)
    with pytest.raises(ValueError, match="n_knots must be an integer >= 1"):
        PiecewiseFeatures(n_knots=2.5).fit(X)
    with pytest.raises(ValueError, match="kind must be one of"):
        PiecewiseFeatures(kind="spline").fit(X)
    with pytest.raises(ValueError, match="X has 3 features"):
        PolynomialFeatures().fit(X).transform(np.ones((1, 3)))
