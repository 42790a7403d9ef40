"""Rows held in blocks, for fits that need only sums over the rows: the loss, gradient and Hessian of a generalised
linear model at each Newton step, or a Gram matrix X^T X and X^T y. A block is a tuple (X, y, sample_weight or None)
of the same rows. `map(fn, *args)` returns [fn(block, *args) for each block] in block order, `each(fn, *args)` yields
them in block order one at a time (for results as large as the rows: the caller copies each into place and lets it
go, never holding them twice), and `transform(fn, *args)` returns the blocks replaced by fn(block, *args), held where
they are. RowBlocks holds them in this process; a cluster's version (pipeline/core/partitions.py) holds them on its
workers with the same three methods, so a model's code is the same wherever its rows are, and only sums (a p x p
matrix per block) travel."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Blocks(Protocol):
    """What a fit from blocks reads: RowBlocks here, pipeline/core/partitions.py's blocks on a cluster."""

    def map(self, fn: Callable, *args) -> list: ...

    def each(self, fn: Callable, *args) -> Iterator: ...

    def transform(self, fn: Callable, *args) -> Blocks: ...


class RowBlocks:
    """Blocks of rows in this process."""

    def __init__(self, blocks):
        self.blocks = list(blocks)
        if not self.blocks:
            raise ValueError("RowBlocks needs at least one block of rows")

    @classmethod
    def of(cls, X, y, sample_weight=None, n_blocks: int = 1) -> RowBlocks:
        """X, y (and weights) cut into n_blocks blocks of consecutive rows."""
        bounds = np.linspace(0, len(y), n_blocks + 1).astype(int)
        return cls(
            (X[a:b], y[a:b], None if sample_weight is None else sample_weight[a:b])
            for a, b in zip(bounds[:-1], bounds[1:])
        )

    def map(self, fn: Callable, *args) -> list:
        return [fn(block, *args) for block in self.blocks]

    def each(self, fn: Callable, *args) -> Iterator[Any]:
        return (fn(block, *args) for block in self.blocks)

    def transform(self, fn: Callable, *args) -> RowBlocks:
        return RowBlocks(fn(block, *args) for block in self.blocks)


def common_width(widths: list[int]) -> int:
    """The number of columns every block's X has."""
    if len(set(widths)) != 1:
        raise ValueError(f"the blocks' X have different numbers of columns {sorted(set(widths))}")
    return widths[0]


def summed(results: list):
    """Block results added in block order: each a number, an array, or a tuple of them (added element by element)."""
    total = results[0]
    for result in results[1:]:
        total = tuple(a + b for a, b in zip(total, result)) if isinstance(total, tuple) else total + result
    return total
