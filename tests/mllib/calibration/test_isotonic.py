"""IsotonicCalibration / pool_adjacent_violators: the catalogue's PAV oracles, the block-mean and monotonicity
invariants, idempotence, tie pooling (secondary approach) and agreement with scikit-learn to 1e-12."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mllib.calibration import IsotonicCalibration, pool_adjacent_violators


def test_catalogue_oracles():
    np.testing.assert_allclose(pool_adjacent_violators([1, 3, 2, 4]), [1, 2.5, 2.5, 4], atol=1e-15)
    np.testing.assert_allclose(pool_adjacent_violators([0, 1, 0, 0, 1, 1]), [0, 1 / 3, 1 / 3, 1 / 3, 1, 1], atol=1e-15)


def test_weighted_pooling_hand_computed():
    # 3 (w 1) and 1 (w 3) violate: pooled mean (3 + 3) / 4 = 1.5; then 1.5 <= 2 stays
    np.testing.assert_allclose(pool_adjacent_violators([3, 1, 2], sample_weight=[1, 3, 1]), [1.5, 1.5, 2])


def _blocks(fit):
    return np.split(np.arange(fit.size), np.nonzero(np.diff(fit))[0] + 1)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(0.1, 10)), min_size=1, max_size=50))
def test_monotone_block_means_preserved_and_idempotent(rows):
    y = np.array([r[0] for r in rows])
    w = np.array([r[1] for r in rows])
    fit = pool_adjacent_violators(y, w)
    assert np.all(np.diff(fit) >= 0)
    for block in _blocks(fit):  # every block holds the weighted mean of its inputs
        assert fit[block[0]] == pytest.approx(w[block] @ y[block] / w[block].sum(), rel=1e-12, abs=1e-12)
    assert w @ fit == pytest.approx(w @ y, rel=1e-12, abs=1e-10)
    np.testing.assert_allclose(pool_adjacent_violators(fit, w), fit, rtol=0, atol=1e-12)


def test_sorted_input_is_unchanged_and_nonpositive_weights_are_refused():
    y = np.array([0.0, 0.2, 0.2, 0.9])
    np.testing.assert_array_equal(pool_adjacent_violators(y), y)
    with pytest.raises(ValueError, match="positive sample weights"):
        pool_adjacent_violators(y, [1, 0, 1, 1])


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=n), 1)  # rounding makes many tied scores
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    w = rng.uniform(0.2, 3.0, size=n)
    return s, y, w


def test_ties_are_pooled_first_secondary_approach():
    # tied scores with labels (0, 1) must get one value; PAV on the rows in label order would give 0 and 1
    s = np.array([0.0, 1.0, 1.0, 2.0])
    model = IsotonicCalibration().fit(s, [0, 0, 1, 1])
    np.testing.assert_allclose(model.transform(s), [0, 0.5, 0.5, 1])
    # weights act inside the tie: (0 * 3 + 1 * 1) / 4
    model = IsotonicCalibration().fit(s, [0, 0, 1, 1], sample_weight=[1, 3, 1, 1])
    assert model.transform([1.0])[0] == pytest.approx(0.25)


def test_interpolates_between_block_boundaries_and_clips_outside():
    model = IsotonicCalibration().fit([0.0, 1.0, 2.0, 3.0], [0, 1, 0, 1])
    # blocks: {0} -> 0, {1, 2} -> 0.5, {3} -> 1
    np.testing.assert_allclose(model.X_thresholds_, [0, 1, 2, 3])
    np.testing.assert_allclose(model.y_thresholds_, [0, 0.5, 0.5, 1])
    np.testing.assert_allclose(model.transform([-5, 0.5, 1.5, 2.5, 9]), [0, 0.25, 0.5, 0.75, 1])
    assert model.n_blocks_ == 3


def test_decreasing_fit():
    s, y, _ = _data(1)
    up = IsotonicCalibration().fit(s, y)
    down = IsotonicCalibration(increasing=False).fit(-s, y)
    np.testing.assert_allclose(down.transform(-s), up.transform(s), atol=1e-15)
    assert np.all(np.diff(down.y_thresholds_) <= 0)


@pytest.mark.parametrize("weighted", [False, True])
def test_matches_sklearn_isotonic_regression(weighted):
    isotonic = pytest.importorskip("sklearn.isotonic")
    s, y, w = _data(2)
    w = w if weighted else None
    ours = IsotonicCalibration().fit(s, y, sample_weight=w)
    ref = isotonic.IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(s, y, sample_weight=w)
    grid = np.linspace(s.min() - 1, s.max() + 1, 1001)
    np.testing.assert_allclose(ours.transform(s), ref.predict(s), rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.transform(grid), ref.predict(grid), rtol=0, atol=1e-12)


def test_zero_weight_rows_are_ignored():
    s, y, w = _data(3)
    w[::4] = 0.0
    keep = w > 0
    a = IsotonicCalibration().fit(s, y, sample_weight=w)
    b = IsotonicCalibration().fit(s[keep], y[keep], sample_weight=w[keep])
    np.testing.assert_array_equal(a.transform(s), b.transform(s))


def test_invalid_inputs():
    with pytest.raises(ValueError, match="increasing"):
        IsotonicCalibration(increasing="yes").fit([0.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match="binary"):
        IsotonicCalibration().fit([0.0, 1.0], [0, 2])


def _walk_in_python(y, w):
    """The PAV walk as the module docstring states it, in plain Python: the compiled walk's oracle."""
    means, weights, starts = [], [], []
    for i in range(len(y)):
        mean, weight, start = y[i], w[i], i
        while means and means[-1] >= mean:
            previous = weights.pop()
            mean = (previous * means.pop() + weight * mean) / (previous + weight)
            weight, start = previous + weight, starts.pop()
        means.append(mean)
        weights.append(weight)
        starts.append(start)
    return np.repeat(np.array(means), np.diff(np.append(starts, len(y))))


@pytest.mark.parametrize("n", [1, 2, 7, 5000])
def test_compiled_walk_equals_the_python_walk_to_the_bit(n):
    rng = np.random.default_rng(n)
    y = np.round(rng.random(n) + np.linspace(0.0, 1.0, n), 1)  # rounding makes equal neighbours (pooled: >=)
    w = rng.uniform(0.1, 3.0, n)
    np.testing.assert_array_equal(pool_adjacent_violators(y, w), _walk_in_python(y, w))
    labels = (rng.random(n) < np.linspace(0.1, 0.9, n)).astype(float)  # 0/1 labels: long merges
    np.testing.assert_array_equal(pool_adjacent_violators(labels), _walk_in_python(labels, np.ones(n)))
