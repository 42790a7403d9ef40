"""Stage 8, fairness: for each sensitive attribute and every intersection of them, per-group rates of the
test-set decisions with seeded bootstrap intervals (clusters of data.group resampled together when it is set),
the four parity criteria as differences and ratios (seed 004, D4:2058-2110; TPR parity is t1/p1 = t2/p2,
erratum E4) and which of them can hold at once given the groups' base rates (D4:2086-2108). Groups smaller
than fairness.min_group_size are flagged, not hidden. Two mitigations, each judged on test against the
deployed decisions (the evaluate stage's p >= t for everyone, read from its predictions): per-group thresholds
fitted on the cross-fitted out-of-fold probabilities of the calibrate stage (never on test, never in-sample), and
reweighing as pre-processing (Kamiran-Calders, catalogue section 5.3): the deployed model's configuration (a
clone of models/model.json) refitted on all training rows with weights that make the label independent of the
sensitive groups' intersection (so of every attribute), scored through the fitted calibrator and decided by the
same rule p >= t."""
from __future__ import annotations

import inspect
import math

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib.base import clone
from mllib.calibration import decision_scores
from mllib.fairness import CRITERIA, GroupThresholdOptimizer, criteria_compatibility, criterion_gap, fairness_report, reweighing_weights
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.frames import attribute_labels
from pipeline.io import read_json, read_parquet, write_csv, write_json
from pipeline.summaries import GROUP_RATES, sensitive_groupings


def compatibility(audit: dict) -> dict:
    """criteria_compatibility over the groups that enter the criteria (not flagged small, base rate in (0, 1))."""
    rates = {g: m["base_rate"] for g, m in audit["groups"].items() if not m["small"] and 0 < m["base_rate"] < 1}
    if len(rates) < 2:
        return {"groups": list(rates), "statement": "fewer than two groups of sufficient size with both classes: "
                "the compatibility of the criteria cannot be judged"}
    return {"groups": list(rates), **criteria_compatibility(list(rates.values()))}


def every_criterion(y: np.ndarray, before: np.ndarray, after: np.ndarray, groups: np.ndarray) -> dict:
    """Each parity criterion's gap of two sets of decisions on the same rows."""
    return {c: {"gap_before": criterion_gap(y, before, groups, c), "gap_after": criterion_gap(y, after, groups, c)}
            for c in CRITERIA}


def accuracies(y: np.ndarray, before: np.ndarray, after: np.ndarray) -> dict:
    """Accuracy of two sets of decisions on the same rows and what the change costs (before - after)."""
    accuracy_before, accuracy_after = float(np.mean(before == y)), float(np.mean(after == y))
    return {"accuracy_before": accuracy_before, "accuracy_after": accuracy_after,
            "accuracy_cost": accuracy_before - accuracy_after}


def mitigate(oof_p: np.ndarray, oof_y: np.ndarray, oof_groups: np.ndarray, test_p: np.ndarray, test_y: np.ndarray,
             test_groups: np.ndarray, criterion: str, tolerance: float, threshold: float, deployed: np.ndarray) -> dict:
    """Per-group thresholds for one attribute fitted on the out-of-fold rows, gap and accuracy before (p >= threshold
    for all; on test the deployed decisions) and after, on those rows and on test, and every criterion's test gap
    before and after (moving one rate moves the others). A grouping the optimiser cannot handle (a group without
    positives, a test group never seen out of fold) is reported with the reason, not dropped."""
    optimiser = GroupThresholdOptimizer(criterion=criterion, tolerance=tolerance, base_threshold=threshold)
    try:
        optimiser.fit(oof_p, oof_y, oof_groups)
        after = optimiser.predict(test_p, test_groups)
    except ValueError as exc:
        return {"applied": False, "reason": str(exc)}
    every = every_criterion(test_y, deployed, after, test_groups)
    return {
        "applied": True,
        "thresholds": dict(zip(optimiser.groups_, optimiser.thresholds_.tolist())),
        "fitted_oof": {"gap_before": optimiser.baseline_gap_, "gap_after": optimiser.gap_,
                       "accuracy_before": optimiser.baseline_accuracy_, "accuracy_after": optimiser.accuracy_,
                       "accuracy_cost": optimiser.accuracy_cost_},
        "test": {**every[criterion], **accuracies(test_y, deployed, after)},
        "test_every_criterion": every,
    }


def fit_weighted(model, X: np.ndarray, y: np.ndarray, weights: np.ndarray) -> str | None:
    """Fit `model` with sample weights; the reason when it cannot be, None when it was fitted."""
    if "sample_weight" not in inspect.signature(model.fit).parameters:
        return f"not supported: {type(model).__name__} cannot be fitted with sample weights"
    try:
        model.fit(X, y, sample_weight=weights)
    except ValueError as exc:
        return f"the weighted refit failed: {exc}"
    return None


def judge_reweighing(y: np.ndarray, deployed: np.ndarray, reweighed: np.ndarray, groupings: dict) -> dict:
    """Test accuracy and every criterion's gap (per attribute and intersection) of the deployed decisions (before)
    and of the reweighed model's (after)."""
    return {**accuracies(y, deployed, reweighed),
            "attributes": {name: every_criterion(y, deployed, reweighed, labels) for name, labels in groupings.items()}}


def features_of(path, row_ids: np.ndarray, made_for: str) -> np.ndarray:
    """The features stage's final matrix, checked to hold the same rows in the same order as `made_for`."""
    frame = read_parquet(path, "features")
    if not np.array_equal(frame[paths.ROW_ID].to_numpy(), row_ids):
        raise PipelineError(f"{path} does not match {made_for}; rerun `dvc repro features`")
    return frame.drop(columns=[paths.ROW_ID]).to_numpy()


def reweighing(params: dict, train: pd.DataFrame, test: pd.DataFrame, y_test: np.ndarray, deployed: np.ndarray,
               threshold: float) -> dict:
    """Kamiran-Calders weights w(g, y) = P(g) P(y) / P(g, y) over the intersection g of data.sensitive on all
    training rows, the refit with them and its test judgement (fairness.reweighing: false keeps the weights only)."""
    sensitive = params["data"]["sensitive"]
    oof = read_parquet(paths.OOF_PREDICTIONS, "train")  # every training row's label, in the training rows' order
    if not np.array_equal(oof[paths.ROW_ID].to_numpy(), train[paths.ROW_ID].to_numpy()):
        raise PipelineError(f"{paths.OOF_PREDICTIONS} does not match {paths.TRAIN}; rerun `dvc repro train`")
    joint_name = " & ".join(sensitive)
    y = oof["y"].to_numpy()
    weights = reweighing_weights(y, sensitive_groupings(train, sensitive)[joint_name])
    report = {"groups": joint_name, "weights": weights["table"], "refit": params["fairness"]["reweighing"]}
    if not report["refit"]:
        return report
    # the deployed model's configuration, refitted with the weights as sample weights
    model = clone(mlio.load(paths.MODEL))
    trained = read_json(paths.TRAIN_METRICS, "train")
    report.update(model=trained["model"], params=trained["best_params"])
    X = features_of(paths.FINAL_TRAIN_FEATURES, train[paths.ROW_ID].to_numpy(), paths.TRAIN)
    reason = fit_weighted(model, X, y, weights["weights"])
    if reason:
        return {**report, "applied": False, "reason": reason}
    X_test = features_of(paths.FINAL_TEST_FEATURES, test[paths.ROW_ID].to_numpy(), paths.TEST)
    reweighed = (mlio.load(paths.CALIBRATOR).transform(decision_scores(model, X_test)) >= threshold).astype(np.int64)
    return {**report, "applied": True, "scored_through": "the fitted calibrator", "judged_on": "test",
            "test": judge_reweighing(y_test, deployed, reweighed, sensitive_groupings(test, sensitive))}


def plot_rows(attributes: dict) -> list[dict]:
    """fairness.csv: one row per (grouping, group, rate) with its interval; groups carry their attribute's name,
    so "female=0" and "black=0" stay apart in one plot."""
    return [
        {"attribute": name, "group": str(g) if "=" in str(g) else f"{name}={g}", "metric": k, "value": m[k],
         "ci_low": m["intervals"].get(k, [math.nan, math.nan])[0], "ci_high": m["intervals"].get(k, [math.nan, math.nan])[1],
         "small": m["small"]}
        for name, result in attributes.items() for g, m in result["groups"].items() for k in GROUP_RATES
    ]


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
        y, pred, attribute_labels(test, sensitive), proba=p, groups=test[group_column].to_numpy() if group_column else None,
        min_group_size=cfg["min_group_size"], n_boot=cfg["n_boot"], confidence_level=cfg["confidence_level"],
        random_state=params["seed"], n_bins=binning["n_bins"], strategy=binning["binning"])
    for result in attributes.values():
        result["compatibility"] = compatibility(result)
    report["attributes"] = attributes

    train = read_parquet(paths.TRAIN, "split")
    if criterion != "none":
        # out-of-fold rows only (never test), each with the probability of a calibrator fitted without its fold
        oof = read_parquet(paths.OOF_CALIBRATED, "calibrate").merge(
            train[[paths.ROW_ID, *sensitive]], on=paths.ROW_ID, how="left", validate="one_to_one")
        oof_p, oof_y, oof_labels = oof["proba"].to_numpy(), oof["y"].to_numpy(), attribute_labels(oof, sensitive)
        test_labels = attribute_labels(test, sensitive)
        report["mitigation"].update({
            "tolerance": mitigation["tolerance"], "fitted_on": "out-of-fold probabilities, cross-fitted by the calibrate stage",
            "judged_on": "test",
            "attributes": {a: mitigate(oof_p, oof_y, oof_labels[a], p, y, test_labels[a], criterion,
                                       mitigation["tolerance"], threshold, pred) for a in sensitive},
        })
    report["reweighing"] = reweighing(params, train, test, y, pred, threshold)

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
    rw = report["reweighing"]
    if rw.get("applied"):
        shown = criterion if criterion != "none" else "demographic_parity"
        gaps = ", ".join(f"{name} {g[shown]['gap_before']:.3f} -> {g[shown]['gap_after']:.3f}"
                         for name, g in rw["test"]["attributes"].items())
        print(f"fairness: reweighing by {rw['groups']}: test {shown} gaps {gaps}, accuracy cost {rw['test']['accuracy_cost']:.4f}")
    elif rw["refit"]:
        print(f"fairness: reweighing by {rw['groups']}: {rw['reason']}")
    write_json(report, paths.FAIRNESS_METRICS)
    write_csv(pd.DataFrame(plot_rows(attributes)), paths.FAIRNESS_PLOT)


if __name__ == "__main__":
    run_stage(main)
