"""Is a sample of rows drawn like the training rows? The test rows (evaluate) and a new batch (the monitor) are
compared with the training rows column by column, each by the test that fits its type (numbers: Kolmogorov-Smirnov,
with the Wasserstein distance and the population stability index as effect sizes; categories: the chi-squared test of
homogeneity of the observed levels, exact by Monte Carlo where the chi-squared law does not hold, with the PSI; any
column: its missing share, by Fisher's exact test, a column gone missing being drift the values' tests cannot see),
and as a whole by a domain classifier (can a classifier tell the rows apart? its held-out AUC with an interval).

Two Benjamini-Hochberg families at monitor.fdr: the columns' tests, and their consequences (the domain classifier,
the shift in what the model says): a classifier that sees one moved column, and the model's answers that move with
it, are not evidence that other columns moved, so they do not lower the columns' bar. Both are gated by one global
test of every p-value (Simes' test, the step of Benjamini-Hochberg that decides whether anything is rejected), so
without drift the chance of any flag stays at most monitor.fdr. The tests are in mllib/drift; this module picks them
per column and words the result."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mllib.comparison import bh_adjusted
from mllib.drift import (
    chi_squared_test,
    domain_classifier_test,
    ks_test,
    missing_share_test,
    population_stability_index,
    wasserstein_distance,
)

from ..core import build
from ..core.json_types import JSON
from ..core.monitor_records import most_drifted_first

MISSING = "(missing)"
TIME_NOT_TESTED = (
    "not tested: data.time as a model feature, whose new values lie after the training times by design (the served "
    "model flags each row after the last training time as extrapolated)"
)
NO_VALUES = "values not evaluated: no observed value on one side"
MIN_DOMAIN_ROWS = 20  # per side: a classifier fitted on half of fewer rows tells nothing (11 firms: 9 and 2 rows)


def one_row_per_group(frame: pd.DataFrame, group: str | None, rng: np.random.Generator) -> np.ndarray:
    """The positions of one seeded row of each group, in order (every row without a group): rows of one group are
    alike, and the tests count rows as independent draws (a person's years, or a file's rows repeated, are one
    draw)."""
    if group is None or group not in frame.columns:
        return np.arange(len(frame))
    order = rng.permutation(len(frame))
    return np.sort(order[~frame[group].iloc[order].duplicated().to_numpy()])


def _sample(frame: pd.DataFrame, group: str | None, max_rows: int | None, rng: np.random.Generator) -> pd.DataFrame:
    """One row of each group (one_row_per_group), at most max_rows of them."""
    frame = frame.iloc[one_row_per_group(frame, group, rng)]
    if max_rows is None or len(frame) <= max_rows:
        return frame
    return frame.iloc[np.sort(rng.choice(len(frame), max_rows, replace=False))]


def _labels(values: pd.Series) -> pd.Series:
    """A categorical column as text, a missing value as its own level (pandas keeps NaN through astype(str))."""
    return values.astype(object).where(values.notna(), MISSING).astype(str)


def _values_test(reference: pd.Series, current: pd.Series, categorical: bool, seed: int) -> JSON:
    """The test of a column's observed values: chi-squared for categories, KS with the Wasserstein distance for
    numbers, with the PSI; "not evaluated" (with why) when a side has no observed value."""
    if categorical:
        ref, cur = reference.dropna().astype(str), current.dropna().astype(str)
        if ref.empty or cur.empty:
            return {"test": "chi_squared", "p_value": None, "statement": NO_VALUES}
        return {"test": "chi_squared", **chi_squared_test(ref, cur, random_state=[seed, 47]),
                "psi": population_stability_index(ref, cur, categorical=True)}  # fmt: skip
    ref = pd.to_numeric(reference, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    cur = pd.to_numeric(current, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isnan(ref).all() or np.isnan(cur).all():
        return {"test": "ks", "p_value": None, "statement": NO_VALUES}
    return {"test": "ks", **ks_test(ref, cur), "wasserstein": wasserstein_distance(ref, cur),
            "psi": population_stability_index(ref, cur)}  # fmt: skip


def _column_test(reference: pd.Series, current: pd.Series, categorical: bool, seed: int) -> JSON:
    """One column's record: its values' test and, when either side misses values, the missing share's test, the
    column's p-value the smaller of the two doubled (Bonferroni: either may show the drift); "not evaluated" only
    when neither can be computed."""
    missing = [int(reference.isna().sum()), int(current.isna().sum())]
    out: JSON = {"missing_share": [missing[0] / max(len(reference), 1), missing[1] / max(len(current), 1)]}
    values = _values_test(reference, current, categorical, seed)
    if sum(missing) == 0 or min(len(reference), len(current)) == 0:
        return {**out, **values}
    share = missing_share_test(missing[0], len(reference), missing[1], len(current))["p_value"]
    tested = [p for p in (values["p_value"], share) if p is not None]
    return {**out, **values, "p_value": min(1.0, len(tested) * min(tested)), "values_p_value": values["p_value"],
            "missing_p_value": share}  # fmt: skip


def _reason(r: JSON) -> str:
    return drift_reason(r["test"], r["missing_share"], r.get("values_p_value"), r.get("missing_p_value"))


def drift_reason(test: str, missing_share: list[float], values_p: float | None, missing_p: float | None) -> str:
    """What moved in a flagged column: its values (by their test) or its missing share (when that test's p-value is
    the smaller)."""
    if missing_p is not None and (values_p is None or missing_p <= values_p):
        return f"missing share {missing_share[0]:.1%} in training, {missing_share[1]:.1%} here; Fisher's exact test"
    return test


def _domain_matrix(
    reference: pd.DataFrame, current: pd.DataFrame, numeric: list[str], categorical: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Both samples as float matrices for the domain classifier: numbers with missing values at the reference's
    median (and a missing indicator), labels as codes of the reference's levels (an unseen label: -1)."""
    blocks_ref: list[np.ndarray] = []
    blocks_cur: list[np.ndarray] = []
    for c in numeric:
        r = pd.to_numeric(reference[c], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        k = pd.to_numeric(current[c], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        fill = np.nanmedian(r) if np.isfinite(r).any() else 0.0
        blocks_ref += [np.where(np.isnan(r), fill, r), np.isnan(r)]
        blocks_cur += [np.where(np.isnan(k), fill, k), np.isnan(k)]
    for c in categorical:
        r, k = _labels(reference[c]), _labels(current[c])
        levels = {v: i for i, v in enumerate(sorted(set(r)))}
        blocks_ref.append(r.map(levels).to_numpy(dtype=np.float64))
        blocks_cur.append(k.map(levels).fillna(-1).to_numpy(dtype=np.float64))
    return np.column_stack(blocks_ref).astype(np.float64), np.column_stack(blocks_cur).astype(np.float64)


def compare(
    reference: pd.DataFrame,
    current: pd.DataFrame,
    numeric: list[str],
    categorical: list[str],
    cfg: JSON,
    seed: int,
    what: str,
    group: str | None = None,
    extra: JSON | None = None,
    time: str | None = None,
) -> JSON:
    """The drift record of `current` against `reference` (the training rows): per column its test, p-value,
    Benjamini-Hochberg adjusted p-value, effect sizes and flag; the domain classifier's AUC with its interval; the
    flagged columns and a sentence. cfg: params.yaml `monitor` (fdr, domain_classifier, max_rows); extra: {name: a
    test's record with its p_value} tested with the domain classifier, as consequences of the columns' drift (the
    monitor's prediction shift; module docstring). With `group` (data.group, when both frames hold it) one row of each
    group is compared: a person's years are one draw, not five (the default data's test rows looked drifted in 17 of 30
    columns, and a classifier told them apart with AUC 0.86 by recognising persons, when compared row by row). `time`:
    data.time when it is one of the numeric model inputs (data.time_feature): not tested, here or by the domain
    classifier, since new rows lie later than the training rows by design (every one would be flagged); its record says
    so."""
    rng = np.random.default_rng([seed, 43])
    if group is not None and group in reference.columns and group in current.columns:
        what = f"{what} (one row of each {group})"
    else:
        group = None
    reference = _sample(reference, group, cfg["max_rows"], rng)
    current = _sample(current, group, cfg["max_rows"], rng)
    numeric = [c for c in numeric if c != time]
    columns = {c: _column_test(reference[c], current[c], c in categorical, seed) for c in [*numeric, *categorical]}
    if time is not None:
        columns[time] = {"test": "none", "p_value": None, "statement": TIME_NOT_TESTED}
    evaluated = [c for c, r in columns.items() if r["p_value"] is not None]
    domain: JSON = {"statement": "off (monitor.domain_classifier: none)"}
    if cfg["domain_classifier"] != "none" and min(len(reference), len(current)) < MIN_DOMAIN_ROWS:
        domain = {
            "statement": f"not evaluated: {len(reference)} and {len(current)} rows"
            + (f" (one per {group})" if group else "")
            + f", fewer than {MIN_DOMAIN_ROWS} on a side",
            "not_evaluated": True,
        }
    elif cfg["domain_classifier"] != "none":
        X_ref, X_cur = _domain_matrix(reference, current, numeric, categorical)
        domain = domain_classifier_test(
            X_ref, X_cur, lambda: build.model(cfg["domain_classifier"], {"params": {}}, seed), random_state=seed
        )
    extra = dict(extra or {})
    consequences = [*extra.values(), *([domain] if "p_value" in domain else [])]
    any_drift = _flag_in_families([columns[c] for c in evaluated], consequences, cfg["fdr"])
    flagged = [c for c in evaluated if columns[c]["flagged"]]
    return {
        "what": what,
        "rows": {"reference": len(reference), "current": len(current)},
        "one_row_per": group,
        "fdr": cfg["fdr"],
        "columns": columns,
        "domain_classifier": domain,
        "extra": extra,
        "flagged": flagged,
        "not_evaluated": [c for c in columns if c not in evaluated],
        "any_drift_p_value": any_drift,
        "statement": statement(flagged, columns, domain, cfg["fdr"], what),
    }


def _flag_in_families(columns: list[JSON], consequences: list[JSON], fdr: float) -> float:
    """Each record's Benjamini-Hochberg adjusted p-value within its family (the columns' tests; their consequences),
    flagged at fdr when the global test of every p-value rejects too; returns that global p-value (Simes': the
    smallest adjusted p-value of all tests as one family)."""
    everything = [r["p_value"] for r in (*columns, *consequences)]
    any_drift = float(np.min(bh_adjusted(everything))) if everything else 1.0
    for family in (columns, consequences):
        adjusted: list[float] = list(bh_adjusted([r["p_value"] for r in family])) if family else []
        for r, p in zip(family, adjusted, strict=True):
            r.update(flagged=bool(p <= fdr and any_drift <= fdr), adjusted_p_value=float(p))
    return any_drift


def statement(flagged: list[str], columns: dict[str, JSON], domain: JSON, fdr: float, what: str) -> str:
    """One sentence: which columns drifted (the strongest first, with its test and adjusted p-value) and what the
    domain classifier saw, or that nothing did."""
    auc = (
        f"; a classifier tells them apart with AUC {domain['auc']:.3f} ({domain['interval'][0]:.3f} to "
        f"{domain['interval'][1]:.3f}, {domain['n_reference'] + domain['n_current']} held-out rows)"
        + (" (flagged)" if domain["flagged"] else "")
        if "auc" in domain
        else f"; the domain classifier: {domain['statement']}"
    )
    if not flagged:
        return f"{what}: no column's distribution differs beyond chance at a false discovery rate of {fdr:g}{auc}"
    ordered = most_drifted_first({c: columns[c] for c in flagged})
    shown = ", ".join(
        f"{c} ({_reason(columns[c])}, adjusted p {columns[c]['adjusted_p_value']:.2g})" for c in ordered[:5]
    )
    more = f" and {len(ordered) - 5} more" if len(ordered) > 5 else ""
    return (
        f"{what}: {len(flagged)} of {len(columns)} columns drifted at a false discovery rate of {fdr:g}: "
        f"{shown}{more}{auc}"
    )
