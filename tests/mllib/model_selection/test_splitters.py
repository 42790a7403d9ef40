"""Splitter guarantees (catalogue (b) items 5-7, 10-12; seed 004, D4:518-554): property tests over random
labels and groups, golden comparisons with sklearn (reference only), bootstrap oracles and error paths."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import model_selection as skms

from mllib.model_selection import (
    Bootstrap,
    GroupBootstrap,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    LeaveOneGroupOut,
    LeaveOneOut,
    RepeatedGroupKFold,
    RepeatedKFold,
    RepeatedStratifiedGroupKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedGroupKFold,
    StratifiedKFold,
    check_no_group_overlap,
    fold_assignment,
)

PROPS = settings(max_examples=60, deadline=None)


def _check_partition(splits, n):
    """Validation folds disjoint and complete; train and test disjoint and covering; sorted int64."""
    seen = np.zeros(n, dtype=int)
    for train, test in splits:
        for idx in (train, test):
            assert idx.dtype == np.int64
            assert np.all(np.diff(idx) > 0)
        assert np.intersect1d(train, test).size == 0
        assert np.array_equal(np.union1d(train, test), np.arange(n))
        seen[test] += 1
    assert np.all(seen == 1)


def _no_group_overlap(splits, groups):
    for train, test in splits:
        assert not set(groups[train]) & set(groups[test])


@st.composite
def class_problem(draw, max_classes=4, min_per_class=2, max_per_class=30):
    """y with every class count >= min_per_class, rows in a hypothesis-chosen order, and k <= min count."""
    counts = draw(st.lists(st.integers(min_per_class, max_per_class), min_size=2, max_size=max_classes))
    y = np.repeat(np.arange(len(counts)), counts)
    y = np.random.default_rng(draw(st.integers(0, 2**31))).permutation(y)
    k = draw(st.integers(2, min(counts)))
    return y, k


@st.composite
def grouped_problem(draw):
    """Random labels and groups (arbitrary sizes, class mixes) with k <= n_groups and k <= min class count."""
    seed = draw(st.integers(0, 2**31))
    n_groups = draw(st.integers(2, 25))
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, draw(st.integers(2, 15)), n_groups)
    sizes[:2] = np.maximum(sizes[:2], 3)
    groups = np.repeat(rng.permutation(n_groups) * 7 + 3, sizes)  # non-contiguous ids
    n_classes = draw(st.integers(2, 3))
    y = rng.integers(0, n_classes, groups.size)
    y[: 2 * n_classes] = np.tile(np.arange(n_classes), 2)  # every class has >= 2 rows
    perm = rng.permutation(groups.size)
    y, groups = y[perm], groups[perm]
    k = draw(st.integers(2, max(2, min(n_groups, np.bincount(y).min()))))
    return y, groups, k, seed


@PROPS
@given(n=st.integers(2, 200), data=st.data())
def test_kfold_partition_and_sizes(n, data):
    k = data.draw(st.integers(2, min(n, 12)))
    shuffle = data.draw(st.booleans())
    splits = list(KFold(k, shuffle=shuffle, random_state=data.draw(st.integers(0, 2**31))).split(np.zeros((n, 2))))
    assert len(splits) == k
    _check_partition(splits, n)
    sizes = [t.size for _, t in splits]
    assert max(sizes) - min(sizes) <= 1


@PROPS
@given(problem=class_problem(), shuffle=st.booleans(), seed=st.integers(0, 2**31))
def test_stratified_kfold_class_counts_floor_ceil(problem, shuffle, seed):
    y, k = problem
    splits = list(StratifiedKFold(k, shuffle=shuffle, random_state=seed).split(y=y))
    _check_partition(splits, y.size)
    sizes = [t.size for _, t in splits]
    assert max(sizes) - min(sizes) <= 1
    for c, total in enumerate(np.bincount(y)):
        per_fold = [int((y[t] == c).sum()) for _, t in splits]
        assert set(per_fold) <= {total // k, -(-total // k)}, (c, total, per_fold)


@PROPS
@given(problem=class_problem(min_per_class=3), seed=st.integers(0, 2**31))
def test_repeated_stratified_each_repeat_is_a_stratified_partition(problem, seed):
    y, k = problem
    splits = list(RepeatedStratifiedKFold(n_splits=k, n_repeats=3, random_state=seed).split(y=y))
    assert len(splits) == 3 * k
    for r in range(3):
        rep = splits[r * k : (r + 1) * k]
        _check_partition(rep, y.size)
        for c, total in enumerate(np.bincount(y)):
            assert {int((y[t] == c).sum()) for _, t in rep} <= {total // k, -(-total // k)}


@PROPS
@given(problem=grouped_problem(), shuffle=st.booleans())
def test_grouped_splitters_never_share_a_group(problem, shuffle):
    y, groups, k, seed = problem
    splitters = [
        GroupKFold(k, shuffle=shuffle, random_state=seed),
        StratifiedGroupKFold(k, shuffle=shuffle, random_state=seed),
        LeaveOneGroupOut(),
    ]
    for splitter in splitters:
        splits = list(splitter.split(y=y, groups=groups))
        assert len(splits) == splitter.get_n_splits(groups=groups)
        _check_partition(splits, y.size)
        _no_group_overlap(splits, groups)
        assert all(t.size > 0 for _, t in splits)


@PROPS
@given(problem=grouped_problem())
def test_group_kfold_sizes_within_one_group(problem):
    """Lightest-fold assignment: fold sizes differ by at most the largest group size."""
    _, groups, k, seed = problem
    for shuffle in (False, True):
        sizes = [t.size for _, t in GroupKFold(k, shuffle=shuffle, random_state=seed).split(groups=groups)]
        assert max(sizes) - min(sizes) <= np.unique(groups, return_counts=True)[1].max()


@PROPS
@given(problem=grouped_problem())
def test_same_seed_same_folds(problem):
    y, groups, k, seed = problem
    for make in (
        lambda: KFold(k, shuffle=True, random_state=seed),
        lambda: StratifiedKFold(k, shuffle=True, random_state=seed),
        lambda: GroupKFold(k, shuffle=True, random_state=seed),
        lambda: StratifiedGroupKFold(k, shuffle=True, random_state=seed),
        lambda: RepeatedKFold(n_splits=k, n_repeats=2, random_state=seed),
        lambda: ShuffleSplit(3, test_size=0.3, random_state=seed),
        lambda: Bootstrap(3, random_state=seed),
    ):
        grouped = isinstance(make(), (GroupKFold, StratifiedGroupKFold))
        kwargs = {"y": y, "groups": groups} if grouped else {"y": y}
        a, b = list(make().split(**kwargs)), list(make().split(**kwargs))
        s = make()
        c = list(s.split(**kwargs))  # the same object twice gives the same folds too
        d = list(s.split(**kwargs))
        for (t1, v1), (t2, v2), (t3, v3), (t4, v4) in zip(a, b, c, d):
            assert np.array_equal(t1, t2) and np.array_equal(v1, v2)
            assert np.array_equal(t3, t4) and np.array_equal(v3, v4) and np.array_equal(t1, t3)


def test_different_seeds_give_different_splits():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 120)
    groups = np.repeat(np.arange(40), 3)  # equal-sized groups: ties for the seeded shuffle to break
    for cls, kwargs, grouped in [
        (KFold, {"n_splits": 5, "shuffle": True}, False),
        (StratifiedKFold, {"n_splits": 5, "shuffle": True}, False),
        (GroupKFold, {"n_splits": 5, "shuffle": True}, True),
        (StratifiedGroupKFold, {"n_splits": 5, "shuffle": True}, True),
        (RepeatedStratifiedKFold, {"n_splits": 5, "n_repeats": 2}, False),
        (ShuffleSplit, {"n_splits": 3, "test_size": 0.25}, False),
        (Bootstrap, {"n_bootstraps": 3}, False),
    ]:
        g = groups if grouped else None
        a = [t for _, t in cls(random_state=1, **kwargs).split(y=y, groups=g)]
        b = [t for _, t in cls(random_state=2, **kwargs).split(y=y, groups=g)]
        assert any(not np.array_equal(u, v) for u, v in zip(a, b)), cls.__name__


def test_shuffle_false_ignores_the_seed():
    y = np.arange(30) % 3
    for cls in (KFold, StratifiedKFold):
        a = [t for _, t in cls(3, shuffle=False, random_state=1).split(y=y)]
        b = [t for _, t in cls(3, shuffle=False, random_state=2).split(y=y)]
        assert all(np.array_equal(u, v) for u, v in zip(a, b))


# ---- golden comparisons with sklearn (unshuffled variants are fully specified) ----


@pytest.mark.parametrize("n,k", [(10, 3), (17, 5), (100, 10), (7, 7)])
def test_kfold_matches_sklearn_unshuffled(n, k):
    ours = list(KFold(k).split(np.zeros(n)))
    ref = list(skms.KFold(k).split(np.zeros(n)))
    for (a, b), (c, d) in zip(ours, ref):
        assert np.array_equal(a, c) and np.array_equal(b, d)


@pytest.mark.parametrize("seed", range(5))
def test_stratified_kfold_matches_sklearn_unshuffled(seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["b", "a", "c"]), size=97, p=[0.5, 0.3, 0.2])
    ours = list(StratifiedKFold(4).split(y=y))
    ref = list(skms.StratifiedKFold(4).split(np.zeros(y.size), y))
    for (a, b), (c, d) in zip(ours, ref):
        assert np.array_equal(a, c) and np.array_equal(b, d)


def test_group_kfold_matches_sklearn_unshuffled_distinct_sizes():
    rng = np.random.default_rng(3)
    groups = rng.permutation(np.repeat(np.arange(12), np.arange(1, 13)))  # distinct sizes: no sort ties
    ours = list(GroupKFold(4).split(groups=groups))
    ref = list(skms.GroupKFold(4).split(np.zeros(groups.size), groups=groups))
    for (a, b), (c, d) in zip(ours, ref):
        assert np.array_equal(a, c) and np.array_equal(b, d)


def test_leave_one_group_out_matches_sklearn():
    groups = np.array(["h3", "h1", "h2", "h1", "h3", "h3", "h2"])
    ours = list(LeaveOneGroupOut().split(groups=groups))
    ref = list(skms.LeaveOneGroupOut().split(np.zeros(7), groups=groups))
    assert len(ours) == 3
    for (a, b), (c, d) in zip(ours, ref):
        assert np.array_equal(a, c) and np.array_equal(b, d)


# ---- LOOCV, repeated, shuffle-split, bootstrap ----


def test_loocv_gives_n_folds_of_size_one():
    n = 13
    splits = list(LeaveOneOut().split(np.zeros((n, 3))))
    assert len(splits) == n == LeaveOneOut().get_n_splits(np.zeros(n))
    assert [t.tolist() for _, t in splits] == [[i] for i in range(n)]
    assert all(tr.size == n - 1 for tr, _ in splits)
    _check_partition(splits, n)
    # LOOCV is k-fold with k = n
    assert all(np.array_equal(a, c) for (a, _), (c, _) in zip(splits, KFold(n).split(np.zeros(n))))


def test_repeated_kfold_repeats_are_partitions_and_differ():
    splits = list(RepeatedKFold(n_splits=4, n_repeats=3, random_state=0).split(np.zeros(40)))
    assert len(splits) == 12 == RepeatedKFold(n_splits=4, n_repeats=3).get_n_splits()
    reps = [splits[i : i + 4] for i in (0, 4, 8)]
    for rep in reps:
        _check_partition(rep, 40)
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(reps[0], reps[1]))


def test_shuffle_split_sizes():
    splits = list(ShuffleSplit(5, test_size=0.25, random_state=0).split(np.zeros(21)))
    assert len(splits) == 5
    for train, test in splits:
        assert test.size == 6 and train.size == 15  # ceil(0.25 * 21) = 6
        assert np.intersect1d(train, test).size == 0
    tr, te = next(ShuffleSplit(1, test_size=3, train_size=10, random_state=0).split(np.zeros(21)))
    assert (tr.size, te.size) == (10, 3)


def test_bootstrap_in_bag_with_repetition_and_oob_complement():
    n = 50
    for train, test in Bootstrap(20, random_state=0).split(np.zeros(n)):
        assert train.size == n and np.all(np.diff(train) >= 0)
        assert np.array_equal(np.sort(np.union1d(np.unique(train), test)), np.arange(n))
        assert np.intersect1d(train, test).size == 0
    assert any(np.unique(t).size < n for t, _ in Bootstrap(3, random_state=0).split(np.zeros(n)))


def test_bootstrap_oob_fraction_is_about_0368():
    """OOB fraction -> (1 - 1/N)^N = 0.3677 for N=1000 (-> 1/e = 0.367879); Monte-Carlo s.e. ~ 0.0007."""
    n = 1000
    oob = np.array([t.size / n for _, t in Bootstrap(200, random_state=42).split(np.zeros(n))])
    assert abs(oob.mean() - (1 - 1 / n) ** n) < 0.004
    assert abs(oob.mean() - 0.368) < 0.005


def test_bootstrap_in_bag_unique_fraction_n10_is_0651322():
    """E[unique in-bag / N] = 1 - 0.9^10 = 0.651322 (D4:1548); 20000 draws give s.e. ~ 0.0009."""
    expected = 1 - 0.9**10
    assert round(expected, 6) == 0.651322
    frac = np.array([np.unique(t).size / 10 for t, _ in Bootstrap(20000, random_state=7).split(np.zeros(10))])
    assert abs(frac.mean() - expected) < 0.004
    assert abs(frac.mean() - (1 - np.exp(-1))) > 0.01  # N = 10 is distinguishable from the N -> inf limit


# ---- leakage guard ----


def test_check_no_group_overlap_names_offending_groups():
    groups = np.array(["p1", "p1", "p2", "p3", "p3"])
    check_no_group_overlap([0, 1], [2, 3, 4], groups)
    with pytest.raises(ValueError, match=r"p3"):
        check_no_group_overlap([0, 1, 3], [2, 4], groups)


def test_row_level_splitters_given_groups_report_leaks():
    y = np.tile([0, 1], 20)
    groups = np.repeat(np.arange(10), 4)
    for splitter in (
        KFold(5, shuffle=True, random_state=0),
        StratifiedKFold(5, shuffle=True, random_state=0),
        ShuffleSplit(3, random_state=0),
        Bootstrap(3, random_state=0),
        LeaveOneOut(),
    ):
        with pytest.raises(ValueError, match="leaks groups"):
            list(splitter.split(y=y, groups=groups))
    # groups that happen to align with row-level folds pass the check
    list(KFold(5).split(groups=np.repeat(np.arange(5), 8)))


# ---- bad inputs ----


def test_bad_inputs_raise_with_a_fix():
    y = np.array([0] * 10 + [1] * 3)
    groups = np.repeat([1, 2, 3], [5, 4, 4])
    with pytest.raises(
        ValueError, match=r"n_splits=5 needs at least 5 groups but there are only 3; lower split.n_splits"
    ):
        list(GroupKFold(5).split(groups=groups))
    with pytest.raises(ValueError, match=r"n_splits=5 needs at least 5 groups but there are only 3"):
        list(StratifiedGroupKFold(5).split(y=y, groups=groups))
    with pytest.raises(ValueError, match=r"class 1 has only 3 row"):
        list(StratifiedKFold(4).split(y=y))
    with pytest.raises(ValueError, match=r"class 1 has only 3 row"):
        list(RepeatedStratifiedKFold(n_splits=4).split(y=y))
    with pytest.raises(ValueError, match=r"class 1 has only 3 row"):
        list(StratifiedGroupKFold(3 + 1).split(y=y, groups=np.arange(13)))
    for splitter in (GroupKFold(2), StratifiedGroupKFold(2), LeaveOneGroupOut()):
        with pytest.raises(ValueError, match="needs groups"):
            list(splitter.split(np.zeros((13, 2)), y))
    with pytest.raises(ValueError, match="pass y"):
        list(StratifiedKFold(2).split(np.zeros(13)))
    with pytest.raises(ValueError, match=r"n_splits=20 needs at least 20 rows but there are only 13"):
        list(KFold(20).split(y=y))
    with pytest.raises(ValueError, match="y has 12 entries, expected 13"):
        list(KFold(2).split(np.zeros(13), y[:12]))
    with pytest.raises(ValueError, match="n_splits must be an integer >= 2"):
        list(KFold(1).split(y=y))
    with pytest.raises(ValueError, match="cannot infer the number of rows"):
        list(KFold(2).split())
    with pytest.raises(ValueError, match="test_size"):
        list(ShuffleSplit(test_size=1.5).split(y=y))


# ---- fold_assignment ----


def test_fold_assignment_matches_split_and_rejects_non_partitions():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 60)
    groups = rng.integers(0, 15, 60)
    for splitter in (
        KFold(4, shuffle=True, random_state=0),
        StratifiedKFold(3),
        GroupKFold(4),
        StratifiedGroupKFold(3, shuffle=True, random_state=0),
        LeaveOneGroupOut(),
        LeaveOneOut(),
    ):
        grouped = isinstance(splitter, (GroupKFold, StratifiedGroupKFold, LeaveOneGroupOut))
        g = groups if grouped else None
        fold = fold_assignment(splitter, y=y, groups=g)
        for k, (_, test) in enumerate(splitter.split(y=y, groups=g)):
            assert np.array_equal(np.flatnonzero(fold == k), test)
    # works for foreign splitters whose folds partition the rows
    assert np.array_equal(fold_assignment(skms.KFold(3), y=y), np.repeat([0, 1, 2], 20))
    for splitter in (
        RepeatedKFold(random_state=0),
        RepeatedStratifiedKFold(n_splits=2, random_state=0),
        ShuffleSplit(random_state=0),
        Bootstrap(random_state=0),
    ):
        with pytest.raises(ValueError, match="do not partition"):
            fold_assignment(splitter, y=y)


def test_splitters_are_clonable_estimator_like():
    from mllib.base import clone

    s = StratifiedGroupKFold(n_splits=4, shuffle=True, random_state=3)
    c = clone(s)
    assert c is not s and c.get_params() == s.get_params()
    assert "n_splits=4" in repr(s)


# ---- grouped repeated / shuffle / bootstrap splitters ----


def _grouped_problem(seed=0, n_groups=30):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), rng.integers(1, 6, n_groups))
    y = rng.integers(0, 2, groups.size)
    return y, groups


@given(seed=st.integers(0, 10_000), n_groups=st.integers(8, 40), k=st.integers(2, 4), repeats=st.integers(1, 3))
def test_repeated_grouped_kfolds_partition_each_repeat_and_never_split_a_group(seed, n_groups, k, repeats):
    y, groups = _grouped_problem(seed, n_groups)
    y[:k] = 0
    y[k : 2 * k] = 1  # both classes have at least k rows
    for splitter in (
        RepeatedGroupKFold(n_splits=k, n_repeats=repeats, random_state=seed),
        RepeatedStratifiedGroupKFold(n_splits=k, n_repeats=repeats, random_state=seed),
    ):
        splits = list(splitter.split(y=y, groups=groups))
        assert len(splits) == k * repeats == splitter.get_n_splits()
        for r in range(repeats):
            tests = np.concatenate([t for _, t in splits[r * k : (r + 1) * k]])
            assert np.array_equal(np.sort(tests), np.arange(y.size))  # each repeat is a partition
        for train, test in splits:
            assert not set(groups[train]) & set(groups[test])
            assert np.array_equal(np.union1d(train, test), np.arange(y.size))


def test_repeated_stratified_group_kfold_repeats_differ_and_match_the_base_splitter_per_repeat():
    y, groups = _grouped_problem(1, 40)
    splits = list(RepeatedStratifiedGroupKFold(n_splits=3, n_repeats=2, random_state=0).split(y=y, groups=groups))
    first, second = [t for _, t in splits[:3]], [t for _, t in splits[3:]]
    assert any(not np.array_equal(a, b) for a, b in zip(first, second))
    rng = np.random.default_rng(0)
    base = list(StratifiedGroupKFold(3, shuffle=True)._iter_indices(y.size, y, groups, rng))
    assert all(np.array_equal(a, t) for a, (_, t) in zip(first, base))


@given(seed=st.integers(0, 10_000), n_groups=st.integers(3, 40))
def test_group_shuffle_split_draws_whole_groups(seed, n_groups):
    y, groups = _grouped_problem(seed, n_groups)
    for train, test in GroupShuffleSplit(4, test_size=0.25, random_state=seed).split(y=y, groups=groups):
        assert not set(groups[train]) & set(groups[test])
        assert np.unique(groups[test]).size == int(np.ceil(0.25 * n_groups))
        assert np.array_equal(np.union1d(train, test), np.arange(y.size))  # train_size defaults to the rest


def test_group_bootstrap_resamples_whole_groups_with_replacement():
    y, groups = _grouped_problem(3, 200)
    oob_group_fraction = []
    for train, test in GroupBootstrap(50, random_state=0).split(y=y, groups=groups):
        assert not set(groups[train]) & set(groups[test])
        drawn = np.unique(groups[train])
        # in-bag rows of a drawn group come as whole copies of the group
        counts = np.bincount(train, minlength=y.size)
        for g in drawn[:10]:
            assert np.unique(counts[groups == g]).size == 1 and counts[groups == g][0] >= 1
        assert set(groups[test]) == set(np.unique(groups)) - set(drawn)
        assert np.unique(groups[train]).size + np.unique(groups[test]).size == 200
        oob_group_fraction.append(np.unique(groups[test]).size / 200)
    # the OOB fraction of groups is the bootstrap's (1 - 1/G)^G ~ 0.366 for G = 200; sd per draw ~ 0.034
    assert abs(np.mean(oob_group_fraction) - (1 - 1 / 200) ** 200) < 0.02


def test_grouped_resampling_splitters_need_groups():
    for splitter in (RepeatedGroupKFold(), RepeatedStratifiedGroupKFold(), GroupShuffleSplit(), GroupBootstrap()):
        with pytest.raises(ValueError, match="needs groups"):
            list(splitter.split(y=np.tile([0, 1], 10)))


# ---- property tests: shuffle-split, bootstrap, LOOCV ----


def _sorted_unique_int64(idx):
    assert idx.dtype == np.int64 and np.all(np.diff(idx) > 0)


@st.composite
def hold_out_sizes(draw, n):
    """(test_size, train_size, expected n_test, expected n_train) for n items: fractions or counts, train optional."""
    if draw(st.booleans()):
        test_size = draw(st.floats(0.01, 0.99))
        n_test = int(np.ceil(test_size * n))
    else:
        test_size = n_test = draw(st.integers(1, n - 1))
    if n_test >= n or draw(st.booleans()):
        return test_size, None, n_test, n - n_test
    n_train = draw(st.integers(1, n - n_test))
    return test_size, n_train, n_test, n_train


@PROPS
@given(n=st.integers(2, 150), data=st.data(), n_splits=st.integers(1, 5), seed=st.integers(0, 2**31))
def test_shuffle_split_sizes_and_disjointness(n, data, n_splits, seed):
    test_size, train_size, n_test, n_train = data.draw(hold_out_sizes(n))
    if n_test >= n:  # a fraction close to 1 leaves no training row: refused
        with pytest.raises(ValueError, match=rf"give 0 train and {n} test rows out of {n}; both must be >= 1"):
            list(ShuffleSplit(n_splits, test_size=test_size, random_state=seed).split(np.zeros(n)))
        return
    splits = list(
        ShuffleSplit(n_splits, test_size=test_size, train_size=train_size, random_state=seed).split(np.zeros(n))
    )
    assert len(splits) == n_splits
    for train, test in splits:
        _sorted_unique_int64(train)
        _sorted_unique_int64(test)
        assert (test.size, train.size) == (n_test, n_train)
        assert np.intersect1d(train, test).size == 0 and train.max(initial=0) < n and test.max() < n


@PROPS
@given(seed=st.integers(0, 10_000), n_groups=st.integers(3, 40), data=st.data())
def test_group_shuffle_split_sizes_count_groups_and_never_share_one(seed, n_groups, data):
    y, groups = _grouped_problem(seed, n_groups)
    test_size, train_size, n_test, n_train = data.draw(hold_out_sizes(n_groups))
    splitter = GroupShuffleSplit(3, test_size=test_size, train_size=train_size, random_state=seed)
    if n_test >= n_groups:  # a fraction close to 1 leaves no training group: refused
        with pytest.raises(ValueError, match=rf"give 0 train and {n_groups} test rows out of {n_groups}; both must"):
            list(splitter.split(y=y, groups=groups))
        return
    for train, test in splitter.split(y=y, groups=groups):
        _sorted_unique_int64(train)
        _sorted_unique_int64(test)
        assert np.unique(groups[test]).size == n_test and np.unique(groups[train]).size == n_train
        assert not set(groups[train]) & set(groups[test])
        # whole groups: every row of a drawn group is on its side
        assert np.array_equal(test, np.flatnonzero(np.isin(groups, groups[test])))
        assert np.array_equal(train, np.flatnonzero(np.isin(groups, groups[train])))


@PROPS
@given(n=st.integers(1, 120), b=st.integers(1, 5), seed=st.integers(0, 2**31))
def test_bootstrap_oob_is_the_complement_of_the_drawn_rows(n, b, seed):
    splits = list(Bootstrap(b, random_state=seed).split(np.zeros(n)))
    assert len(splits) == b
    for train, test in splits:
        assert train.dtype == np.int64 and train.size == n and np.all(np.diff(train) >= 0)  # n draws, repeats kept
        assert train.min() >= 0 and train.max() < n
        _sorted_unique_int64(test)
        assert np.array_equal(test, np.setdiff1d(np.arange(n), train))


@PROPS
@given(seed=st.integers(0, 10_000), n_groups=st.integers(2, 40), b=st.integers(1, 4))
def test_group_bootstrap_draws_n_groups_whole_and_oob_is_the_undrawn_groups(seed, n_groups, b):
    y, groups = _grouped_problem(seed, n_groups)
    for train, test in GroupBootstrap(b, random_state=seed).split(y=y, groups=groups):
        assert not set(groups[train]) & set(groups[test])
        _sorted_unique_int64(test)
        copies = np.bincount(train, minlength=y.size)
        # a drawn group's rows all come the same number of times; the draws add up to n_groups groups
        per_group = {g: np.unique(copies[groups == g]) for g in np.unique(groups)}
        assert all(c.size == 1 for c in per_group.values())
        assert sum(int(c[0]) for c in per_group.values()) == n_groups
        assert np.array_equal(test, np.flatnonzero(copies == 0))


@PROPS
@given(n=st.integers(2, 60))
def test_leave_one_out_validates_each_row_once_alone(n):
    splits = list(LeaveOneOut().split(np.zeros((n, 2))))
    assert len(splits) == n == LeaveOneOut().get_n_splits(np.zeros(n))
    _check_partition(splits, n)
    for i, (train, test) in enumerate(splits):
        assert test.tolist() == [i] and train.size == n - 1
