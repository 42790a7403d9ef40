"""James-Stein shrinkage of a mean vector.

Seed 000, lines 2081-2110 (line 2096 corrected per catalogue erratum 11): for an estimate mu_hat of a mean in
n >= 3 dimensions whose coordinates have variance sigma2 (sigma^2 / N when mu_hat averages N samples),
mu_JS = (1 - (n - 2) sigma2 / ||mu_hat||^2) mu_hat is biased but has a lower expected squared error than mu_hat.
The positive-part variant clips the factor at 0 (it never flips the sign of mu_hat) and is better still.
"""

from __future__ import annotations

import numpy as np

from ..base import check_array, checked_arguments
from ..base.constraints import POSITIVE_FINITE


@checked_arguments(sigma2=POSITIVE_FINITE)  # the variance of each coordinate of mu_hat
def james_stein(mu_hat, sigma2: float, positive_part: bool = False) -> np.ndarray:
    """mu_hat shrunk towards 0 by the James-Stein factor 1 - (n - 2) sigma2 / ||mu_hat||^2."""
    mu_hat = check_array(mu_hat, ndim=1, name="mu_hat")
    if mu_hat.size < 3:
        raise ValueError("mu_hat must have dimension >= 3 (James-Stein needs n >= 3)")
    norm2 = float(mu_hat @ mu_hat)
    if norm2 == 0.0:
        return mu_hat.copy()
    factor = 1.0 - (mu_hat.size - 2) * sigma2 / norm2
    return (max(factor, 0.0) if positive_part else factor) * mu_hat
