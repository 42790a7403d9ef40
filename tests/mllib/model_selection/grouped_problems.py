"""Random grouped classification problems, shared by test_stratified_group.py and benchmarks/bench_splitters.py."""

import numpy as np


def make_problem(seed):
    """(y, groups, k): 8-60 groups of log-normal sizes, 2-4 imbalanced classes, group-specific class mixes
    (Dirichlet with random concentration), 3-5 folds; every class count >= k."""
    rng = np.random.default_rng(seed)
    while True:
        n_groups = int(rng.integers(8, 61))
        n_classes = int(rng.choice([2, 2, 3, 4]))
        k = int(rng.choice([3, 4, 5]))
        sizes = np.maximum(1, np.round(rng.lognormal(rng.uniform(0.5, 2.5), rng.uniform(0.2, 1.2), n_groups)))
        overall = rng.dirichlet(np.full(n_classes, rng.uniform(0.5, 3.0)))
        concentration = rng.uniform(0.3, 20.0)
        y = np.concatenate(
            [rng.choice(n_classes, size=int(s), p=rng.dirichlet(concentration * overall + 1e-2)) for s in sizes]
        )
        groups = np.repeat(np.arange(n_groups), sizes.astype(int))
        if np.bincount(y, minlength=n_classes).min() >= k:
            perm = rng.permutation(y.size)
            return y[perm], groups[perm], k
