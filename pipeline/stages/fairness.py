"""Stage 8, fairness: per-group rates of the test-set decisions for each sensitive attribute and their
intersection (seed 004, D4:2058-2083; TPR parity is t1/p1 = t2/p2, erratum E4), with parity gaps.
Groups smaller than fairness.min_group_size are flagged, not hidden."""
from __future__ import annotations

import numpy as np
import pandas as pd

from mllib.fairness import group_confusion, parity_gaps
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.frames import category_labels
from pipeline.io import read_parquet, write_csv, write_json

REPORTED = ("n", "n_pos", "base_rate", "selection_rate", "tpr", "fpr", "precision", "accuracy")


def audit(y: np.ndarray, pred: np.ndarray, groups: np.ndarray, min_group_size: int) -> dict:
    per_group = group_confusion(y, pred, groups)
    return {
        "groups": {g: {k: m[k] for k in REPORTED} for g, m in per_group.items()},
        "small_groups": [g for g, m in per_group.items() if m["n"] < min_group_size],
        "gaps": parity_gaps(per_group),
    }


def main() -> None:
    params = load_params()
    sensitive, min_size = params["data"]["sensitive"], params["fairness"]["min_group_size"]
    test = read_parquet(paths.TEST, "split")
    predictions = read_parquet(paths.TEST_PREDICTIONS, "evaluate")
    if not np.array_equal(test[paths.ROW_ID].to_numpy(), predictions[paths.ROW_ID].to_numpy()):
        raise PipelineError(f"{paths.TEST_PREDICTIONS} does not match {paths.TEST}; rerun `dvc repro evaluate`")
    y, pred = predictions["y"].to_numpy(), predictions["prediction"].to_numpy()

    attributes = {attr: category_labels(test[attr]) for attr in sensitive}
    if len(sensitive) > 1:
        labels = [np.char.add(f"{a}=", attributes[a].astype(str)) for a in sensitive]
        attributes[" & ".join(sensitive)] = np.array([",".join(parts) for parts in zip(*labels)], dtype=object)
    report = {"threshold": params["evaluate"]["threshold"], "min_group_size": min_size,
              "attributes": {name: audit(y, pred, groups.astype(str), min_size) for name, groups in attributes.items()}}
    rows = [  # groups labelled with their attribute, so "female=0" and "black=0" stay apart in one plot
        {"attribute": name, "group": g if "=" in g else f"{name}={g}", "metric": k, "value": m[k]}
        for name, result in report["attributes"].items() for g, m in result["groups"].items()
        for k in ("selection_rate", "tpr", "fpr")
    ]
    for name, result in report["attributes"].items():
        gaps = result["gaps"]
        print(f"fairness: {name}: selection-rate gap {gaps['selection_rate']['difference']:.3f}, "
              f"TPR gap {gaps['tpr']['difference']:.3f}, FPR gap {gaps['fpr']['difference']:.3f}")
    write_json(report, paths.FAIRNESS_METRICS)
    write_csv(pd.DataFrame(rows), paths.FAIRNESS_PLOT)


if __name__ == "__main__":
    run_stage(main)
