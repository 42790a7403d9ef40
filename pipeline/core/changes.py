"""What the pipeline changed in the user's data, as records the stages write and the model card lists: every row
removed, column removed and value changed, with its count and the target's distribution before and after (class
shares, or a regression target's mean and standard deviation), so a change that shifts the question is visible.
validate and clean write their records into their reports (`changes`); the report gathers them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .records import Change
from .task import Target


def change(stage: str, what: str, *, rows: int = 0, values: int = 0, columns=(), before=None, after=None) -> Change:
    """One record: `what` happened in `stage` to `rows` rows / `values` values / `columns`; before / after: the
    target's distribution around a row removal."""
    return Change(stage, what, int(rows), int(values), list(columns), before, after)


def removal(stage: str, what: str, values: pd.Series, removed: np.ndarray, target: Target) -> Change:
    """A record of removing the rows where `removed` is true, with the target's distribution (Target.distribution of
    the target `values`) before and after."""
    removed = np.asarray(removed, dtype=bool)
    before, after = target.distribution(values), target.distribution(values[~removed])
    return change(stage, what, rows=int(removed.sum()), before=before, after=after)


def describe(distribution: dict) -> str:
    if not distribution:
        return "undefined"
    if "mean" in distribution:
        return f"mean {distribution['mean']:.4g} (sd {distribution['std']:.4g})"
    return ", ".join(f"{label}: {share:.3f}" for label, share in distribution.items())


def validation_changes(values: pd.Series, reasons: dict, fractional: dict, missing_sensitive: dict, target: Target):
    """validate's records: the quarantine (by column, with the target's distribution before and after), rounded 0/1
    values, missing sensitive values audited as their own group; reasons: {row: ["column: why", ...]}."""
    records = []
    if reasons:
        columns = sorted({why.split(":")[0] for whys in reasons.values() for why in whys})
        by_column = {c: sum(any(w.startswith(c + ":") for w in whys) for whys in reasons.values()) for c in columns}
        what = "rows quarantined (" + ", ".join(f"{c}: {n}" for c, n in by_column.items()) + ")"
        records.append(removal("validate", what, values, values.index.isin(list(reasons)), target))
    for col, r in fractional.items():
        if r["action"] == "round":
            records.append(change("validate", f"fractional values of 0/1 column {col} rounded", values=r["rows"]))
    for col, r in missing_sensitive.items():
        if r["action"] == "group":
            what = f"missing values of {col} audited as the group '(missing)'; no row removed"
            records.append(change("validate", what, values=r["rows"], columns=[col]))
    return records
