"""Gradient boosting: Newton leaf values, exact split search on few distinct values, monotone training loss,
interpolation by one deep tree, subsampling, sample weights, early stopping, the tree protocol, save/load."""

import numpy as np
import pytest
from scipy.special import expit, log_softmax
from tree_protocol import ensemble_output

from mllib import io
from mllib.gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from mllib.gradient_boosting.binning import bin_features, find_bin_thresholds


def few_values(n=600, d=4, levels=25, seed=0):
    """Features with `levels` distinct values each (< max_bins: binning is exact), binary target."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, d)) / levels + rng.integers(0, 3, size=(1, d))
    logit = 3 * (X[:, 0] - X[:, 0].mean()) - 2 * (X[:, 1] - X[:, 1].mean()) ** 2 + X[:, 2] - X[:, 2].mean()
    y = (rng.random(n) < expit(2 * logit)).astype(int)
    return X, y


def three_classes(n=600, seed=1):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 1)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    return X, np.array(["a", "b", "c"])[y]


def mean_log_loss(y01, raw):
    return np.mean(np.logaddexp(0, raw) - y01 * raw)


# ---- binning ------------------------------------------------------------------------------------------------


def test_bins_are_midpoints_below_max_bins_and_codes_agree_with_raw_thresholds():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 7, 300) * 0.5, rng.normal(size=300)])
    thr, off = find_bin_thresholds(X.T, max_bins=16)
    np.testing.assert_array_equal(thr[off[0] : off[1]], np.arange(6) * 0.5 + 0.25)  # 7 values: exact midpoints
    assert off[2] - off[1] == 15  # 300 distinct values: 16 quantile bins, 15 thresholds
    codes = bin_features(X, thr, off)
    for j in range(2):
        cuts = thr[off[j] : off[j + 1]]
        for b in range(cuts.size):
            np.testing.assert_array_equal(codes[:, j] <= b, X[:, j] <= cuts[b])
    # quantile bins hold about equally many rows
    assert np.bincount(codes[:, 1]).min() >= 300 / 16 - 2


# ---- Newton steps and split search --------------------------------------------------------------------------


def test_single_leaf_newton_step_from_the_prior_is_zero():
    # F_0 = log-odds of the prior minimises the loss over constants, so the one-leaf Newton step -G/(H+l2) is 0
    X, y = few_values()
    m = GradientBoostingClassifier(max_iter=1, learning_rate=1.0, min_samples_leaf=len(y)).fit(X, y)
    assert m.node_feature_.tolist() == [-1]
    p = y.mean()
    np.testing.assert_allclose(m.baseline_, [np.log(p / (1 - p))], rtol=1e-14)
    assert abs(m.node_value_[0]) < 1e-14


@pytest.mark.parametrize("l2", [0.0, 2.5])
def test_stump_leaves_are_the_newton_steps_of_their_rows(l2):
    X, y = few_values()
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=len(y))
    m = GradientBoostingClassifier(
        max_iter=1, learning_rate=1.0, max_leaf_nodes=2, min_samples_leaf=5, l2_regularization=l2
    ).fit(X, y, sample_weight=w)
    p0 = np.average(y, weights=w)
    g, h = (p0 - y) * w, p0 * (1 - p0) * w
    left = X[:, m.node_feature_[0]] <= m.node_threshold_[0]
    for side, node in ((left, m.node_left_[0]), (~left, m.node_right_[0])):
        np.testing.assert_allclose(m.node_value_[node], -g[side].sum() / (h[side].sum() + l2), rtol=1e-12)
        assert m.node_cover_[node] == side.sum()
    raw = m.decision_function(X)
    np.testing.assert_allclose(
        raw, np.log(p0 / (1 - p0)) + np.where(left, m.node_value_[1], m.node_value_[2]), rtol=1e-13
    )


def best_split_brute_force(X, g, h, l2, min_samples_leaf):
    """Every feature, every midpoint between consecutive distinct values, on the raw data."""
    best = (0.0, None, None)
    G, H = g.sum(), h.sum()
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for t in 0.5 * (values[:-1] + values[1:]):
            left = X[:, j] <= t
            if min(left.sum(), (~left).sum()) < min_samples_leaf:
                continue
            gl, hl = g[left].sum(), h[left].sum()
            gain = gl**2 / (hl + l2) + (G - gl) ** 2 / (H - hl + l2) - G**2 / (H + l2)
            if gain > best[0] + 1e-9:
                best = (gain, j, t)
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binned_split_search_is_exact_with_fewer_distinct_values_than_bins(seed):
    X, y = few_values(seed=seed)
    m = GradientBoostingClassifier(max_iter=1, max_leaf_nodes=2, min_samples_leaf=30, l2_regularization=1.0).fit(X, y)
    p0 = y.mean()
    gain, feature, threshold = best_split_brute_force(X, p0 - y, np.full(len(y), p0 * (1 - p0)), 1.0, 30)
    assert m.node_feature_[0] == feature
    assert m.node_threshold_[0] == threshold


def test_one_deep_tree_with_unit_learning_rate_interpolates_the_residuals():
    # seed 000 catalogue I7 oracle: F_1 = F_0 + h with h fitted to y - F_0 exactly when every row is its own leaf
    rng = np.random.default_rng(0)
    x = rng.permutation(200)[:120].astype(float)[:, None]  # distinct values, fewer than max_bins
    y = np.sin(x[:, 0] / 10) + rng.normal(size=120)
    m = GradientBoostingRegressor(max_iter=1, learning_rate=1.0, max_leaf_nodes=None, min_samples_leaf=1).fit(x, y)
    np.testing.assert_allclose(m.predict(x), y, atol=1e-12)
    assert m.baseline_[0] == pytest.approx(y.mean(), rel=1e-14)


# ---- the boosting loop ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["binary", "multiclass", "regression"])
def test_training_loss_is_non_increasing_per_iteration(kind):
    X, y = few_values(seed=4)
    if kind == "multiclass":
        X, y = three_classes()
    if kind == "regression":
        est = GradientBoostingRegressor(max_iter=40, max_leaf_nodes=8)
        y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + np.random.default_rng(0).normal(size=len(y))
    else:
        est = GradientBoostingClassifier(max_iter=40, max_leaf_nodes=8)
    loss = -est.fit(X, y).train_score_
    assert loss.shape == (41,)
    assert (np.diff(loss) <= 1e-12 * loss[0]).all()
    assert loss[-1] < 0.8 * loss[0]


def test_train_score_is_the_log_loss_of_the_final_model_also_with_subsampling():
    X, y = few_values(seed=5)
    m = GradientBoostingClassifier(max_iter=15, subsample=0.5, random_state=3).fit(X, y)
    # at fit, rows outside each subsample are predicted on bin codes; afterwards on raw thresholds: same model
    np.testing.assert_allclose(-m.train_score_[-1], mean_log_loss(y, m.decision_function(X)), rtol=1e-12)
    roots = m.node_cover_[m.tree_offsets_[:-1]]
    np.testing.assert_array_equal(roots, 300.0)
    again = GradientBoostingClassifier(max_iter=15, subsample=0.5, random_state=3).fit(X, y)
    np.testing.assert_array_equal(m.predict_proba(X), again.predict_proba(X))
    other = GradientBoostingClassifier(max_iter=15, subsample=0.5, random_state=4).fit(X, y)
    assert not np.array_equal(m.predict_proba(X), other.predict_proba(X))


def test_staged_predictions_replay_the_training_losses():
    X, y = few_values(seed=12)
    m = GradientBoostingClassifier(max_iter=8, max_leaf_nodes=5).fit(X, y)
    staged = [mean_log_loss(y, np.log(P[:, 1] / P[:, 0])) for P in m.staged_predict_proba(X)]
    np.testing.assert_allclose(staged, -m.train_score_[1:], rtol=1e-10)
    r = GradientBoostingRegressor(max_iter=8, max_leaf_nodes=5).fit(X, X[:, 0] + y)
    stages = list(r.staged_predict(X))
    assert len(stages) == r.n_iter_ == 8
    half_mse = [0.5 * np.mean((X[:, 0] + y - s) ** 2) for s in stages]
    np.testing.assert_allclose(half_mse, -r.train_score_[1:], rtol=1e-12)
    np.testing.assert_array_equal(stages[-1], r.predict(X))


def test_integer_sample_weights_equal_repeated_rows():
    X, y = few_values(n=300, seed=6)
    w = np.random.default_rng(0).integers(1, 4, size=len(y))
    params = dict(max_iter=10, max_leaf_nodes=6, min_samples_leaf=1)
    weighted = GradientBoostingClassifier(**params).fit(X, y, sample_weight=w)
    repeated = GradientBoostingClassifier(**params).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-10, atol=1e-12)


def test_multinomial_probabilities_sum_to_one_and_stages_end_at_the_model():
    X, y = three_classes()
    m = GradientBoostingClassifier(max_iter=12, max_leaf_nodes=6).fit(X, y)
    assert m.n_trees_per_iteration_ == 3 and m.tree_offsets_.size == 3 * 12 + 1
    P = m.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-14)
    stages = list(m.staged_predict_proba(X))
    assert len(stages) == 12
    np.testing.assert_array_equal(stages[-1], P)
    np.testing.assert_array_equal(list(m.staged_predict(X))[-1], m.predict(X))
    assert np.mean(m.predict(X) == y) > 0.8
    # the centred log prior: softmax(F_0) is the class frequencies
    _, counts = np.unique(y, return_counts=True)
    np.testing.assert_allclose(np.exp(log_softmax(m.baseline_)), counts / len(y), rtol=1e-13)


def test_early_stopping_stops_by_the_rule_and_is_deterministic():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(800, 5))
    y = (X[:, 0] + 2 * rng.normal(size=800) > 0).astype(int)  # mostly noise: validation loss turns up early
    params = dict(
        max_iter=300,
        learning_rate=0.3,
        early_stopping=True,
        validation_fraction=0.2,
        n_iter_no_change=5,
        tol=0.0,
        random_state=11,
    )
    m = GradientBoostingClassifier(**params).fit(X, y)
    assert m.n_iter_ < 300
    scores = m.validation_score_
    assert scores.shape == m.train_score_.shape == (m.n_iter_ + 1,)
    # stopped: none of the last 5 scores beats the one before them; and not earlier
    assert scores[-6] >= scores[-5:].max()
    for k in range(6, len(scores)):
        assert scores[k - 6] < scores[k - 5 : k].max()
    again = GradientBoostingClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(again.validation_score_, scores)
    np.testing.assert_array_equal(again.predict_proba(X), m.predict_proba(X))
    # the training part is the rows minus the stratified 20 %: 640 rows at the root of every tree
    np.testing.assert_array_equal(m.node_cover_[m.tree_offsets_[:-1]], 640.0)


# ---- the tree protocol and persistence ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["binary", "multiclass", "regression"])
def test_tree_ensemble_reproduces_the_raw_prediction(kind):
    X, y = three_classes() if kind == "multiclass" else few_values(seed=8)
    if kind == "regression":
        m = GradientBoostingRegressor(max_iter=15, max_leaf_nodes=7, learning_rate=0.3).fit(X, X[:, 0] * y)
        raw = m.predict(X)[:, None]
    else:
        m = GradientBoostingClassifier(max_iter=15, max_leaf_nodes=7, learning_rate=0.3).fit(X, y)
        raw = m.decision_function(X).reshape(len(X), -1)
    ens = m.tree_ensemble()
    assert ens["output"] == {"binary": "log_odds", "multiclass": "logits", "regression": "raw"}[kind]
    K = raw.shape[1]
    assert len(ens["trees"]) == 15 * K and ens["scale"].shape == (15 * K,) and ens["offset"].shape == (K,)
    np.testing.assert_allclose(ensemble_output(ens, X), raw, rtol=1e-12, atol=1e-12)
    for t, tree in enumerate(ens["trees"]):
        f, left, right, value, cover = (tree[k] for k in ("feature", "left", "right", "value", "cover"))
        assert f.dtype == left.dtype == right.dtype == np.int64 and value.shape == (f.size, K)
        assert np.count_nonzero(value[:, np.arange(K) != t % K]) == 0  # multiclass: only its class's column
        inner = np.flatnonzero(f >= 0)
        np.testing.assert_array_equal(cover[inner], cover[left[inner]] + cover[right[inner]])
        np.testing.assert_allclose(
            value[inner] * cover[inner, None],
            value[left[inner]] * cover[left[inner], None] + value[right[inner]] * cover[right[inner], None],
            rtol=1e-12,
            atol=1e-15,
        )
        assert (left[f < 0] == -1).all() and (right[f < 0] == -1).all()


@pytest.mark.parametrize("kind", ["multiclass", "early_stopping", "regression"])
def test_save_load_gives_identical_predictions(kind, tmp_path):
    X, y = three_classes() if kind == "multiclass" else few_values(seed=9)
    if kind == "regression":
        m = GradientBoostingRegressor(max_iter=10, subsample=0.7).fit(X, X[:, 1] + y)
    else:
        m = GradientBoostingClassifier(max_iter=40, early_stopping=kind == "early_stopping", n_iter_no_change=3).fit(
            X, y
        )
    io.save(m, tmp_path / "gb")
    loaded = io.load(tmp_path / "gb")
    method = "predict" if kind == "regression" else "predict_proba"
    np.testing.assert_array_equal(getattr(loaded, method)(X), getattr(m, method)(X))
    np.testing.assert_array_equal(loaded.train_score_, m.train_score_)
    a, b = loaded.tree_ensemble(), m.tree_ensemble()
    for ta, tb in zip(a["trees"], b["trees"]):
        for key in ta:
            np.testing.assert_array_equal(ta[key], tb[key])


@pytest.mark.parametrize(
    "param, value",
    [
        ("learning_rate", 0.0),
        ("max_iter", 0),
        ("max_leaf_nodes", 1),
        ("max_depth", 0),
        ("min_samples_leaf", 0),
        ("l2_regularization", -1.0),
        ("max_bins", 256),
        ("subsample", 0.0),
        ("validation_fraction", 1.0),
        ("n_iter_no_change", 0),
        ("tol", -1.0),
    ],
)
def test_bad_hyperparameters_are_named(param, value):
    X, y = few_values(n=60)
    with pytest.raises(ValueError, match=param):
        GradientBoostingClassifier(**{param: value}).fit(X, y)


def test_max_depth_bounds_the_tree_depth():
    X, y = few_values(seed=10)
    m = GradientBoostingClassifier(max_iter=3, max_leaf_nodes=None, max_depth=2, min_samples_leaf=1).fit(X, y)
    for tree in m.tree_ensemble()["trees"]:
        assert tree["feature"].size == 7  # a full depth-2 tree: 3 splits, 4 leaves


def test_not_fitted_and_wrong_width():
    X, y = few_values(n=80)
    with pytest.raises(ValueError, match="not fitted"):
        GradientBoostingClassifier().predict_proba(X)
    m = GradientBoostingClassifier(max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict_proba(X[:, :2])


def test_early_stopping_holds_out_whole_groups():
    """Groups of identical rows with a label drawn per group (pure noise): a row-level hold-out validates on copies of
    training rows, so memorising them keeps lowering its loss and boosting runs to the cap; with the groups given,
    the hold-out is whole groups, the validation loss turns up, and boosting stops early."""
    rng = np.random.default_rng(3)
    n_groups, size = 150, 4
    X = np.repeat(rng.normal(size=(n_groups, 3)), size, axis=0)
    y = np.repeat(rng.integers(0, 2, n_groups), size)
    groups = np.repeat(np.arange(n_groups), size)
    params = dict(
        max_iter=150, min_samples_leaf=1, early_stopping=True, validation_fraction=0.2, n_iter_no_change=5, tol=0.0
    )
    by_row = GradientBoostingClassifier(**params).fit(X, y)
    by_group = GradientBoostingClassifier(**params).fit(X, y, groups=groups)
    assert by_row.n_iter_ == 150
    assert by_group.n_iter_ < 30
    # the regressor too, through the standardized-target wrapper the pipeline uses
    from mllib.regression import StandardizedTarget

    wrapped = StandardizedTarget(GradientBoostingRegressor(**params)).fit(X, y.astype(float), groups=groups)
    assert wrapped.regressor_.n_iter_ < 30


def test_early_stopping_that_cannot_hold_out_or_does_not_stop_says_so():
    """Five rows in five groups leave no hold-out at validation_fraction 0.1 (each group is drawn with probability
    0.1): every iteration is boosted and a ConvergenceWarning says why; a fit still improving at max_iter says so
    too."""
    from mllib.base import ConvergenceWarning

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(5, 2)), np.array([0, 1, 0, 1, 1])
    with pytest.warns(ConvergenceWarning, match=r"the 5 rows in 5 groups leave no validation part"):
        m = GradientBoostingClassifier(max_iter=7, early_stopping=True, min_samples_leaf=1).fit(
            X, y, groups=np.arange(5)
        )
    assert m.n_iter_ == 7 and m.validation_score_.size == 0
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(ConvergenceWarning, match=r"stop before max_iter=3 \(the validation loss was still improving"):
        GradientBoostingClassifier(max_iter=3, early_stopping=True, learning_rate=0.01).fit(X, y)


def test_early_stopping_with_a_class_of_one_row():
    """The learning curve's smallest share of a small file's fold gave a class one row, and the stratified
    early-stopping hold-out refused it (the assess stage failed on glass): that row now stays in the trees' rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(34, 3))
    y = np.array([0] * 15 + [1] * 12 + [2] + [3] * 6)
    model = GradientBoostingClassifier(early_stopping=True, max_iter=30).fit(X, y)
    assert model.predict_proba(X).shape == (34, 4)
