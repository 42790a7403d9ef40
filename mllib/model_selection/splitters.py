"""Row, stratified and grouped cross-validation splitters, LOOCV, repeated splits and the bootstrap.

Rule: train k times, each time validating on a different fold; shuffle with a seed first; grouped
CV keeps every group on one side (n_folds <= n_groups), stratified CV keeps class proportions
(n_folds <= smallest class count); LOOCV is k = n (seed 004, D4:518-554; seed 003, D3:333-347).

Every `split` yields sorted int64 (train_idx, test_idx) pairs and, whenever `groups` is passed,
raises if a group appears on both sides (`check_no_group_overlap`), also for row-level splitters,
so a KFold given groups tells you it leaks them. Randomness comes only from
`check_random_state(random_state)`, created afresh at each `split` call: an int seed gives identical
splits on every call; a Generator is consumed; None is not reproducible.

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Support Vector Machine (SVM) (333, 341, 344)
- Ghent ML notes (seed 004): 3.3 Risks of Data Splitting and IID Assumption Fulfillment (509); 3.4 Robust Validation
  Strategies (518, 545, 546, 548, 554)"""

from __future__ import annotations

import numpy as np

from mllib.base import BaseEstimator, GroupLabels, check_int, check_random_state, to_python

from ._checks import check_enough, check_no_group_overlap, column, encode, num_samples, part_size

__all__ = [
    "KFold",
    "StratifiedKFold",
    "GroupKFold",
    "LeaveOneOut",
    "LeaveOneGroupOut",
    "RepeatedKFold",
    "RepeatedStratifiedKFold",
    "RepeatedGroupKFold",
    "ShuffleSplit",
    "GroupShuffleSplit",
    "Bootstrap",
    "GroupBootstrap",
    "fold_assignment",
]


class BaseSplitter(BaseEstimator):
    """Common `split` driver: validates inputs, sorts indices, runs the group-leakage guard.

    Subclasses whose validation folds partition the rows implement `_fold_ids(n, y, groups, rng)`
    (one fold id per row, 0..k-1); the others implement `_iter_indices(n, y, groups, rng)`.
    """

    _partitions = True  # validation folds partition the rows (fold_assignment is defined)
    _needs_y = False
    _needs_groups = False

    def _rng(self):
        return check_random_state(getattr(self, "random_state", None))

    def _inputs(self, X, y, groups):
        n = num_samples(X, y, groups)
        y = None if y is None else column(y, "y", n)
        groups = None if groups is None else column(groups, "groups", n)
        name = type(self).__name__
        if self._needs_y and y is None:
            raise ValueError(f"{name} stratifies by class: pass y (the class label of each row) to split()")
        if self._needs_groups and groups is None:
            raise ValueError(
                f"{name} needs groups: pass the group id of each row (e.g. patient or hospital id) to split(), "
                "or use a row-level splitter such as KFold / StratifiedKFold"
            )
        return n, y, groups

    def _iter_indices(self, n, y, groups, rng):
        fold = self._fold_ids(n, y, groups, rng)
        order = np.argsort(fold, kind="stable")
        bounds = np.searchsorted(fold[order], np.arange(fold.max() + 2))
        for k in range(fold.max() + 1):
            test = order[bounds[k] : bounds[k + 1]]
            mask = np.ones(n, dtype=bool)
            mask[test] = False
            yield np.flatnonzero(mask), test

    def split(self, X=None, y=None, groups=None):
        """Yield (train_idx, test_idx) as sorted int64 arrays."""
        n, y, groups = self._inputs(X, y, groups)
        name = type(self).__name__
        labels = None if groups is None else GroupLabels.of(groups)  # encoded once for every split's check
        for train, test in self._iter_indices(n, y, groups, self._rng()):
            train = np.sort(np.asarray(train, dtype=np.int64))
            test = np.sort(np.asarray(test, dtype=np.int64))
            if labels is not None:
                check_no_group_overlap(train, test, labels, splitter=name)
            yield train, test

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        return int(self.n_splits)


def _kfold_ids(n: int, k: int, order: np.ndarray) -> np.ndarray:
    """Fold id per row: the rows in `order` are cut into k consecutive blocks (sizes differ by <= 1)."""
    sizes = np.full(k, n // k)
    sizes[: n % k] += 1
    fold = np.empty(n, dtype=np.int64)
    fold[order] = np.repeat(np.arange(k), sizes)
    return fold


class KFoldFamily(BaseSplitter):
    """The k-fold splitters' shared hyperparameters: k folds, optionally shuffled with a seed."""

    def __init__(self, n_splits=5, shuffle=False, random_state=None):
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state


class KFold(KFoldFamily):
    """k consecutive folds (sizes differ by at most 1); shuffle=True permutes the rows first (D3:341). With
    shuffle=False the folds equal sklearn's KFold(shuffle=False).

    Parameters
    ----------
    n_splits : int, default 5
        Number of folds k.
    shuffle : bool, default False
        Permute the rows before cutting the folds.
    random_state : int, Generator or None, default None
        Seeds the shuffle (ignored when shuffle is False).
    """

    def _fold_ids(self, n, y, groups, rng):
        k = check_int(self.n_splits, "n_splits", 2)
        check_enough(n, k, "rows", f"n_splits={k}", "lower split.n_splits (LeaveOneOut is k = n)")
        order = rng.permutation(n) if self.shuffle else np.arange(n)
        return _kfold_ids(n, k, order)


def _first_appearance_codes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(labels ordered by first appearance, code per row) -- sklearn's class order for StratifiedKFold."""
    values, first, inv = np.unique(y, return_index=True, return_inverse=True)
    rank = np.argsort(np.argsort(first, kind="stable"), kind="stable")
    return values[np.argsort(rank)], rank[inv.reshape(-1)]


def check_min_class_count(k: int, y: np.ndarray, name: str) -> None:
    values, codes = encode(y)
    counts = np.bincount(codes)
    c = int(counts.min())
    if k > c:
        label = values[int(np.argmin(counts))]
        raise ValueError(
            f"{name}: n_splits={k} but class {to_python(label)!r} has only {c} "
            f"row(s), so some fold would miss it; lower split.n_splits to <= {c}, merge rare classes, "
            "or use a non-stratified splitter"
        )


class StratifiedKFold(KFoldFamily):
    """k folds with the class proportions of y: each fold holds floor(c/k) or ceil(c/k) rows of a class with c rows
    (D4:546). Requires n_splits <= smallest class count (raises otherwise; sklearn only warns). With shuffle=False the
    folds equal sklearn's StratifiedKFold(shuffle=False).

    Parameters
    ----------
    n_splits : int, default 5
        Number of folds k.
    shuffle : bool, default False
        Assign each class's rows to the folds at random (same fold sizes); False keeps the order of the rows.
    random_state : int, Generator or None, default None
        Seeds the shuffle (ignored when shuffle is False).
    """

    _needs_y = True

    def _fold_ids(self, n, y, groups, rng):
        k = check_int(self.n_splits, "n_splits", 2)
        check_min_class_count(k, y, type(self).__name__)
        _, codes = _first_appearance_codes(y)
        n_classes = int(codes.max()) + 1
        # Deal the class-sorted rows round-robin into k folds: class c gets floor/ceil(c/k) per fold
        # and fold totals differ by at most one.
        y_sorted = np.sort(codes)
        allocation = np.stack([np.bincount(y_sorted[i::k], minlength=n_classes) for i in range(k)])
        fold = np.empty(n, dtype=np.int64)
        for c in range(n_classes):
            folds_for_class = np.repeat(np.arange(k), allocation[:, c])
            if self.shuffle:
                folds_for_class = rng.permutation(folds_for_class)
            fold[codes == c] = folds_for_class
        return fold


def lightest_fold_assignment(sizes: np.ndarray, fractions: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Fold per group: groups taken in `order`, each to the fold least filled relative to its target share.

    With all fractions equal this is 'the currently lightest fold' (sklearn's GroupKFold rule).
    """
    fractions = np.asarray(fractions, dtype=np.float64)
    fill = np.zeros(fractions.size)
    fold = np.empty(sizes.size, dtype=np.int64)
    for g in order:
        f = int(np.argmin(fill / fractions))
        fold[g] = f
        fill[f] += sizes[g]
    return fold


def check_n_groups(k: int, n_groups: int, name: str) -> None:
    fix = f"lower split.n_splits to <= {n_groups} or use a different strategy (e.g. LeaveOneGroupOut)"
    check_enough(n_groups, k, "groups", f"{name}: n_splits={k}", fix)


class GroupKFold(KFoldFamily):
    """k folds of whole groups (independence, D4:545); requires n_splits <= n_groups.

    Parameters
    ----------
    n_splits : int, default 5
        Number of folds k.
    shuffle : bool, default False
        False: groups by decreasing size, each to the lightest fold (equals sklearn's GroupKFold(shuffle=False) when
        group sizes are distinct). True: groups in a seeded random order, each to the lightest fold, so folds are random
        but fold sizes stay within one group size.
    random_state : int, Generator or None, default None
        Seeds the shuffle (ignored when shuffle is False).
    """

    _needs_groups = True

    def _fold_ids(self, n, y, groups, rng):
        k = check_int(self.n_splits, "n_splits", 2)
        values, codes = encode(groups)
        check_n_groups(k, values.size, type(self).__name__)
        sizes = np.bincount(codes)
        order = rng.permutation(values.size) if self.shuffle else np.argsort(sizes)[::-1]
        return lightest_fold_assignment(sizes, np.ones(k), order)[codes]


class LeaveOneOut(BaseSplitter):
    """n folds, each validating on a single row (LOOCV, D4:554; D3:344-345); k-fold with k = n."""

    def __init__(self):
        pass

    def _fold_ids(self, n, y, groups, rng):
        check_enough(n, 2, "rows", "LeaveOneOut", "use a hold-out or more data")
        return np.arange(n, dtype=np.int64)

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        return num_samples(X, y, groups)


class LeaveOneGroupOut(BaseSplitter):
    """One fold per group (in sorted group-id order): validate on one group, train on the rest."""

    _needs_groups = True

    def __init__(self):
        pass

    def _fold_ids(self, n, y, groups, rng):
        values, codes = encode(groups)
        check_enough(values.size, 2, "groups", "LeaveOneGroupOut", "use a row-level splitter")
        return codes

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        if groups is None:
            raise ValueError("LeaveOneGroupOut.get_n_splits needs groups (one fold per group)")
        return int(np.unique(column(groups, "groups")).size)


class RepeatedKFold(BaseSplitter):
    """n_repeats independent shuffled KFold runs (n_splits * n_repeats splits); folds do not partition rows.

    Parameters
    ----------
    n_splits : int, default 5
        Folds per repeat.
    n_repeats : int, default 10
        Number of repeats.
    random_state : int, Generator or None, default None
        Seeds the repeats (each its own shuffle).
    """

    _partitions = False
    _base = KFold

    def __init__(self, n_splits=5, n_repeats=10, random_state=None):
        self.n_splits = n_splits
        self.n_repeats = n_repeats
        self.random_state = random_state

    def _iter_indices(self, n, y, groups, rng):
        check_int(self.n_repeats, "n_repeats")
        base = self._base(n_splits=self.n_splits, shuffle=True)
        for _ in range(self.n_repeats):
            yield from base._iter_indices(n, y, groups, rng)

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        return int(self.n_splits) * int(self.n_repeats)


class RepeatedStratifiedKFold(RepeatedKFold):
    """n_repeats independent shuffled StratifiedKFold runs.

    Parameters
    ----------
    n_splits : int, default 5
        Folds per repeat.
    n_repeats : int, default 10
        Number of repeats.
    random_state : int, Generator or None, default None
        Seeds the repeats (each its own shuffle).
    """

    _base = StratifiedKFold
    _needs_y = True


class RepeatedGroupKFold(RepeatedKFold):
    """n_repeats independent shuffled GroupKFold runs: every repeat keeps each group on one side.

    Parameters
    ----------
    n_splits : int, default 5
        Folds per repeat.
    n_repeats : int, default 10
        Number of repeats.
    random_state : int, Generator or None, default None
        Seeds the repeats (each its own shuffle).
    """

    _base = GroupKFold
    _needs_groups = True


def _split_sizes(n: int, test_size, train_size) -> tuple[int, int]:
    def absolute(size, name, rounding):
        fraction = part_size(size, n, name)
        return int(size) if isinstance(size, (int, np.integer)) else int(rounding(fraction * n))

    n_test = absolute(test_size, "test_size", np.ceil)
    n_train = n - n_test if train_size is None else absolute(train_size, "train_size", np.floor)
    if n_test < 1 or n_train < 1 or n_train + n_test > n:
        raise ValueError(
            f"test_size={test_size!r} and train_size={train_size!r} give {n_train} train and {n_test} test rows "
            f"out of {n}; both must be >= 1 and fit in the data"
        )
    return n_train, n_test


class ShuffleSplit(BaseSplitter):
    """Repeated random hold-out (Monte-Carlo CV): n_splits independent train/test draws of rows (D4:548).

    Parameters
    ----------
    n_splits : int, default 10
        Number of independent draws.
    test_size : float or int, default 0.1
        Test part: a fraction (rounded up) or a count.
    train_size : float, int or None, default None
        Training part, likewise (None: the complement of the test part).
    random_state : int, Generator or None, default None
        Seeds the draws.
    """

    _partitions = False

    def __init__(self, n_splits=10, test_size=0.1, train_size=None, random_state=None):
        self.n_splits = n_splits
        self.test_size = test_size
        self.train_size = train_size
        self.random_state = random_state

    def _iter_indices(self, n, y, groups, rng):
        k = check_int(self.n_splits, "n_splits")
        n_train, n_test = _split_sizes(n, self.test_size, self.train_size)
        for _ in range(k):
            perm = rng.permutation(n)
            yield perm[n_test : n_test + n_train], perm[:n_test]


class GroupShuffleSplit(ShuffleSplit):
    """Repeated random hold-out of whole groups: test_size / train_size count groups, not rows (D4:509, 548).

    Parameters
    ----------
    n_splits : int, default 10
        Number of independent draws.
    test_size : float or int, default 0.1
        Test part: a fraction (rounded up) or a count.
    train_size : float, int or None, default None
        Training part, likewise (None: the complement of the test part).
    random_state : int, Generator or None, default None
        Seeds the draws.
    """

    _needs_groups = True

    def _iter_indices(self, n, y, groups, rng):
        k = check_int(self.n_splits, "n_splits")
        _, codes = encode(groups)
        n_groups = int(codes.max()) + 1
        n_train, n_test = _split_sizes(n_groups, self.test_size, self.train_size)
        for _ in range(k):
            perm = rng.permutation(n_groups)
            yield (
                np.flatnonzero(np.isin(codes, perm[n_test : n_test + n_train])),
                np.flatnonzero(np.isin(codes, perm[:n_test])),
            )


class Bootstrap(BaseSplitter):
    """n_bootstraps draws of n rows with replacement: train = in-bag rows WITH repetition (sorted), test = out-of-bag
    rows. Expected in-bag unique fraction 1 - (1 - 1/n)^n (0.651322 for n = 10, -> 1 - 1/e = 0.632 for large n), so
    OOB -> 0.368 (D4:548, 1548, 1741). For tiny n the OOB set can be empty; it is yielded as an empty array.
    Row-level: passing groups raises (a group's rows land in-bag and out-of-bag); resample whole groups with
    GroupBootstrap.

    Parameters
    ----------
    n_bootstraps : int, default 100
        Number of bootstrap draws.
    random_state : int, Generator or None, default None
        Seeds the draws.
    """

    _partitions = False

    def __init__(self, n_bootstraps=100, random_state=None):
        self.n_bootstraps = n_bootstraps
        self.random_state = random_state

    def _iter_indices(self, n, y, groups, rng):
        b = check_int(self.n_bootstraps, "n_bootstraps")
        for _ in range(b):
            in_bag = rng.integers(0, n, size=n)
            yield in_bag, np.flatnonzero(np.bincount(in_bag, minlength=n) == 0)

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        return int(self.n_bootstraps)


class GroupBootstrap(Bootstrap):
    """Cluster bootstrap: draw n_groups groups with replacement; in-bag = every row of each drawn group, repeated as
    often as the group was drawn; out-of-bag = the rows of groups never drawn. Resampling whole groups keeps one
    person's rows on one side, as the rows of a group are not independent draws.

    Parameters
    ----------
    n_bootstraps : int, default 100
        Number of bootstrap draws.
    random_state : int, Generator or None, default None
        Seeds the draws.
    """

    _needs_groups = True

    def _iter_indices(self, n, y, groups, rng):
        b = check_int(self.n_bootstraps, "n_bootstraps")
        _, codes = encode(groups)
        n_groups = int(codes.max()) + 1
        for _ in range(b):
            draws = np.bincount(rng.integers(0, n_groups, size=n_groups), minlength=n_groups)
            yield np.repeat(np.arange(n), draws[codes]), np.flatnonzero(draws[codes] == 0)


def fold_assignment(splitter, y=None, groups=None) -> np.ndarray:
    """Validation-fold id (0..k-1, in split order) of every row, for splitters whose folds partition the rows.

    Works for KFold, StratifiedKFold, GroupKFold, StratifiedGroupKFold, LeaveOneOut, LeaveOneGroupOut
    and any foreign splitter whose test folds partition the rows; raises ValueError otherwise.
    """
    name = type(splitter).__name__
    if not getattr(splitter, "_partitions", True):
        raise ValueError(
            f"{name} validation folds do not partition the rows (rows are validated several times or never), "
            "so there is no single fold per row; use KFold, StratifiedKFold, GroupKFold, StratifiedGroupKFold, "
            "LeaveOneOut or LeaveOneGroupOut"
        )
    n = num_samples(None, y, groups)
    fold = np.full(n, -1, dtype=np.int64)
    for k, (_, test) in enumerate(splitter.split(np.zeros((n, 1)), y, groups)):
        if (fold[test] != -1).any():
            raise ValueError(f"{name} validates some rows in more than one fold; its folds do not partition the rows")
        fold[test] = k
    if (fold == -1).any():
        raise ValueError(f"{name} never validates {int((fold == -1).sum())} rows; its folds do not partition the rows")
    return fold
