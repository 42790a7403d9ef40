"""Hyperparameter candidates: an exhaustive grid or seeded random samples.

Rule: search a small grid, e.g. lambda in {1e-2, 1e-1, 1, 10, 100} for the SVM (seed 003, D3:334-338),
and tune few hyperparameters to avoid overfitting the validation set (seed 004, D4:567).

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Support Vector Machine (SVM) (334)
- Ghent ML notes (seed 004): 3.5 Analysis of Model Performance (567)"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from mllib.base import check_int, check_random_state

__all__ = ["ParameterGrid", "ParameterSampler"]


def _is_value_list(v) -> bool:
    return isinstance(v, (Sequence, np.ndarray)) and not isinstance(v, (str, bytes)) and len(v) > 0


def _as_grids(grid, what: str) -> list[dict]:
    grids = [grid] if isinstance(grid, Mapping) else list(grid)
    for g in grids:
        if not isinstance(g, Mapping):
            raise ValueError(f"{what} must be a dict of parameter -> values (or a list of such dicts), got {g!r}")
    return grids


class ParameterGrid:
    """All combinations of a dict {param: list of values} (or a list of such dicts), as dicts.

    Order is deterministic: keys sorted, values in the given order, the last key varying fastest.
    An empty dict yields one empty candidate.
    """

    def __init__(self, grid):
        self.grid = grid
        self._grids = []
        for g in _as_grids(grid, "param_grid"):
            keys = sorted(g)
            for k in keys:
                if not _is_value_list(g[k]):
                    raise ValueError(
                        f"param_grid[{k!r}] must be a non-empty list of values, got {g[k]!r}; "
                        "wrap a single value in a list"
                    )
            self._grids.append((keys, [list(g[k]) for k in keys]))

    def __iter__(self):
        for keys, values in self._grids:
            for combo in itertools.product(*values):
                yield dict(zip(keys, combo))

    def __len__(self) -> int:
        return sum(int(np.prod([len(v) for v in values])) for _, values in self._grids)

    def __getitem__(self, i: int) -> dict:
        if not -len(self) <= i < len(self):
            raise IndexError(f"ParameterGrid index {i} out of range for {len(self)} candidates")
        i %= len(self)
        for keys, values in self._grids:
            size = int(np.prod([len(v) for v in values]))
            if i < size:
                out = {}
                for k, v in zip(reversed(keys), reversed(values)):
                    i, r = divmod(i, len(v))
                    out[k] = v[r]
                return dict(sorted(out.items()))
            i -= size
        raise AssertionError("unreachable")


def _to_python(v):
    return v.item() if isinstance(v, np.generic) else v


class ParameterSampler:
    """n_iter random candidates: lists are sampled uniformly, scipy.stats frozen distributions via
    `.rvs(random_state=generator)`. If every value is a list, candidates are drawn from the grid without
    replacement (at most len(grid), with a warning when n_iter is larger). Keys are visited sorted,
    so a seed fixes the candidates.
    """

    def __init__(self, distributions, n_iter, random_state=None):
        self.distributions = distributions
        self.n_iter = n_iter
        self.random_state = random_state
        self._grids = _as_grids(distributions, "param_distributions")
        for g in self._grids:
            for k, v in g.items():
                if not (hasattr(v, "rvs") or _is_value_list(v)):
                    raise ValueError(
                        f"param_distributions[{k!r}] must be a non-empty list or a scipy.stats frozen "
                        f"distribution, got {v!r}"
                    )
        check_int(n_iter, "n_iter")
        self._all_lists = all(not hasattr(v, "rvs") for g in self._grids for v in g.values())

    def __len__(self) -> int:
        if self._all_lists:
            return min(int(self.n_iter), len(ParameterGrid(self._grids)))
        return int(self.n_iter)

    def __iter__(self):
        rng = check_random_state(self.random_state)
        if self._all_lists:
            grid = ParameterGrid(self._grids)
            if self.n_iter > len(grid):
                warnings.warn(
                    f"n_iter={self.n_iter} exceeds the {len(grid)} grid candidates; sampling all of them",
                    UserWarning,
                    stacklevel=2,
                )
            for i in rng.choice(len(grid), size=len(self), replace=False):
                yield grid[int(i)]
            return
        for _ in range(int(self.n_iter)):
            g = self._grids[int(rng.integers(len(self._grids)))] if len(self._grids) > 1 else self._grids[0]
            out = {}
            for k in sorted(g):
                v = g[k]
                out[k] = _to_python(v.rvs(random_state=rng)) if hasattr(v, "rvs") else v[int(rng.integers(len(v)))]
            yield out
