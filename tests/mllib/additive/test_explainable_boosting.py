"""Explainable boosting machines: recovery of known additive functions (a pure-noise feature's shape near 0),
FAST finding the interacting pair, and the invariants: the terms add up to the prediction, the tree protocol reads
the same model, TreeSHAP is additive, every term is centred, save/load, determinism, sample weights, early
stopping and the max_rounds warning."""

import numpy as np
import pytest
from scipy.special import expit
from tree_protocol import ensemble_output

from mllib import io
from mllib.additive import ExplainableBoostingClassifier, ExplainableBoostingRegressor
from mllib.base import clone, record_convergence
from mllib.explain import tree_shap


def additive_data(n=3000, seed=0):
    """x0, x1, x2 uniform on [-2, 2]; f0 = sin(2 x0), f1 = x1^2 (centred), x2 pure noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 3))
    return X, np.sin(2 * X[:, 0]), X[:, 1] ** 2 - 4 / 3, rng


def shape_at(model, term, x):
    """The fitted main effect of `term` at the values x (its bins' values)."""
    shape = model.shape_functions()[term]
    return shape["values"][np.searchsorted(shape["edges"][0], x, side="left")]


@pytest.fixture(scope="module")
def regression_fit():
    X, f0, f1, rng = additive_data()
    y = f0 + f1 + 0.3 * rng.normal(size=X.shape[0])
    return ExplainableBoostingRegressor(interactions=0).fit(X, y), X, f0, f1


def test_regression_recovers_the_shapes_and_ignores_noise(regression_fit):
    model, X, f0, f1 = regression_fit
    grid = np.linspace(-1.9, 1.9, 200)
    for term, truth in ((0, np.sin(2 * grid)), (1, grid**2 - 4 / 3)):
        fitted = shape_at(model, term, grid)
        assert np.corrcoef(fitted, truth)[0, 1] > 0.98
        assert np.sqrt(np.mean((fitted - fitted.mean() - (truth - truth.mean())) ** 2)) < 0.12
    # the noise term: a few hundredths on average (a bin's mean of ~12 noise draws of sd 0.3 is ~0.09 at most),
    # where the signal terms average ~0.7 in absolute value
    assert model.term_importances_[2] < 0.05 < 0.5 < min(model.term_importances_[:2])


def test_logistic_recovery():
    X, f0, f1, rng = additive_data(n=6000, seed=1)
    y = (rng.random(X.shape[0]) < expit(2 * (f0 + f1))).astype(int)
    model = ExplainableBoostingClassifier(interactions=0).fit(X, y)
    grid = np.linspace(-1.9, 1.9, 200)
    for term, truth in ((0, 2 * np.sin(2 * grid)), (1, 2 * (grid**2 - 4 / 3))):
        assert np.corrcoef(shape_at(model, term, grid), truth)[0, 1] > 0.95
    assert model.term_importances_[2] < 0.15 * min(model.term_importances_[:2])


def test_fast_ranks_the_interacting_pair_first_and_the_pair_helps():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(4000, 4))
    y = X[:, 0] * X[:, 1] * 3 + X[:, 2] + 0.2 * rng.normal(size=4000)
    train, test = slice(0, 3000), slice(3000, None)
    with_pair = ExplainableBoostingRegressor(interactions=2).fit(X[train], y[train])
    mains = ExplainableBoostingRegressor(interactions=0).fit(X[train], y[train])
    assert with_pair.term_features_[4] == (0, 1) and len(with_pair.term_features_) == 6
    assert with_pair.interaction_strengths_[0] > 5 * with_pair.interaction_strengths_[1]

    def r2(model):
        residual = y[test] - model.predict(X[test])
        return 1 - residual.var() / y[test].var()

    assert r2(mains) < 0.5 < 0.85 < r2(with_pair)


def test_on_many_columns_fast_ranks_the_pairs_of_the_largest_main_effects():
    """Beyond max_interaction_features columns FAST ranks only the pairs among the columns of largest main effects:
    the interacting pair (two of the columns with main effects) is found among 40 noise columns by a screen of 4;
    with the screen wider than the file the ranking is FAST's over every pair, the same pair first."""
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, size=(2000, 42))
    y = X[:, 10] + X[:, 30] + 3 * X[:, 10] * X[:, 30] + 0.8 * X[:, 0] + 0.2 * rng.normal(size=2000)
    screened = ExplainableBoostingRegressor(interactions=3, max_interaction_features=4, outer_bags=2).fit(X, y)
    every_pair = ExplainableBoostingRegressor(interactions=3, outer_bags=2).fit(X, y)
    assert screened.term_features_[42] == every_pair.term_features_[42] == (10, 30)
    importance = screened.term_importances_[:42]
    kept = set(np.argsort(importance)[::-1][:4].tolist())
    assert {10, 30, 0} <= kept and all(a in kept and b in kept for a, b in screened.term_features_[42:])
    assert not all(a in kept and b in kept for a, b in every_pair.term_features_[42:])


@pytest.fixture(scope="module", params=["binary", "three_classes", "regression"])
def fitted(request):
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=600), rng.integers(0, 2, 600), np.round(rng.normal(size=600), 1)])
    signal = X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 2] ** 2
    w = rng.uniform(0.5, 2.0, 600)
    if request.param == "binary":
        model = ExplainableBoostingClassifier(interactions=2, outer_bags=3)
        y = (rng.random(600) < expit(signal)).astype(int)
    elif request.param == "three_classes":
        model = ExplainableBoostingClassifier(interactions=2, outer_bags=3)
        y = np.array(["a", "b", "c"])[np.digitize(signal + 0.5 * rng.normal(size=600), [-0.5, 0.5])]
    else:
        model = ExplainableBoostingRegressor(interactions=2, outer_bags=3)
        y = signal + 0.3 * rng.normal(size=600)
    return model.fit(X, y, sample_weight=w), X, y, w


def raw_prediction(model, X):
    return model.predict(X) if isinstance(model, ExplainableBoostingRegressor) else model.decision_function(X)


def test_the_terms_add_up_to_the_prediction(fitted):
    model, X, _, _ = fitted
    contributions = model.term_contributions(X)
    assert contributions.shape[:2] == (X.shape[0], len(model.term_features_)) == (600, 5)
    np.testing.assert_allclose(model.intercept_ + contributions.sum(axis=1), raw_prediction(model, X), atol=1e-12)
    if hasattr(model, "predict_proba"):
        np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0, atol=1e-12)


def test_every_term_is_centred_on_the_training_rows(fitted):
    model, X, _, w = fitted
    means = np.tensordot(w, model.term_contributions(X), axes=(0, 0)) / w.sum()
    np.testing.assert_allclose(means, 0.0, atol=1e-10)
    # the intercept is then the weighted mean raw prediction
    np.testing.assert_allclose(model.intercept_, np.average(raw_prediction(model, X), axis=0, weights=w), atol=1e-10)


def test_the_tree_protocol_reads_the_same_model_and_treeshap_is_exact(fitted):
    model, X, _, _ = fitted
    ensemble = model.tree_ensemble()
    raw = raw_prediction(model, X).reshape(X.shape[0], -1)
    rows = np.concatenate([X[:50], X[:50] + 0.37, [[-9.0, 1.0, 9.0], [9.0, 0.0, -9.0]]])  # unseen values too
    np.testing.assert_allclose(ensemble_output(ensemble, X), raw, atol=1e-12)
    np.testing.assert_allclose(
        ensemble_output(ensemble, rows), raw_prediction(model, rows).reshape(rows.shape[0], -1), atol=1e-12
    )
    shap = tree_shap(model, rows)
    assert shap["additivity_error"].max() < 1e-10
    np.testing.assert_allclose(shap["expected_value"], np.atleast_1d(model.intercept_), atol=1e-10)
    # a main effect's Shapley value is its own term's value (centred): feature 0 is in no pair here
    main = model.term_contributions(rows).reshape(rows.shape[0], len(model.term_features_), -1)[:, 0]
    if (0,) in model.term_features_ and all(0 not in f for f in model.term_features_[3:]):
        np.testing.assert_allclose(shap["values"][:, 0], main, atol=1e-10)
    expected = {True: "raw", False: "log_odds" if np.unique(fitted[2]).size == 2 else "logits"}
    assert ensemble["output"] == expected[isinstance(model, ExplainableBoostingRegressor)]


def test_shape_functions_are_plain_arrays_in_the_units_of_x(fitted):
    model, X, _, _ = fitted
    shapes = model.shape_functions()
    assert [s["features"] for s in shapes] == model.term_features_
    for shape in shapes:
        n_bins = tuple(e.size + 1 for e in shape["edges"])
        assert shape["weight"].shape == n_bins and shape["values"].shape[: len(n_bins)] == n_bins
        assert shape["std"].shape == shape["values"].shape and (shape["std"] >= 0).all()
    np.testing.assert_array_equal(shapes[1]["edges"][0], [0.5])  # a 0/1 column: two bins, cut midway
    np.testing.assert_allclose(shapes[1]["weight"].sum(), fitted[3].sum())


def test_the_bags_in_threads_give_the_same_model(fitted):
    """n_jobs boosts the bags side by side (the kernels release the GIL); each bag's arithmetic is unchanged and the
    bags are gathered in order, so every fitted array is the same as one by one."""
    model, X, y, w = fitted
    threaded = clone(model).set_params(n_jobs=3).fit(X, y, sample_weight=w)
    for name in ("term_scores_", "term_stds_", "intercept_", "n_rounds_", "interaction_strengths_"):
        assert np.array_equal(getattr(threaded, name), getattr(model, name)), name
    assert threaded.term_features_ == model.term_features_


def test_save_load_round_trip(fitted, tmp_path):
    model, X, _, _ = fitted
    io.save(model, tmp_path / "ebm")
    loaded = io.load(tmp_path / "ebm")
    np.testing.assert_array_equal(raw_prediction(loaded, X), raw_prediction(model, X))
    assert loaded.term_features_ == model.term_features_


def test_same_seed_same_arrays_other_seed_other_arrays():
    X, f0, f1, rng = additive_data(n=800, seed=4)
    y = (rng.random(800) < expit(f0 + f1)).astype(int)

    def fit(seed):
        return ExplainableBoostingClassifier(interactions=1, outer_bags=2, random_state=seed).fit(X, y)

    a, b, c = fit(0), fit(0), fit(1)
    for name in ("term_scores_", "term_stds_", "term_weights_", "bin_edges_", "interaction_strengths_", "n_rounds_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.intercept_ == b.intercept_
    assert not np.array_equal(a.term_scores_, c.term_scores_)


def test_a_weight_of_two_is_a_duplicated_row_without_a_validation_split():
    # validation_fraction=0: no random split, so the only difference is the rows; few distinct values keep the bins
    rng = np.random.default_rng(5)
    X = rng.integers(0, 12, size=(300, 3)).astype(float)
    y = (rng.random(300) < expit(X[:, 0] / 4 - X[:, 1] / 6)).astype(int)
    twice = rng.random(300) < 0.3
    rows = np.concatenate([np.arange(300), np.flatnonzero(twice)])
    settings = dict(validation_fraction=0.0, outer_bags=1, max_rounds=30, min_samples_leaf=1, interactions=2)
    weighted = ExplainableBoostingClassifier(**settings).fit(X, y, sample_weight=np.where(twice, 2.0, 1.0))
    duplicated = ExplainableBoostingClassifier(**settings).fit(X[rows], y[rows])
    assert weighted.term_features_ == duplicated.term_features_
    np.testing.assert_allclose(weighted.term_scores_, duplicated.term_scores_, atol=1e-10)
    np.testing.assert_allclose(weighted.decision_function(X), duplicated.decision_function(X), atol=1e-10)


def test_early_stopping_stops_on_noise_and_max_rounds_warns():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(1000, 4))
    noise = rng.normal(size=1000)
    with record_convergence() as stopped:
        model = ExplainableBoostingRegressor(max_rounds=500, interactions=0).fit(X, noise)
    assert not stopped
    assert model.n_rounds_[:, 0].max() < 50  # of the 500 allowed (the best round kept; 20 more were tried)
    assert np.abs(model.predict(X)).max() < 0.3
    with record_convergence() as stopped:
        ExplainableBoostingRegressor(max_rounds=3, interactions=0, outer_bags=2).fit(X, X[:, 0] + noise)
    assert len(stopped) == 1 and "max_rounds=3" in stopped[0] and "2 of 2 bags (main effects)" in stopped[0]


def test_early_stopping_holds_out_whole_groups():
    """Groups of identical rows with a label drawn per group (pure noise): a row-level hold-out validates on copies of
    training rows, so it keeps improving and the bags boost longer; with the groups given, each bag's hold-out is whole
    groups and early stopping ends them sooner. Too few groups to hold one out: the bags run to max_rounds and warn."""
    from mllib.additive import ExplainableBoostingClassifier
    from mllib.base import ConvergenceWarning

    rng = np.random.default_rng(3)
    n_groups, size = 150, 4
    X = np.repeat(rng.normal(size=(n_groups, 3)), size, axis=0)
    y = np.repeat(rng.integers(0, 2, n_groups), size)
    groups = np.repeat(np.arange(n_groups), size)
    settings = dict(interactions=0, min_samples_leaf=2, max_rounds=300, learning_rate=0.3)
    by_row = ExplainableBoostingClassifier(**settings).fit(X, y)
    by_group = ExplainableBoostingClassifier(**settings).fit(X, y, groups=groups)
    assert by_group.n_rounds_[:, 0].mean() < by_row.n_rounds_[:, 0].mean()
    with pytest.warns(ConvergenceWarning, match="stopped at max_rounds=5"):
        ExplainableBoostingClassifier(interactions=0, max_rounds=5, min_samples_leaf=1).fit(
            rng.normal(size=(5, 3)), np.array([0, 1, 0, 1, 1]), groups=np.arange(5)
        )


def test_term_bands_read_each_rows_bin_of_the_bagging_band():
    """term_bands(X)[:, t] is the bagging band (term_stds_) of the bin each row falls in, the bin read from
    shape_functions' edges (bin k holds edges[k - 1] < x <= edges[k]), for every main effect."""
    from mllib.additive import ExplainableBoostingRegressor

    rng = np.random.default_rng(5)
    X = rng.normal(size=(600, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.3 * rng.normal(size=600)
    model = ExplainableBoostingRegressor(interactions=0, outer_bags=3).fit(X, y)
    bands = model.term_bands(X)
    assert bands.shape == model.term_contributions(X).shape and (bands >= 0).all() and bands.max() > 0
    for t, shape in enumerate(model.shape_functions()):
        (j,), (edges,) = shape["features"], shape["edges"]
        np.testing.assert_array_equal(bands[:, t], shape["std"][np.searchsorted(edges, X[:, j], side="left")])


def test_a_bag_whose_rows_hold_one_class_fits_without_dividing_by_zero():
    """Whole groups held out of a few rows can leave a bag's fitting part with one class: its probabilities are 0 or
    1 in float64 and the hessian sums to exactly 0, where the compiled kernels divided by zero (a 5-row fold of a
    time-ordered panel in the pipeline); such a side has no step, and the fit goes on."""
    import warnings

    from mllib.additive import ExplainableBoostingClassifier

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(3, 4)), np.array([0, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the bags may run to max_rounds (said by a ConvergenceWarning)
        model = ExplainableBoostingClassifier(random_state=0).fit(X, y, groups=np.arange(3))
    assert np.isfinite(model.predict_proba(X)).all()


def test_bags_keep_a_class_of_one_row_in_their_fitting_rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(34, 3))
    y = np.array([0] * 15 + [1] * 12 + [2] + [3] * 6)
    model = ExplainableBoostingClassifier(interactions=0, outer_bags=2, max_rounds=50).fit(X, y)
    assert model.predict_proba(X).shape == (34, 4)


def _bin_rows(column: np.ndarray, max_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(each bin's row count, each row's bin) of main_bins' cut of one column."""
    from mllib.additive.bins import main_bins

    codes = main_bins([column], max_bins).codes(column[:, None])[:, 0]
    return np.bincount(codes), codes


def test_a_heavy_value_is_a_bin_of_its_own_and_the_rest_keep_every_bin():
    # 40% of the rows at one value inside a continuous spread: plain quantiles put about 40% of their cuts on it and
    # collapse them (about 155 of 255 bins would remain); here the spike is one bin and the others share the rest
    rng = np.random.default_rng(0)
    column = np.where(rng.random(20_000) < 0.4, 0.5, rng.random(20_000))
    counts, codes = _bin_rows(column, 255)
    assert counts.size == 255
    spike = codes[column == 0.5][0]
    assert np.all(codes[column == 0.5] == spike) and counts[spike] == np.sum(column == 0.5)  # nothing else in it
    light = np.delete(counts, spike)
    # about equal rows: 12,000 over 254 bins, 47 each (the bin that ends before the spike may be shorter)
    assert np.all(np.abs(light - light.mean()) <= 0.2 * light.mean())


def test_bins_follow_the_distinct_values_when_there_are_few():
    column = np.repeat([3.0, 1.0, 2.0, 7.0], [5, 100, 1, 40])
    counts, _ = _bin_rows(column, 255)
    np.testing.assert_array_equal(counts, [100, 1, 5, 40])
    many = np.random.default_rng(1).normal(size=5_000)  # no ties: equal-frequency bins, as quantiles
    counts, _ = _bin_rows(many, 64)
    assert counts.size == 64 and counts.max() - counts.min() <= 2
