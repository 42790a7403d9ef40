"""What the pipeline changed in the user's data, as records the stages write and the model card lists: every row
removed, column removed and value changed, with its count and the target's distribution before and after (class
shares, or a regression target's mean and standard deviation), so a change that shifts the question is visible.
validate and clean write their records into their reports (`changes`); the report gathers them."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from .json_types import JSON
from .records import Change
from .task import Target


def change(
    stage: str,
    what: str,
    *,
    rows: int = 0,
    values: int = 0,
    columns: Iterable[str] = (),
    before: dict[str, float] | None = None,
    after: dict[str, float] | None = None,
) -> Change:
    """One record: `what` happened in `stage` to `rows` rows / `values` values / `columns`; before / after: the
    target's distribution around a row removal."""
    return Change(stage, what, int(rows), int(values), list(columns), before, after)


def removal(stage: str, what: str, values: pd.Series, removed: np.ndarray, target: Target) -> Change:
    """A record of removing the rows where `removed` is true, with the target's distribution (Target.distribution of
    the target `values`) before and after."""
    removed = np.asarray(removed, dtype=bool)
    before, after = target.distribution(values), target.distribution(values[~removed])
    return change(stage, what, rows=int(removed.sum()), before=before, after=after)


def describe(distribution: JSON) -> str:
    if not distribution:
        return "undefined"
    if "mean" in distribution:
        return f"mean {distribution['mean']:.4g} (sd {distribution['std']:.4g})"
    return ", ".join(f"{label}: {share:.3f}" for label, share in distribution.items())


def validation_changes(
    values: pd.Series,
    reasons: dict[int, list[str]],
    fractional: dict[str, JSON],
    missing_sensitive: dict[str, JSON],
    target: Target,
) -> list[Change]:
    """validate's records: the quarantine (by column, with the target's distribution before and after), rounded 0/1
    values, missing sensitive values audited as their own group; reasons: {row: ["column: why", ...]}."""
    records: list[Change] = []
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


def feature_changes(missing: JSON, pooled: JSON, n_rows: int, cfg: JSON) -> list[Change]:
    """The features stage's records, as features.json holds them: the missing values each block's imputer fills
    (per column: how many of the n_rows training rows, with what, the indicator, the one-hot column they land in;
    missing: FeaturesReport.missing) and the rare levels the one-hot encoder pools (pooled:
    FeaturesReport.pooled_levels). cfg: params.yaml `features`."""
    records = []
    for block, imputer in (("numeric", cfg["numeric_imputer"]), ("categorical", cfg["categorical_imputer"])):
        gaps = {c: m for c, m in missing.items() if ("column" in m) == (block == "categorical")}
        if not gaps:
            continue
        settings = " ".join(f"{k} {v!r}" if isinstance(v, str) else f"{k} {v}" for k, v in imputer["params"].items())
        what = (
            f"missing values of {block} columns filled by {imputer['name']} ({settings}), fitted on the training rows "
            f"of each split; of the {n_rows} training rows: "
            + "; ".join(f"{c} {m['values']} with {m['filled']}{_lands(m)}" for c, m in gaps.items())
        )
        records.append(change("features", what, values=sum(m["values"] for m in gaps.values()), columns=list(gaps)))
    for column, count in pooled.items():
        records.append(
            change(
                "features",
                f"{count['pooled']} of {count['levels']} levels of {column} pooled into {column}=infrequent "
                "(features.encoder.params min_frequency / max_categories)",
                columns=[column],
            )
        )
    return records


def _lands(filled: JSON) -> str:
    """Where a column's filled values end up: its missing indicator, the one-hot column that holds them."""
    if "column" not in filled:
        return f", indicator {filled['indicator']}" if filled["indicator"] else ", no indicator"
    indicator = f", indicator {filled['indicator']}" if filled["indicator"] else ""
    return indicator + (f" -> column {filled['column']}" if filled["column"] else "")
