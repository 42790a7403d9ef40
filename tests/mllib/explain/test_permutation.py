"""permutation_importance: exact zeros for ignored features, the sign convention, seeding, and what is permuted."""

import numpy as np
import pytest

from mllib.explain import permutation_importance


class _Scorer:
    """Local stand-in for a mllib.metrics scorer: .score(y_true, values) and .greater_is_better."""

    def __init__(self, fn, greater_is_better):
        self.fn = fn
        self.greater_is_better = greater_is_better

    def score(self, y_true, values):
        return self.fn(np.asarray(y_true), np.asarray(values))


MSE = _Scorer(lambda y, v: float(np.mean((y - v) ** 2)), greater_is_better=False)
NEG_MSE = _Scorer(lambda y, v: -float(np.mean((y - v) ** 2)), greater_is_better=True)
ACCURACY = _Scorer(lambda y, v: float(np.mean(y == v)), greater_is_better=True)


@pytest.fixture
def linear_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    return X, 3 * X[:, 0]


def test_ignored_feature_has_exactly_zero_importance_for_every_seed(linear_data):
    X, y = linear_data
    for seed in range(5):
        result = permutation_importance(lambda Z: 3 * Z[:, 0], X, y, MSE, n_repeats=4, random_state=seed)
        assert np.all(result["importances"][1:] == 0.0)
        assert np.all(result["importances"][0] > 0)


def test_f_equals_3x0_oracle_and_sign_convention(linear_data):
    X, y = linear_data
    loss = permutation_importance(lambda Z: 3 * Z[:, 0], X, y, MSE, n_repeats=200, random_state=1)
    gain = permutation_importance(lambda Z: 3 * Z[:, 0], X, y, NEG_MSE, n_repeats=200, random_state=1)
    assert loss["baseline_score"] == 0.0 and loss["greater_is_better"] is False
    assert loss["importances"].shape == (3, 200)
    # the drop is positive for both a loss and a gain, and identical in size
    np.testing.assert_allclose(loss["importances"], gain["importances"], rtol=0, atol=0)
    # a uniformly random permutation gives E[mean (x - x_perm)^2] = 2 var(x) (population variance), times 3^2
    assert loss["importances_mean"][0] == pytest.approx(18 * X[:, 0].var(), rel=0.05)
    assert loss["importances_mean"][1] == loss["importances_mean"][2] == 0.0
    np.testing.assert_allclose(loss["importances_std"], loss["importances"].std(axis=1, ddof=1))


def test_interval_is_the_student_t_interval_computed_by_hand():
    # one column, importances = what a predict that ignores the permutation order returns on each call
    drops = iter([0.0, 0.1, 0.3, 0.2, 0.4, 0.5])  # baseline loss 0, then five permuted losses
    X = np.arange(8.0).reshape(4, 2)
    result = permutation_importance(
        lambda Z: None,
        X,
        np.zeros(4),
        _Scorer(lambda y, v: next(drops), False),
        n_repeats=5,
        random_state=0,
        columns=[0],
    )
    repeats = [0.1, 0.3, 0.2, 0.4, 0.5]
    mean = 0.3
    s = np.sqrt(sum((r - mean) ** 2 for r in repeats) / 4)  # ddof = 1: sqrt(0.1 / 4)
    half = 2.7764451051977934 * s / np.sqrt(5)  # t_{0.975, 4} (tables: 2.776)
    np.testing.assert_allclose(result["importances"][0], repeats)
    assert result["importances_std"][0] == pytest.approx(np.sqrt(0.025), rel=1e-12)
    np.testing.assert_allclose(result["importances_interval"][0], [mean - half, mean + half], rtol=1e-12)
    assert result["confidence_level"] == 0.95


def test_one_repeat_has_no_interval_and_levels_nest(linear_data):
    X, y = linear_data
    one = permutation_importance(lambda Z: 3 * Z[:, 0], X, y, MSE, n_repeats=1, random_state=0)
    assert np.isnan(one["importances_interval"]).all() and np.isnan(one["importances_std"]).all()
    narrow = permutation_importance(lambda Z: 3 * Z[:, 0], X, y, MSE, n_repeats=4, random_state=0, confidence_level=0.5)
    wide = permutation_importance(lambda Z: 3 * Z[:, 0], X, y, MSE, n_repeats=4, random_state=0, confidence_level=0.99)
    assert wide["importances_interval"][0, 0] < narrow["importances_interval"][0, 0] < narrow["importances_mean"][0]
    assert wide["importances_interval"][0, 1] > narrow["importances_interval"][0, 1] > narrow["importances_mean"][0]


def test_same_seed_identical_and_different_seed_different(linear_data):
    X, y = linear_data
    predict = lambda Z: Z @ [3.0, 1.0, 0.5]  # noqa: E731
    first = permutation_importance(predict, X, y, MSE, random_state=42)
    second = permutation_importance(predict, X, y, MSE, random_state=42)
    other = permutation_importance(predict, X, y, MSE, random_state=43)
    for key in ("importances", "importances_mean", "importances_std"):
        np.testing.assert_array_equal(first[key], second[key])
    assert not np.array_equal(first["importances"], other["importances"])
    gen = permutation_importance(predict, X, y, MSE, random_state=np.random.default_rng(42))
    np.testing.assert_array_equal(gen["importances"], first["importances"])


def test_result_for_a_column_does_not_depend_on_the_other_columns_or_their_order(linear_data):
    X, y = linear_data
    predict = lambda Z: Z @ [3.0, 1.0, 0.5]  # noqa: E731
    full = permutation_importance(predict, X, y, MSE, random_state=7)
    reversed_ = permutation_importance(predict, X, y, MSE, random_state=7, columns=[2, 1, 0])
    alone = permutation_importance(predict, X, y, MSE, random_state=7, columns=[1])
    np.testing.assert_array_equal(reversed_["importances"], full["importances"][::-1])
    np.testing.assert_array_equal(alone["importances"][0], full["importances"][1])
    assert alone["columns"] == [1]


def test_permutation_moves_whole_rows_of_one_column_and_keeps_its_values():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 3))
    seen = []

    def spy(Z):
        seen.append(Z.copy())  # permutation_importance reuses its working array
        return Z[:, 0]

    permutation_importance(spy, X, X[:, 0], MSE, n_repeats=3, random_state=0)
    assert len(seen) == 1 + 3 * 3
    np.testing.assert_array_equal(seen[0], X)  # the baseline sees X itself
    for k, Z in enumerate(seen[1:]):
        j = k // 3
        np.testing.assert_array_equal(np.sort(Z[:, j]), np.sort(X[:, j]))
        others = [c for c in range(3) if c != j]
        np.testing.assert_array_equal(Z[:, others], X[:, others])
    assert any(not np.array_equal(Z[:, 0], X[:, 0]) for Z in seen[1:4])


def test_object_columns_with_strings_survive():
    rng = np.random.default_rng(5)
    colour = rng.choice(np.array(["red", "green", "blue"], dtype=object), size=120)
    X = np.empty((120, 2), dtype=object)
    X[:, 0] = colour
    X[:, 1] = rng.normal(size=120)
    y = (colour == "red").astype(int)

    def predict(Z):
        assert Z.dtype == object and set(Z[:, 0]) <= {"red", "green", "blue"}
        assert all(isinstance(v, float) for v in Z[:, 1])
        return (Z[:, 0] == "red").astype(int)

    result = permutation_importance(predict, X, y, ACCURACY, n_repeats=5, random_state=0)
    assert result["baseline_score"] == 1.0
    assert np.all(result["importances"][0] > 0) and np.all(result["importances"][1] == 0)
    assert X[0, 0] == colour[0]  # the caller's X is untouched


def test_joint_permutation_of_a_column_group_keeps_their_relation():
    # x1 is a copy of x0 and the model uses x0 - x1: permuting one breaks the rows, permuting both together does not
    rng = np.random.default_rng(9)
    x0 = rng.normal(size=100)
    X = np.column_stack([x0, x0, rng.normal(size=100)])
    predict = lambda Z: Z[:, 0] - Z[:, 1] + Z[:, 2]  # noqa: E731
    result = permutation_importance(predict, X, X[:, 2], MSE, n_repeats=3, random_state=0, columns=[0, (0, 1), [2]])
    assert result["columns"] == [0, (0, 1), (2,)]
    assert np.all(result["importances"][0] > 0)
    assert np.all(result["importances"][1] == 0)
    assert np.all(result["importances"][2] > 0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"predict": "not callable"}, "callable"),
        ({"scorer": object()}, "greater_is_better"),
        ({"X": np.zeros(10)}, "2-D"),
        ({"y": np.zeros(9)}, "y has 9 entries, expected 10"),
        ({"n_repeats": 0}, "n_repeats"),
        ({"confidence_level": 1.0}, "confidence_level"),
        ({"columns": [5]}, r"column indices in \[0, 2\)"),
        ({"columns": [()]}, "at least one column in each entry"),
        ({"columns": []}, "nothing to permute"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_invalid_inputs_raise(kwargs, match):
    args = {"predict": lambda Z: Z[:, 0], "X": np.zeros((10, 2)), "y": np.zeros(10), "scorer": MSE}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        permutation_importance(**args)


def test_works_with_a_mllib_metrics_scorer():
    metrics = pytest.importorskip("mllib.metrics")
    if not hasattr(metrics, "get_scorer"):
        pytest.skip("mllib.metrics has no get_scorer yet")
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(int)
    result = permutation_importance(lambda Z: Z[:, 0], X, y, metrics.get_scorer("roc_auc"), random_state=0)
    assert result["greater_is_better"] is True
    assert np.all(result["importances"][0] > 0.2) and np.all(result["importances"][1] == 0.0)


@pytest.mark.parametrize("columnwise", [True, False])
def test_features_transformed_once_give_the_importances_of_transforming_every_copy(columnwise):
    # the oracle: the same model and features as one predict on raw rows; equal to the last bit
    from mllib.base import ColumnTransformer, MixedMatrix, Pipeline
    from mllib.decomposition import PCA
    from mllib.preprocessing import OneHotEncoder, SimpleImputer, StandardScaler

    rng = np.random.default_rng(4)
    n = 400
    numbers = rng.normal(size=(n, 3))
    numbers[rng.random(n) < 0.1, 1] = np.nan
    labels = rng.choice(np.array(["a", "b", "c"], dtype=object), size=(n, 1))
    X = MixedMatrix(numbers, labels)
    numeric = Pipeline([("impute", SimpleImputer(add_indicator=True)), ("scale", StandardScaler())])
    features = ColumnTransformer([("numeric", numeric, [0, 1, 2]), ("categorical", OneHotEncoder(), [3])])
    if not columnwise:
        features = Pipeline([("columns", features), ("pca", PCA(n_components=4))])
    Z = features.fit(X).transform(X)
    w = rng.normal(size=Z.shape[1])
    y = (Z @ w + 0.5 * rng.normal(size=n) > 0).astype(int)
    assert (features.column_outputs() is not None) == columnwise

    def model(Z):
        return (Z @ w > 0).astype(int)

    raw = permutation_importance(lambda X: model(features.transform(X)), X, y, ACCURACY, random_state=7)
    once = permutation_importance(model, X, y, ACCURACY, random_state=7, features=features)
    assert np.array_equal(raw["importances"], once["importances"]) and raw["baseline_score"] == once["baseline_score"]
    assert np.count_nonzero(raw["importances"]) > 10  # the equality compares importances that are not all zero
