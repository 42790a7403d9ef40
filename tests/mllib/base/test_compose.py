"""Pipeline and ColumnTransformer: composition is exact (equals applying the steps by hand), and LEAKAGE:
everything is learned from the training rows only, and each validation row's transform depends on that row
alone (seed 004, D4:502, 567; catalogue (b) item 13)."""

import numpy as np
import pytest

from mllib.base import ColumnTransformer, Pipeline
from mllib.linear import LogisticRegression
from mllib.preprocessing import OneHotEncoder, SimpleImputer, StandardScaler

N_NUM = 3
CATS = (["red", "green", "blue"], ["s", "m", "l", "xl"])


def _feature_transformer():
    """As pipeline/core/build.py builds it: numeric first (median + indicators, scale), then categorical."""
    return ColumnTransformer(
        [
            (
                "numeric",
                Pipeline([("impute", SimpleImputer("median", add_indicator=True)), ("scale", StandardScaler())]),
                list(range(N_NUM)),
            ),
            (
                "categorical",
                Pipeline([("impute", SimpleImputer("most_frequent")), ("encode", OneHotEncoder())]),
                [N_NUM, N_NUM + 1],
            ),
        ]
    )


def _make_rows(rng, n, missing=0.15):
    num = rng.normal(size=(n, N_NUM)) * [1.0, 10.0, 0.1] + [0.0, 50.0, -3.0]
    num[rng.random(num.shape) < missing] = np.nan
    cat = np.column_stack([rng.choice(c, size=n) for c in CATS]).astype(object)
    holes = rng.random(cat.shape) < missing
    cat[holes] = np.where(rng.random(holes.sum()) < 0.5, None, np.nan)
    X = np.empty((n, N_NUM + 2), dtype=object)
    X[:, :N_NUM] = num
    X[:, N_NUM:] = cat
    return X


def _numeric(X):
    return X[:, :N_NUM].astype(float)


@pytest.fixture
def split():
    rng = np.random.default_rng(2024)
    X_train = _make_rows(rng, 80)
    X_val = _make_rows(rng, 30)
    # make sure the train rows have a missing value in every numeric column (so every indicator exists)
    X_train[0, :N_NUM] = np.nan
    return X_train, X_val


# ---------------------------------------------------------------- composition is exact


def test_pipeline_equals_applying_its_steps_by_hand():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=40) > 0).astype(int)
    pipe = Pipeline([("impute", SimpleImputer()), ("scale", StandardScaler()), ("model", LogisticRegression(lam=0.3))])
    pipe.fit(X, y)
    imp = SimpleImputer().fit(X)
    scaler = StandardScaler().fit(imp.transform(X))
    model = LogisticRegression(lam=0.3).fit(scaler.transform(imp.transform(X)), y)
    Z = scaler.transform(imp.transform(X))
    np.testing.assert_array_equal(pipe.predict_proba(X), model.predict_proba(Z))
    np.testing.assert_array_equal(pipe.decision_function(X), model.decision_function(Z))
    np.testing.assert_array_equal(pipe.predict(X), model.predict(Z))
    np.testing.assert_array_equal(pipe.classes_, [0, 1])
    assert pipe.n_features_in_ == 3
    assert pipe.get_feature_names_out(["a", "b", "c"]) == ["a", "b", "c"]


def test_pipeline_passes_sample_weight_to_the_final_step_only():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] + rng.normal(size=30) > 0).astype(int)
    w = rng.integers(1, 4, size=30)
    pipe = Pipeline([("scale", StandardScaler()), ("model", LogisticRegression())]).fit(X, y, sample_weight=w)
    Z = StandardScaler().fit(X).transform(X)  # the scaler is NOT weighted
    ref = LogisticRegression().fit(Z, y, sample_weight=w)
    np.testing.assert_allclose(pipe.steps[-1][1].coef_, ref.coef_, rtol=1e-12)


def test_pipeline_refuses_empty_or_duplicate_step_names():
    X, y = np.zeros((4, 1)), [0, 1, 0, 1]
    with pytest.raises(ValueError, match="uniquely named"):
        Pipeline([]).fit(X, y)
    with pytest.raises(ValueError, match="uniquely named"):
        Pipeline([("a", StandardScaler()), ("a", LogisticRegression())]).fit(X, y)


def test_column_transformer_concatenates_in_listed_order_and_drops_unlisted_columns():
    X = np.array([[1.0, 10.0, 7.0], [3.0, 30.0, 7.0], [5.0, 20.0, 7.0]])
    ct = ColumnTransformer(
        [
            ("b", StandardScaler(with_std=False), [1]),
            ("a", StandardScaler(with_std=False), [0]),
            ("none", StandardScaler(), []),
        ]
    )
    Z = ct.fit_transform(X)
    np.testing.assert_array_equal(Z, [[-10.0, -2.0], [10.0, 0.0], [0.0, 2.0]])
    assert Z.dtype == np.float64 and ct.n_features_in_ == 3
    assert [name for name, _, _ in ct.transformers_] == ["b", "a"]  # an empty column list is dropped
    assert ct.get_feature_names_out(["x0", "x1", "x2"]) == ["x1", "x0"]


def test_column_transformer_feature_names_and_shape_for_the_pipeline_transformer(split):
    X_train, _ = split
    ct = _feature_transformer().fit(X_train)
    names = ct.get_feature_names_out(["n0", "n1", "n2", "colour", "size"])
    expected = (
        ["n0", "n1", "n2", "n0_missing", "n1_missing", "n2_missing"]
        + [f"colour={c}" for c in sorted(CATS[0])]
        + [f"size={s}" for s in sorted(CATS[1])]
    )
    assert names == expected
    assert ct.transform(X_train).shape == (80, len(expected))


def test_column_transformer_checks_columns():
    X = np.zeros((3, 2))
    with pytest.raises(
        ValueError, match=r"transformer .s.'s columns must be column indices in \[0, 2\) of X, got \[0, 2\]"
    ):
        ColumnTransformer([("s", StandardScaler(), [0, 2])]).fit(X)
    with pytest.raises(ValueError, match="must be column indices"):
        ColumnTransformer([("s", StandardScaler(), [-1])]).fit(X)
    ct = ColumnTransformer([("s", StandardScaler(), [0])]).fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but ColumnTransformer was fitted with 2"):
        ct.transform(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="must be 2-D"):
        ct.transform(np.zeros(3))


# ---------------------------------------------------------------- LEAKAGE


def test_fitted_statistics_come_from_the_training_rows_only(split):
    X_train, X_val = split
    X_val = X_val.copy()
    X_val[0, :N_NUM] = [1e9, -1e9, 1e9]  # extreme outliers that would move any statistic they touched
    X_val[1, N_NUM:] = ["purple", "xxl"]  # categories that exist only outside the training rows
    ct = _feature_transformer().fit(X_train)
    num_pipe, cat_pipe = ct.transformers_[0][1], ct.transformers_[1][1]
    imputer, scaler = num_pipe.steps[0][1], num_pipe.steps[1][1]

    train_num = _numeric(X_train)
    median = np.nanmedian(train_num, axis=0)
    np.testing.assert_array_equal(imputer.statistics_, median)
    filled = np.where(np.isnan(train_num), median, train_num)
    expanded = np.hstack([filled, np.isnan(train_num).astype(float)])
    np.testing.assert_allclose(scaler.mean_, expanded.mean(axis=0), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(scaler.var_, expanded.var(axis=0), rtol=1e-12)

    # the same statistics on train + validation would be different (so the test can tell them apart)
    all_num = _numeric(np.vstack([X_train, X_val]))
    assert not np.allclose(imputer.statistics_, np.nanmedian(all_num, axis=0))
    assert not np.allclose(scaler.mean_[:N_NUM], np.nanmean(all_num, axis=0))

    # categories: exactly the training categories, the validation-only ones are absent
    encoder = cat_pipe.steps[1][1]
    for j, cats in enumerate(encoder.categories_):
        observed = sorted({v for v in X_train[:, N_NUM + j] if isinstance(v, str)})
        assert cats.tolist() == observed
    assert "purple" not in encoder.categories_[0].tolist() and "xxl" not in encoder.categories_[1].tolist()
    # categorical imputation statistic: the training mode
    for j in range(2):
        col = [v for v in X_train[:, N_NUM + j] if isinstance(v, str)]
        values, counts = np.unique(col, return_counts=True)
        assert cat_pipe.steps[0][1].statistics_[j] == values[np.argmax(counts)]


def test_validation_rows_are_transformed_independently_of_other_validation_rows(split):
    X_train, X_val = split
    ct = _feature_transformer().fit(X_train)
    reference = ct.transform(X_val)
    assert np.isfinite(reference).all()

    rng = np.random.default_rng(5)
    keep = np.arange(15)  # rows 0..14 stay as they are; rows 15..29 are rewritten
    for trial in range(4):
        changed = X_val.copy()
        rows = np.arange(15, 30)
        changed[rows, :N_NUM] = rng.choice([1e12, -1e12, np.nan, 0.0, 3.5], size=(rows.size, N_NUM))
        changed[rows, N_NUM] = rng.choice(["red", "purple", None, np.nan, "blue"], size=rows.size)
        changed[rows, N_NUM + 1] = rng.choice(["xxl", "s", None, "tiny"], size=rows.size)
        out = ct.transform(changed)
        np.testing.assert_array_equal(out[keep], reference[keep])
        # and a rewritten row is encoded from training statistics only, e.g. an unseen colour -> all zeros
        purple = np.flatnonzero(changed[:, N_NUM] == "purple")
        colour_block = slice(2 * N_NUM, 2 * N_NUM + len(CATS[0]))
        assert (out[purple, colour_block] == 0).all()

    # transforming one row at a time gives the same rows as transforming the batch
    one_by_one = np.vstack([ct.transform(X_val[i : i + 1]) for i in range(X_val.shape[0])])
    np.testing.assert_array_equal(one_by_one, reference)
    # and a batch containing only the kept rows gives the same rows too
    np.testing.assert_array_equal(ct.transform(X_val[keep]), reference[keep])


def test_refitting_on_train_plus_outliers_would_change_the_transform(split):
    """Sanity check that the leakage test above has teeth: statistics fitted with the outlier rows included
    transform the kept validation rows differently."""
    X_train, X_val = split
    polluted = X_val.copy()
    polluted[15:, :N_NUM] = 1e9
    honest = _feature_transformer().fit(X_train).transform(X_val[:15])
    leaky = _feature_transformer().fit(np.vstack([X_train, polluted])).transform(X_val[:15])
    assert not np.allclose(honest, leaky)
