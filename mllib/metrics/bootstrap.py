"""Bootstrap intervals of a figure measured once on a set of rows (a test set, a group of it).

A replicate draws the rows again with replacement and recomputes the figure on the rows drawn; the interval is the
percentile interval of the replicates (Efron & Tibshirani 1993, An Introduction to the Bootstrap, section 13.3).
Rows that are not independent are drawn together: `clusters` (e.g. a person's rows) draws whole clusters, as many as
there are. `strata` draws within each stratum as many rows as it holds: a test set split stratified by class keeps
its class counts in every replicate, as in the design that drew it (the stratified bootstrap for AUC of Carpenter &
Bithell 2000). A replicate in which the figure is undefined (one class left, say) counts as nan and is left out of
the interval; how many were defined is reported.
Many rows: with max_units, the replicates are drawn from a seeded sample of that many units (rows or clusters, drawn
without replacement) and the interval's ends are rescaled to the whole set, theta_N + sqrt(m / N) (end_m - theta_m)
(the m-out-of-n bootstrap of a root-n statistic: Bickel, Goetze & van Zwet 1997, Statistica Sinica 7:1-31), so its
cost stops growing with the rows while its width still shrinks with them.
Not in the notes (catalogue: [STD])."""

from __future__ import annotations

import math

import numpy as np

from ..base import OPEN_UNIT, check_int, check_random_state, checked_arguments


def bootstrap_units(n_rows: int, clusters) -> tuple[np.ndarray | None, int, str]:
    """What the bootstrap resamples: (cluster index of each row, number of clusters, "cluster") when clusters are
    given (every row of a cluster is drawn together), else (None, n_rows, "row")."""
    if clusters is None:
        return None, n_rows, "row"
    _, unit_of_row = np.unique(clusters, return_inverse=True)
    return unit_of_row, int(unit_of_row.max()) + 1, "cluster"


def row_multiplicities(rng, unit_of_row: np.ndarray | None, n_units: int) -> np.ndarray:
    """One bootstrap replicate: how many times each row is drawn (n_units units drawn with replacement)."""
    multiplicity = np.bincount(rng.integers(0, n_units, size=n_units), minlength=n_units).astype(np.float64)
    return multiplicity if unit_of_row is None else multiplicity[unit_of_row]


def stratified_multiplicities(rng, members: list[np.ndarray], n_rows: int) -> np.ndarray:
    """One stratified replicate: within each stratum (its row indices in `members`) as many rows drawn as it holds."""
    drawn = np.concatenate([rows[rng.integers(0, rows.size, size=rows.size)] for rows in members])
    return np.bincount(drawn, minlength=n_rows).astype(np.float64)


def percentile_interval(samples: np.ndarray, level: float) -> list:
    """[lower, upper] percentile interval over the defined bootstrap values (nan, nan if none is defined)."""
    defined = samples[~np.isnan(samples)]
    if defined.size == 0:
        return [math.nan, math.nan]
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(defined, [alpha, 1.0 - alpha])
    return [float(lo), float(hi)]


@checked_arguments(confidence_level=OPEN_UNIT)
def bootstrap_intervals(
    statistic,
    n_rows: int,
    n_boot: int = 200,
    confidence_level: float = 0.95,
    random_state=0,
    clusters=None,
    strata=None,
    max_units: int | None = None,
) -> dict:
    """Percentile intervals of the figures `statistic(rows)` returns ({name: number}; rows: the indices of one
    replicate's rows, each as often as it was drawn), over n_boot replicates drawn by clusters, within strata, or by
    rows (clusters take precedence: a cluster may hold rows of several strata); with more than max_units units, from a
    sample of max_units of them, rescaled (module docstring).

    Returns {point: the figures on every row, intervals: {name: [lower, upper]}, defined: {name: replicates where it
    was defined}, n_boot,
    confidence_level, unit ("cluster" | "stratified row" | "row"), n_units, subsample: None or {units, scale}}."""
    n_rows, n_boot = check_int(n_rows, "n_rows", 1), check_int(n_boot, "n_boot", 1)
    rng = check_random_state(random_state)
    unit_of_row, n_units, unit = bootstrap_units(n_rows, clusters)
    if max_units is not None and n_units > check_int(max_units, "max_units", 2):
        chosen = np.sort(rng.choice(n_units, size=max_units, replace=False))
        rows = np.flatnonzero(np.isin(unit_of_row, chosen)) if unit_of_row is not None else chosen
        inner = bootstrap_intervals(
            lambda r: statistic(rows[r]),
            rows.size,
            n_boot,
            confidence_level,
            rng,
            clusters=None if clusters is None else np.asarray(clusters)[rows],
            strata=None if strata is None else np.asarray(strata)[rows],
        )
        whole, sample = statistic(np.arange(n_rows)), inner["point"]
        scale = math.sqrt(max_units / n_units)
        inner["intervals"] = {
            m: [whole[m] + scale * (end - sample[m]) for end in ends] for m, ends in inner["intervals"].items()
        }
        return inner | {"point": whole, "n_units": int(n_units), "subsample": {"units": int(max_units), "scale": scale}}
    if clusters is None and strata is not None:
        codes = np.unique(np.asarray(strata), return_inverse=True)[1]
        members = [np.flatnonzero(codes == s) for s in range(int(codes.max()) + 1)]
        unit = "stratified row"

        def draw():
            return stratified_multiplicities(rng, members, n_rows)
    else:

        def draw():
            return row_multiplicities(rng, unit_of_row, n_units)

    everything = np.arange(n_rows)
    point = statistic(everything)
    replicates = [statistic(np.repeat(everything, draw().astype(np.int64))) for _ in range(n_boot)]
    names = list(replicates[0])
    samples = {m: np.array([r[m] for r in replicates], dtype=np.float64) for m in names}
    return {
        "point": point,
        "intervals": {m: percentile_interval(s, float(confidence_level)) for m, s in samples.items()},
        "defined": {m: int(np.sum(~np.isnan(s))) for m, s in samples.items()},
        "n_boot": n_boot,
        "confidence_level": float(confidence_level),
        "unit": unit,
        "n_units": int(n_units),
        "subsample": None,
    }
