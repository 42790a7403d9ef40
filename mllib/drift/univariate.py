"""Two-sample tests of one column: is the current sample drawn like the reference one?

- Kolmogorov-Smirnov (numbers): D = sup_x |F_ref(x) - F_cur(x)| of the two empirical distribution functions; the
  two-sided p-value from the distribution of D for n = round(m k / (m + k)) (Smirnov's asymptotics, scipy's
  `kstwo.sf(D, round(n))`: scipy.stats.ks_2samp(method="asymp")). Ties make it conservative.
- Wasserstein-1 distance (numbers, an effect size in the column's units): the integral of |F_ref - F_cur|.
- Chi-squared test of homogeneity (categories): the 2 x K table of counts (reference, current) by level, Pearson's
  X^2 = sum (O - E)^2 / E; a level seen in one sample only counts. Its p-value is asymptotic (chi-squared with K - 1
  degrees of freedom, no continuity correction: scipy's chi2_contingency(correction=False)) only when every
  expected count is at least 5 (Cochran's rule); below that the chi-squared law is no approximation (one row of a
  level held by 2% of the reference gives X^2 = 49 and p 5e-12), so the p-value is a Monte-Carlo one of the same
  statistic under the test's conditional null: the current sample's counts drawn from the pooled counts
  (multivariate hypergeometric, the margins fixed, as Fisher's exact test does), p = (1 + #{X^2* >= X^2}) / (B + 1)
  (Hope 1968; R's chisq.test(simulate.p.value = TRUE)).
- The missing share (any column): Fisher's exact test of the 2 x 2 table (reference, current) x (missing,
  observed); the values' tests above leave missing values out, so a column gone missing is seen only here.
- Population stability index (an effect size beside either test): PSI = sum (q - p) ln(q / p) over bins, p the
  reference's share and q the current's; numbers binned at the reference's deciles, categories by level. An empty
  bin's share is replaced, on its side, by 1e-4, or by a millionth of the side's smallest non-zero share when that is
  not above 1e-4, so that PSI is finite and non-zero shares keep their values (Evidently's get_binned_data: a floor
  applied to every share, as this module did before, gave a rare level 4.71 where Evidently gives 12.32). Rules of
  thumb: < 0.1 stable, 0.1 - 0.25 moderate, > 0.25 large.

Not in the notes (catalogue: [STD])."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..base import check_array

__all__ = ["ks_test", "wasserstein_distance", "chi_squared_test", "missing_share_test", "population_stability_index"]

PSI_EMPTY_SHARE = 1e-4
MIN_EXPECTED = 5.0  # Cochran's rule: the chi-squared law holds when every expected count is at least this
RESAMPLES = 9999


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


def _pearson(table: np.ndarray) -> np.ndarray:
    """Pearson's X^2 of each 2 x K table (tables: (..., 2, K)) against its own margins' expected counts."""
    expected = (
        table.sum(axis=-1, keepdims=True)
        * table.sum(axis=-2, keepdims=True)
        / table.sum(axis=(-2, -1))[..., None, None]
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(expected > 0, (table - expected) ** 2 / expected, 0.0)
    return terms.sum(axis=(-2, -1))


def chi_squared_test(reference, current, random_state=None, n_resamples: int = RESAMPLES) -> dict:
    """{"statistic": X^2, "dof", "p_value", "method"} of Pearson's test that both samples share the levels' shares
    (labels compared as text; drop missing values before): "asymptotic" when every expected count is at least 5,
    else "monte_carlo" with n_resamples draws from random_state (module docstring)."""
    p, q = _counts(reference, current)
    if p.sum() == 0 or q.sum() == 0:
        raise ValueError("both samples need at least one value")
    table = np.vstack([p, q])
    statistic = float(_pearson(table))
    dof = table.shape[1] - 1
    if dof == 0:
        return {"statistic": statistic, "dof": dof, "p_value": 1.0}  # one level: nothing to test
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    if expected.min() >= MIN_EXPECTED:
        return {"statistic": statistic, "dof": dof, "p_value": float(stats.chi2.sf(statistic, dof)),
                "method": "asymptotic"}  # fmt: skip
    pooled = (p + q).astype(np.int64)
    drawn = np.random.default_rng(random_state).multivariate_hypergeometric(pooled, int(q.sum()), size=n_resamples)
    tables = np.stack([pooled - drawn, drawn], axis=1).astype(np.float64)
    at_least = int(np.sum(_pearson(tables) >= statistic * (1 - 1e-12)))  # ties of the discrete law count
    return {
        "statistic": statistic,
        "dof": dof,
        "p_value": (1 + at_least) / (n_resamples + 1),
        "method": "monte_carlo",
        "resamples": n_resamples,
    }


def missing_share_test(reference_missing: int, reference_n: int, current_missing: int, current_n: int) -> dict:
    """{"statistic": the current's missing share minus the reference's, "p_value"} of Fisher's exact two-sided test
    that both samples miss values at the same rate (p_value 1.0 when neither misses any: nothing to test)."""
    table = np.array(
        [[reference_missing, reference_n - reference_missing], [current_missing, current_n - current_missing]]
    )
    if table.min() < 0 or min(reference_n, current_n) < 1:
        raise ValueError(f"counts must be non-negative and each sample non-empty, got {table.tolist()}")
    difference = current_missing / current_n - reference_missing / reference_n
    if reference_missing + current_missing == 0:
        return {"statistic": 0.0, "p_value": 1.0}
    return {"statistic": float(difference), "p_value": float(stats.fisher_exact(table).pvalue)}


def _shares(counts: np.ndarray) -> np.ndarray:
    """A side's shares with its empty bins replaced (module docstring: Evidently's convention)."""
    shares = counts / counts.sum()
    smallest = shares[shares > 0].min()
    shares[shares == 0] = PSI_EMPTY_SHARE if smallest > PSI_EMPTY_SHARE else smallest / 1e6
    return shares


def population_stability_index(reference, current, categorical: bool = False, n_bins: int = 10) -> float:
    """PSI of the module docstring: numbers binned at the reference's quantiles (n_bins), categories by level."""
    if categorical:
        p, q = _counts(reference, current)
    else:
        a, b = _finite(reference, "reference"), _finite(current, "current")
        edges = np.unique(np.quantile(a, np.linspace(0, 1, n_bins + 1)[1:-1]))
        p = np.bincount(np.searchsorted(edges, a, side="right"), minlength=edges.size + 1).astype(np.float64)
        q = np.bincount(np.searchsorted(edges, b, side="right"), minlength=edges.size + 1).astype(np.float64)
    p, q = _shares(p), _shares(q)
    return float(np.sum((q - p) * np.log(q / p)))
