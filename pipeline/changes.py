"""What the pipeline changed in the user's data, as records the stages write and the model card lists: every row
removed, column removed and value changed, with its count and the target's distribution before and after (class
shares, or a regression target's mean and standard deviation), so a change that shifts the question is visible.
validate and clean write their records into their reports (`changes`); the report gathers them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .frames import category_labels


def target_distribution(values: pd.Series, task: str) -> dict:
    """Class shares (labels as the report spells them, in sorted order) or a regression target's mean and std; the
    missing values of a target that validate has not yet checked are left out."""
    values = values[values.notna()]
    if task == "regression":
        numbers = pd.to_numeric(values, errors="coerce").dropna().to_numpy(dtype=np.float64)
        return {"mean": float(numbers.mean()), "std": float(numbers.std())} if numbers.size else {}
    labels, counts = np.unique(category_labels(values).astype(str), return_counts=True)
    return {str(label): float(c / counts.sum()) for label, c in zip(labels, counts)}


def change(stage: str, what: str, *, rows: int = 0, values: int = 0, columns=(), before=None, after=None) -> dict:
    """One record: `what` happened in `stage` to `rows` rows / `values` values / `columns`; before / after: the
    target's distribution around a row removal."""
    record = {"stage": stage, "change": what, "rows": int(rows), "values": int(values), "columns": list(columns)}
    if before is not None:
        record["target_before"], record["target_after"] = before, after
    return record


def removal(stage: str, what: str, target: pd.Series, removed: np.ndarray, task: str) -> dict:
    """A record of removing the rows where `removed` is true, with the target's distribution before and after."""
    removed = np.asarray(removed, dtype=bool)
    return change(
        stage,
        what,
        rows=int(removed.sum()),
        before=target_distribution(target, task),
        after=target_distribution(target[~removed], task),
    )


def describe(distribution: dict) -> str:
    if not distribution:
        return "undefined"
    if "mean" in distribution:
        return f"mean {distribution['mean']:.4g} (sd {distribution['std']:.4g})"
    return ", ".join(f"{label}: {share:.3f}" for label, share in distribution.items())
