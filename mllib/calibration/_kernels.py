"""Compiled pool-adjacent-violators (numba): the walk visits the rows one at a time and pools leftwards, a loop numpy
cannot vectorise; in Python it was most of the calibrate stage (12.8M out-of-fold rows: ~40 s of the stage's 140).
The arithmetic is the Python loop's, operation for operation (no fastmath), so the fits are equal to the bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def pooled_blocks(y, w):
    """The PAV walk over y in order with positive weights w: the blocks' weighted means and first rows, in order.
    Each row enters as its own block and pools leftwards while the block before it is not strictly below it."""
    n = y.shape[0]
    means = np.empty(n)
    weights = np.empty(n)
    starts = np.empty(n, dtype=np.int64)
    top = 0  # the number of blocks on the stack
    for i in range(n):
        mean, weight, start = y[i], w[i], i
        while top > 0 and means[top - 1] >= mean:
            top -= 1
            total = weights[top] + weight
            mean = (weights[top] * means[top] + weight * mean) / total
            weight, start = total, starts[top]
        means[top], weights[top], starts[top] = mean, weight, start
        top += 1
    return means[:top], starts[:top]
