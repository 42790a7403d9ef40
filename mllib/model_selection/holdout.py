"""Hold-out splits: the test set is cut first and touched once (seed 004, D4:170, 200, 543; D3:43-53).

Rule: grouped when groups are given (no group on both sides, D4:505-512 -- the hospital example:
440 rows, 8 hospitals, 3 train / 2 validation / 3 test hospitals), stratified by class when y is given.

A grouped test set is a probability sample of groups: every group enters it with probability test_size.
Searching group assignments for the best class balance (as k-fold's `stratified_group_assignment` does)
would pick test groups *for their labels*: on the default data it filled the test set with persons whose
years mix both classes, the hardest to predict, and lowered test AUC by ~0.02 on average over seeds. Here
groups are ordered by label composition (class shares, then size; random order among equals) and sampled
systematically with a random start, which stratifies implicitly without selecting on labels.

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Introduction (43)
- Ghent ML notes (seed 004): 1.4 Evaluating Models and Conditions for Generalization (170); 3.3 Risks of Data
  Splitting and IID Assumption Fulfillment (505)"""

from __future__ import annotations

import numpy as np

from mllib.base import GroupLabels, check_random_state, to_python

from ._checks import check_enough, check_no_group_overlap, column, encode, num_samples, part_size

__all__ = ["train_test_split_indices", "split_groups"]


def _largest_remainder(counts: np.ndarray, total: int) -> np.ndarray:
    """Integer quotas proportional to counts that sum to total (largest-remainder rounding)."""
    exact = counts * total / counts.sum()
    quota = np.floor(exact).astype(np.int64)
    short = total - quota.sum()
    quota[np.argsort(-(exact - quota), kind="stable")[:short]] += 1
    return quota


def _systematic_group_sample(codes, n_groups: int, y_codes, t: float, rng, shuffle: bool) -> np.ndarray:
    """Boolean per group: in the test set. Groups ordered by (class shares if y_codes is given, size, random
    tie order), then every 1/t-th group from a random start: each group's inclusion probability is t."""
    sizes = np.bincount(codes, minlength=n_groups)
    tie_order = rng.permutation(n_groups) if shuffle else np.arange(n_groups)
    keys = [tie_order, sizes]
    if y_codes is not None:
        counts = np.zeros((n_groups, int(y_codes.max()) + 1))
        np.add.at(counts, (codes, y_codes), 1)
        keys += list((counts / sizes[:, None]).T[::-1])  # lexsort's last key is the primary one
    order = np.lexsort(keys)
    start = rng.uniform() if shuffle else 0.0
    position = np.empty(n_groups)
    position[order] = np.arange(n_groups)
    # group i is drawn when the running total start + t * position crosses an integer
    return np.floor(start + t * (position + 1)) > np.floor(start + t * position)


def train_test_split_indices(
    n_samples=None, *, y=None, groups=None, test_size=0.2, stratify=True, shuffle=True, random_state=None
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted int64 (train_idx, test_idx) for a hold-out test set.

    - no groups, no stratification: ceil(test_size * n) rows (random, or the last rows if shuffle=False);
    - stratified (stratify and y given): each class contributes its largest-remainder share of
      ceil(test_size * n) test rows; every class needs >= 2 rows;
    - grouped (groups given): whole groups, each with inclusion probability test_size, sampled systematically
      along the groups ordered by size (and by class shares when stratified); test rows ~ test_size * n;
      shuffle=False uses the first-appearance order and a zero start (deterministic).
    n_samples may be omitted when y or groups is given.
    """
    n = num_samples(None, y, groups) if n_samples is None else int(n_samples)
    if y is not None:
        y = column(y, "y", n)
    if groups is not None:
        groups = column(groups, "groups", n)
    check_enough(n, 2, "rows", "a train/test split", "use more data")
    t = part_size(test_size, n, "test_size")
    rng = check_random_state(random_state)
    stratified = bool(stratify) and y is not None
    if groups is not None:
        values, codes = encode(groups)
        check_enough(values.size, 2, "groups", "a grouped train/test split", "split by rows (no group column)")
        in_test = _systematic_group_sample(codes, values.size, encode(y)[1] if stratified else None, t, rng, shuffle)
        test = np.flatnonzero(in_test[codes])
        groups = GroupLabels(values, codes)
    else:
        n_test = int(np.ceil(t * n))
        if not 1 <= n_test <= n - 1:
            raise ValueError(f"test_size={test_size!r} gives {n_test} test rows out of {n}; need 1..{n - 1}")
        if stratified:
            classes, codes = encode(y)
            counts = np.bincount(codes)
            if counts.min() < 2:
                label = classes[int(np.argmin(counts))]
                raise ValueError(
                    f"class {to_python(label)!r} has only {int(counts.min())} row; a stratified hold-out needs "
                    ">= 2 rows per class; merge rare classes or pass stratify=False"
                )
            quota = _largest_remainder(counts, n_test)
            parts = []
            for c, q in enumerate(quota):
                rows = np.flatnonzero(codes == c)
                if shuffle:
                    rows = rng.permutation(rows)
                parts.append(rows[rows.size - q :])
            test = np.concatenate(parts)
        else:
            order = rng.permutation(n) if shuffle else np.arange(n)
            test = order[n - n_test :]
    mask = np.zeros(n, dtype=bool)
    mask[test] = True
    train, test = np.flatnonzero(~mask).astype(np.int64), np.flatnonzero(mask).astype(np.int64)
    if groups is not None:
        check_no_group_overlap(train, test, groups, splitter="train_test_split_indices")
    return train, test


def early_stopping_split(n_samples, *, y=None, groups=None, validation_fraction, random_state=None):
    """A model's early-stopping hold-out, sorted int64 (train_idx, valid_idx): train_test_split_indices stratified by
    y when given, whole groups when given; the rows of a class with a single row stay in the training part (one row
    cannot be on both sides, and a learning curve's quarter of a small file's fold leaves rare classes a row each)."""
    if y is None or groups is not None:
        return train_test_split_indices(
            n_samples, y=y, groups=groups, test_size=validation_fraction, stratify=y is not None,
            random_state=random_state,
        )  # fmt: skip
    _, codes = encode(column(y, "y", n_samples))
    single = np.bincount(codes)[codes] == 1
    if not single.any():
        return train_test_split_indices(
            n_samples, y=y, test_size=validation_fraction, stratify=True, random_state=random_state
        )
    rest = np.flatnonzero(~single)
    train, valid = train_test_split_indices(
        rest.size, y=codes[rest], test_size=validation_fraction, stratify=True, random_state=random_state
    )
    return np.sort(np.concatenate([rest[train], np.flatnonzero(single)])).astype(np.int64), rest[valid]


def split_groups(groups, n_groups_per_part, random_state=None) -> list[np.ndarray]:
    """Randomly assign whole groups to parts by group COUNT, e.g. (3, 2, 3) hospitals for train/val/test.

    Returns one sorted int64 row-index array per part; the counts must sum to the number of groups.
    """
    groups = column(groups, "groups")
    values, codes = encode(groups)
    counts = np.asarray(n_groups_per_part, dtype=np.int64)
    if counts.ndim != 1 or counts.size < 2 or (counts < 1).any() or counts.sum() != values.size:
        raise ValueError(
            f"n_groups_per_part={list(np.atleast_1d(n_groups_per_part))} must be >= 2 positive counts summing to "
            f"the number of groups ({values.size})"
        )
    rng = check_random_state(random_state)
    part_of_group = np.empty(values.size, dtype=np.int64)
    part_of_group[rng.permutation(values.size)] = np.repeat(np.arange(counts.size), counts)
    part = part_of_group[codes]
    return [np.flatnonzero(part == k).astype(np.int64) for k in range(counts.size)]
