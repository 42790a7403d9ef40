"""Stage 8, fairness: for each sensitive attribute and every intersection of them, per-group rates of the
test-set decisions with seeded bootstrap intervals (clusters of data.group resampled together when it is set),
the four parity criteria as differences and ratios (seed 004, D4:2058-2110; TPR parity is t1/p1 = t2/p2,
erratum E4) and which of them can hold at once given the groups' base rates (D4:2086-2108). Groups smaller
than fairness.min_group_size are flagged, not hidden. Mitigation: per-group thresholds fitted on the
out-of-fold calibrated probabilities (never on test) and judged on test; reweighing weights (Kamiran-Calders)
of the training rows as the pre-processing alternative."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib.fairness import CRITERIA, GroupThresholdOptimizer, criteria_compatibility, criterion_gap, fairness_report, reweighing_weights
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.frames import category_labels
from pipeline.io import read_json, read_parquet, write_csv, write_json

PLOTTED = ("selection_rate", "tpr", "fpr", "precision")


def compatibility(audit: dict) -> dict:
    """criteria_compatibility over the groups that enter the criteria (not flagged small, base rate in (0, 1))."""
    rates = {g: m["base_rate"] for g, m in audit["groups"].items() if not m["small"] and 0 < m["base_rate"] < 1}
    if len(rates) < 2:
        return {"groups": list(rates), "statement": "fewer than two groups of sufficient size with both classes: "
                "the compatibility of the criteria cannot be judged"}
    return {"groups": list(rates), **criteria_compatibility(list(rates.values()))}


def mitigate(oof_p: np.ndarray, oof_y: np.ndarray, oof_groups: np.ndarray, test_p: np.ndarray, test_y: np.ndarray,
             test_groups: np.ndarray, criterion: str, tolerance: float, threshold: float) -> dict:
    """Per-group thresholds for one attribute fitted on the out-of-fold rows, gap and accuracy before (one
    threshold for all) and after, on those rows and on test, and every criterion's test gap before and after
    (moving one rate moves the others). A grouping the optimiser cannot handle (a group without positives, a
    test group never seen out of fold) is reported with the reason, not dropped."""
    optimiser = GroupThresholdOptimizer(criterion=criterion, tolerance=tolerance, base_threshold=threshold)
    try:
        optimiser.fit(oof_p, oof_y, oof_groups)
        test = optimiser.report(test_p, test_y, test_groups)
        after = optimiser.predict(test_p, test_groups)
    except ValueError as exc:
        return {"applied": False, "reason": str(exc)}
    before = (test_p >= threshold).astype(np.int64)
    return {
        "applied": True,
        "thresholds": test["thresholds"],
        "fitted_oof": {"gap_before": optimiser.baseline_gap_, "gap_after": optimiser.gap_,
                       "accuracy_before": optimiser.baseline_accuracy_, "accuracy_after": optimiser.accuracy_,
                       "accuracy_cost": optimiser.accuracy_cost_},
        "test": {k: test[k] for k in ("gap_before", "gap_after", "accuracy_before", "accuracy_after", "accuracy_cost")},
        "test_every_criterion": {c: {"gap_before": criterion_gap(test_y, before, test_groups, c),
                                     "gap_after": criterion_gap(test_y, after, test_groups, c)} for c in CRITERIA},
    }


def plot_rows(attributes: dict) -> list[dict]:
    """fairness.csv: one row per (grouping, group, rate) with its interval; groups carry their attribute's name,
    so "female=0" and "black=0" stay apart in one plot."""
    return [
        {"attribute": name, "group": str(g) if "=" in str(g) else f"{name}={g}", "metric": k, "value": m[k],
         "ci_low": m["intervals"].get(k, [math.nan, math.nan])[0], "ci_high": m["intervals"].get(k, [math.nan, math.nan])[1],
         "small": m["small"]}
        for name, result in attributes.items() for g, m in result["groups"].items() for k in PLOTTED
    ]


def labels_of(frame: pd.DataFrame, sensitive: list[str]) -> dict:
    return {a: category_labels(frame[a]).astype(str) for a in sensitive}


def main() -> None:
    params = load_params()
    data, cfg, binning = params["data"], params["fairness"], params["calibration"]
    sensitive, group_column = data["sensitive"], data["group"]
    mitigation = cfg["mitigation"]
    criterion = mitigation["criterion"]
    test = read_parquet(paths.TEST, "split")
    predictions = read_parquet(paths.TEST_PREDICTIONS, "evaluate")
    if not np.array_equal(test[paths.ROW_ID].to_numpy(), predictions[paths.ROW_ID].to_numpy()):
        raise PipelineError(f"{paths.TEST_PREDICTIONS} does not match {paths.TEST}; rerun `dvc repro evaluate`")
    threshold = read_json(paths.TEST_METRICS, "evaluate")["threshold"]  # the decision threshold evaluate used
    y, pred, p = (predictions[c].to_numpy() for c in ("y", "prediction", "proba"))
    report = {"decision_threshold": threshold, "min_group_size": cfg["min_group_size"],
              "bootstrap": {"n_boot": cfg["n_boot"], "confidence_level": cfg["confidence_level"], "seed": params["seed"],
                            "cluster": group_column},
              "attributes": {}, "mitigation": {"criterion": criterion}, "reweighing": {}}
    if not sensitive:
        print("fairness: data.sensitive is empty; nothing to audit")
        write_json(report, paths.FAIRNESS_METRICS)
        write_csv(pd.DataFrame(columns=["attribute", "group", "metric", "value", "ci_low", "ci_high", "small"]), paths.FAIRNESS_PLOT)
        return

    attributes = fairness_report(
        y, pred, labels_of(test, sensitive), proba=p, groups=test[group_column].to_numpy() if group_column else None,
        min_group_size=cfg["min_group_size"], n_boot=cfg["n_boot"], confidence_level=cfg["confidence_level"],
        random_state=params["seed"], n_bins=binning["n_bins"], strategy=binning["binning"])
    for result in attributes.values():
        result["compatibility"] = compatibility(result)
    report["attributes"] = attributes

    # out-of-fold rows (never test) with the fitted calibrator's probabilities, for the mitigation's fit
    oof = read_parquet(paths.OOF_PREDICTIONS, "train")
    train = read_parquet(paths.TRAIN, "split")
    rows = oof[[paths.ROW_ID, "fold", "y", "score"]].merge(train[[paths.ROW_ID, *sensitive]], on=paths.ROW_ID,
                                                           how="left", validate="one_to_one")
    train_labels = labels_of(rows, sensitive)
    report["reweighing"] = {a: reweighing_weights(rows["y"].to_numpy(), labels)["table"] for a, labels in train_labels.items()}
    if criterion != "none":
        scored = (rows["fold"] >= 0).to_numpy()  # rows no split validated have no out-of-fold score
        oof_p = mlio.load(paths.CALIBRATOR).transform(rows["score"].to_numpy()[scored])
        oof_y, test_labels = rows["y"].to_numpy()[scored], labels_of(test, sensitive)
        report["mitigation"].update({
            "tolerance": mitigation["tolerance"], "fitted_on": "out-of-fold calibrated probabilities", "judged_on": "test",
            "attributes": {a: mitigate(oof_p, oof_y, train_labels[a][scored], p, y, test_labels[a], criterion,
                                       mitigation["tolerance"], threshold) for a in sensitive},
        })

    for name, result in attributes.items():
        c = result["criteria"]
        print(f"fairness: {name}: demographic parity gap {c['demographic_parity']['difference']:.3f}, "
              f"equal opportunity gap {c['equal_opportunity']['difference']:.3f}, "
              f"equalized odds gap {c['equalized_odds']['difference']:.3f}")
    for name, m in report["mitigation"].get("attributes", {}).items():
        if m["applied"]:
            t = m["test"]
            print(f"fairness: {criterion} thresholds by {name}: test gap {t['gap_before']:.3f} -> {t['gap_after']:.3f}, "
                  f"accuracy cost {t['accuracy_cost']:.4f}")
        else:
            print(f"fairness: no {criterion} thresholds by {name}: {m['reason']}")
    write_json(report, paths.FAIRNESS_METRICS)
    write_csv(pd.DataFrame(plot_rows(attributes)), paths.FAIRNESS_PLOT)


if __name__ == "__main__":
    run_stage(main)
