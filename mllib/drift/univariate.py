"""Two-sample tests of one column: is the current sample drawn like the reference one?

- Kolmogorov-Smirnov (numbers): D = sup_x |F_ref(x) - F_cur(x)| of the two empirical distribution functions; the
  two-sided p-value from the distribution of D for n = round(m k / (m + k)) (Smirnov's asymptotics, scipy's
  `kstwo.sf(D, round(n))`: scipy.stats.ks_2samp(method="asymp")). Ties make it conservative.
- Wasserstein-1 distance (numbers, an effect size in the column's units): the integral of |F_ref - F_cur|.
- Chi-squared test of homogeneity (categories): the 2 x K table of counts (reference, current) by level, Pearson's
  X^2 = sum (O - E)^2 / E against chi-squared with K - 1 degrees of freedom, no continuity correction (scipy's
  chi2_contingency(correction=False)); a level seen in one sample only counts.
- Population stability index (an effect size beside either test): PSI = sum (q - p) ln(q / p) over bins, p the
  reference's share and q the current's, each floored at 1e-4 so an empty bin is finite (the convention of
  Evidently's PSI); numbers binned at the reference's deciles, categories by level. Rules of thumb: < 0.1 stable,
  0.1 - 0.25 moderate, > 0.25 large.

Not in the notes (catalogue: [STD])."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..base import check_array

__all__ = ["ks_test", "wasserstein_distance", "chi_squared_test", "population_stability_index"]

PSI_FLOOR = 1e-4


def _finite(x, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64).ravel()
    return np.sort(check_array(x[~np.isnan(x)], ndim=1, name=f"{name}'s observed values"))


def _cdfs(reference, current):
    a, b = _finite(reference, "reference"), _finite(current, "current")
    grid = np.concatenate([a, b])
    grid.sort(kind="mergesort")
    return a, b, grid, np.searchsorted(a, grid, side="right") / a.size, np.searchsorted(b, grid, side="right") / b.size


def ks_test(reference, current) -> dict:
    """{"statistic": D, "p_value"} of the two-sample Kolmogorov-Smirnov test (missing values left out)."""
    a, b, _, fa, fb = _cdfs(reference, current)
    d = float(np.max(np.abs(fa - fb)))
    m, k = sorted([float(a.size), float(b.size)], reverse=True)
    p = float(np.clip(stats.kstwo.sf(d, np.round(m * k / (m + k))), 0.0, 1.0))
    return {"statistic": d, "p_value": p}


def wasserstein_distance(reference, current) -> float:
    """The Wasserstein-1 distance of the two samples' empirical distributions (missing values left out)."""
    _, _, grid, fa, fb = _cdfs(reference, current)
    return float(np.sum(np.abs(fa - fb)[:-1] * np.diff(grid)))


def _counts(reference, current) -> tuple[np.ndarray, np.ndarray]:
    ref, cur = np.asarray(reference, dtype=object).ravel(), np.asarray(current, dtype=object).ravel()
    levels, codes = np.unique(np.concatenate([ref, cur]).astype(str), return_inverse=True)
    return (
        np.bincount(codes[: ref.size], minlength=levels.size).astype(np.float64),
        np.bincount(codes[ref.size :], minlength=levels.size).astype(np.float64),
    )


def chi_squared_test(reference, current) -> dict:
    """{"statistic": X^2, "dof", "p_value"} of Pearson's test that both samples share the levels' shares (labels
    compared as text; drop missing values before)."""
    p, q = _counts(reference, current)
    if p.sum() == 0 or q.sum() == 0:
        raise ValueError("both samples need at least one value")
    table = np.vstack([p, q])
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    statistic = float(np.sum((table - expected) ** 2 / expected))
    dof = table.shape[1] - 1
    return {"statistic": statistic, "dof": dof, "p_value": float(stats.chi2.sf(statistic, dof)) if dof else 1.0}


def population_stability_index(reference, current, categorical: bool = False, n_bins: int = 10) -> float:
    """PSI of the module docstring: numbers binned at the reference's quantiles (n_bins), categories by level."""
    if categorical:
        p, q = _counts(reference, current)
    else:
        a, b = _finite(reference, "reference"), _finite(current, "current")
        edges = np.unique(np.quantile(a, np.linspace(0, 1, n_bins + 1)[1:-1]))
        p = np.bincount(np.searchsorted(edges, a, side="right"), minlength=edges.size + 1).astype(np.float64)
        q = np.bincount(np.searchsorted(edges, b, side="right"), minlength=edges.size + 1).astype(np.float64)
    p = np.maximum(p / p.sum(), PSI_FLOOR)
    q = np.maximum(q / q.sum(), PSI_FLOOR)
    return float(np.sum((q - p) * np.log(q / p)))
