"""Hold-out splits and the hospital example (catalogue 2.3 and (b) item 9; seed 004, D4:505-512)."""

import numpy as np
import pytest

from mllib.model_selection import early_stopping_split, fold_balance, split_groups, train_test_split_indices

HOSPITAL_SIZES = [80, 70, 60, 55, 50, 45, 40, 40]  # 440 rows from 8 hospitals


def _hospitals():
    rng = np.random.default_rng(0)
    return rng.permutation(np.repeat(np.array([f"H{i}" for i in range(8)]), HOSPITAL_SIZES))


def test_hospital_example_3_2_3():
    groups = _hospitals()
    assert groups.size == 440
    parts = split_groups(groups, (3, 2, 3), random_state=0)
    sets = [set(groups[p]) for p in parts]
    assert [len(s) for s in sets] == [3, 2, 3]
    assert not (sets[0] & sets[1]) and not (sets[0] & sets[2]) and not (sets[1] & sets[2])
    assert sets[0] | sets[1] | sets[2] == set(groups)
    assert sum(p.size for p in parts) == 440
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(440))  # every row in exactly one part
    again = split_groups(groups, (3, 2, 3), random_state=0)
    assert all(np.array_equal(a, b) for a, b in zip(parts, again))
    other = split_groups(groups, (3, 2, 3), random_state=1)
    assert any(not np.array_equal(a, b) for a, b in zip(parts, other))


def test_hospital_example_by_rows_test_first_then_validation():
    """Test set first (whole hospitals), then validation from the rest: three disjoint hospital sets."""
    groups = _hospitals()
    rest, test = train_test_split_indices(groups=groups, test_size=3 / 8, random_state=0)
    tr, va = train_test_split_indices(groups=groups[rest], test_size=2 / 5, random_state=0)
    train, valid = rest[tr], rest[va]
    sets = [set(groups[i]) for i in (train, valid, test)]
    assert not (sets[0] & sets[1]) and not (sets[0] & sets[2]) and not (sets[1] & sets[2])
    assert sets[0] | sets[1] | sets[2] == set(groups)
    assert train.size + valid.size + test.size == 440
    assert abs(test.size - 165) <= max(HOSPITAL_SIZES)


def test_plain_holdout_sizes_and_determinism():
    tr, te = train_test_split_indices(101, test_size=0.2, random_state=3)
    assert te.size == 21 and tr.size == 80  # ceil(0.2 * 101)
    assert np.array_equal(np.union1d(tr, te), np.arange(101)) and np.intersect1d(tr, te).size == 0
    assert tr.dtype == te.dtype == np.int64
    tr2, te2 = train_test_split_indices(101, test_size=0.2, random_state=3)
    assert np.array_equal(te, te2)
    _, te3 = train_test_split_indices(101, test_size=0.2, random_state=4)
    assert not np.array_equal(te, te3)
    _, last = train_test_split_indices(10, test_size=3, shuffle=False)
    assert last.tolist() == [7, 8, 9]


def test_stratified_holdout_uses_largest_remainder_per_class():
    y = np.repeat(["a", "b", "c"], [50, 30, 20])
    _, te = train_test_split_indices(y=y, test_size=0.2, random_state=0)
    assert [int((y[te] == c).sum()) for c in "abc"] == [10, 6, 4]
    y = np.repeat([0, 1, 2], [7, 7, 7])  # 0.3 * 21 = 6.3 -> 7 test rows, 2.33 per class
    _, te = train_test_split_indices(y=y, test_size=0.3, random_state=0)
    counts = np.bincount(y[te], minlength=3)
    assert counts.sum() == 7 and set(counts) <= {2, 3}
    _, te = train_test_split_indices(y=y, test_size=0.3, stratify=False, random_state=0)
    assert te.size == 7


def test_grouped_stratified_holdout():
    rng = np.random.default_rng(2)
    sizes = rng.integers(3, 25, 50)
    groups = np.repeat(np.arange(50), sizes)
    y = (rng.random(groups.size) < np.repeat(rng.beta(2, 4, 50), sizes)).astype(int)
    tr, te = train_test_split_indices(y=y, groups=groups, test_size=0.25, random_state=0)
    assert not set(groups[tr]) & set(groups[te])
    assert abs(te.size - 0.25 * y.size) <= sizes.max()
    fold = np.zeros(y.size, dtype=int)
    fold[te] = 1
    assert fold_balance(y, groups, fold)["max_abs_deviation"] < 0.02
    # grouped only: also whole groups, size close to the target
    tr, te = train_test_split_indices(y=y, groups=groups, test_size=0.25, stratify=False, random_state=0)
    assert not set(groups[tr]) & set(groups[te])
    assert abs(te.size - 0.25 * y.size) <= sizes.max()


def test_holdout_errors():
    with pytest.raises(ValueError, match="test_size"):
        train_test_split_indices(10, test_size=1.0)
    with pytest.raises(ValueError, match="test_size"):
        train_test_split_indices(10, test_size=10)
    with pytest.raises(ValueError, match="class 2 has only 1 row"):
        train_test_split_indices(y=[0, 0, 1, 1, 2], test_size=0.4)
    with pytest.raises(ValueError, match="at least 2 groups"):
        train_test_split_indices(groups=[1, 1, 1])
    with pytest.raises(ValueError, match="cannot infer the number of rows"):
        train_test_split_indices()
    with pytest.raises(ValueError, match="summing to the number of groups"):
        split_groups(_hospitals(), (3, 2, 2))


def test_grouped_holdout_is_a_probability_sample_of_groups():
    """Every group enters the test set with probability test_size, whatever its labels: a test set picked
    for class balance filled up with mixed-label groups (the hardest) and biased test scores downwards."""
    rng = np.random.default_rng(7)
    n_groups, t = 600, 0.2
    sizes = rng.integers(1, 6, n_groups)
    kind = rng.choice(3, n_groups, p=[0.55, 0.1, 0.35])  # all positive, all negative, mixed
    groups = np.repeat(np.arange(n_groups), sizes)
    y = np.concatenate(
        [np.ones(s, int) if k == 0 else np.zeros(s, int) if k == 1 else (np.arange(s) % 2) for s, k in zip(sizes, kind)]
    )
    mixed = np.array([k == 2 and s > 1 for s, k in zip(sizes, kind)])
    inclusion = np.zeros(n_groups)
    for seed in range(300):
        _, te = train_test_split_indices(y=y, groups=groups, test_size=t, random_state=seed)
        in_test = np.zeros(n_groups, bool)
        in_test[np.unique(groups[te])] = True
        assert in_test.sum() in (int(np.floor(n_groups * t)), int(np.ceil(n_groups * t)))
        inclusion += in_test
    inclusion /= 300
    # each group's frequency is Binomial(300, 0.2)/300: sd 0.023; group kinds average over ~100-300 groups
    assert abs(inclusion[mixed].mean() - t) < 0.01
    assert abs(inclusion[~mixed].mean() - t) < 0.01
    assert np.abs(inclusion - t).max() < 0.12


def test_early_stopping_split_keeps_a_class_of_one_row_in_training():
    """A model's early-stopping hold-out on a learning curve's quarter of a small file's fold (glass: 34 rows, a class
    with one row): the single row stays in the training part, the other classes are stratified as
    train_test_split_indices stratifies them; without such a class the split is train_test_split_indices's."""
    y = np.array([0] * 20 + [1] * 10 + [2] + [3] * 3)
    train, valid = early_stopping_split(y.size, y=y, validation_fraction=0.2, random_state=0)
    assert 30 in train and 30 not in valid and np.intersect1d(train, valid).size == 0
    assert train.size + valid.size == y.size and np.all(np.diff(train) > 0)
    rest = np.delete(np.arange(y.size), 30)
    expected = train_test_split_indices(rest.size, y=y[rest], test_size=0.2, random_state=0)[1]
    np.testing.assert_array_equal(valid, rest[expected])
    with pytest.raises(ValueError, match="only 1 row"):
        train_test_split_indices(y.size, y=y, test_size=0.2, random_state=0)
    common = np.array([0] * 20 + [1] * 10)
    for a, b in zip(
        early_stopping_split(30, y=common, validation_fraction=0.2, random_state=3),
        train_test_split_indices(30, y=common, test_size=0.2, random_state=3),
    ):
        np.testing.assert_array_equal(a, b)
