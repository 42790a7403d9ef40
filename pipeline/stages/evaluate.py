"""Stage 7, evaluate: the test set, used once (seed 004, D4:200, 543): the full corrected metric table,
confusion matrix, ROC and PR curves, calibration on test (overall and within each sensitive group, with the
binning spec), and the validation-vs-test gap with the notes' diagnosis (D4:556-572). Decisions: positive when
the calibrated p >= t, with t = evaluate.threshold or the minimum-expected-cost threshold of evaluate.cost_matrix
(seed 000, lines 179-232); the reject option (abstain when max(p, 1 - p) is below evaluate.reject_threshold,
D4:1986-1996) with its risk-coverage curve, AURC / E-AURC and the coverage at evaluate.target_risk."""
from __future__ import annotations

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib.calibration import NoCalibration, decision_scores
from mllib.decisions import (
    aurc,
    bayes_threshold,
    coverage_at_risk,
    excess_aurc,
    expected_costs,
    optimal_aurc,
    reject_option,
    risk_coverage_curve,
    selective_risk,
)
from mllib.metrics import (
    average_precision_score,
    binary_metrics,
    get_scorer,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import run_stage
from pipeline.frames import binary_target
from pipeline.io import read_json, read_parquet, write_csv, write_json, write_parquet
from pipeline.summaries import binning_spec, calibration_report, group_calibration, reliability_rows, sensitive_groupings

GAP_DIAGNOSIS = (
    "validation-test gap beyond two CV standard deviations; the notes' causes (seed 004, D4:567): leakage between "
    "the splits, preprocessing not refitted per fold, over-tuning on the validation folds, or test data not "
    "identically distributed"
)


def gap_report(train_metrics: dict, y: np.ndarray, p: np.ndarray, pred: np.ndarray) -> dict:
    scorer = get_scorer(train_metrics["scoring"])
    test_value = scorer.score(y, pred if scorer.response == "label" else p)
    gap = train_metrics["cv_mean"] - test_value
    within = abs(gap) <= 2 * train_metrics["cv_std"]
    return {"scoring": scorer.name, "cv_mean": train_metrics["cv_mean"], "cv_std": train_metrics["cv_std"],
            "test": test_value, "gap": gap, "diagnosis": "within CV variation" if within else GAP_DIAGNOSIS}


def realised_cost(y: np.ndarray, pred: np.ndarray, cost_matrix) -> float:
    """Mean cost of the decisions on labelled rows: cost[pred_i][y_i] (rows = decision, columns = true class)."""
    return float(np.mean(np.asarray(cost_matrix, dtype=np.float64)[pred, y]))


def decision_rule(cfg: dict) -> dict:
    """The decision threshold t (positive when p >= t): evaluate.threshold, or the minimum-expected-cost (Bayes)
    threshold of evaluate.cost_matrix when it is set (at p = t both decisions cost the same, so p >= t is also a
    minimum-cost rule, and every stage decides with this one rule)."""
    cost = cfg["cost_matrix"]
    if cost is None:
        return {"rule": "threshold", "threshold": cfg["threshold"], "cost_matrix": None}
    return {"rule": "cost_matrix", "threshold": bayes_threshold(cost), "cost_matrix": cost}


def cost_report(y: np.ndarray, p: np.ndarray, pred: np.ndarray, cost_matrix, plain_threshold: float) -> dict:
    """Expected cost on test of the minimum-risk decisions `pred` (the posterior's own expectation, min over the
    actions of sum_j cost[a, j] p(j | x), and the realised average over the labels) against the plain
    evaluate.threshold rule."""
    plain = (p >= plain_threshold).astype(np.int64)
    return {"expected_cost_posterior": float(expected_costs(p, cost_matrix).min(axis=1).mean()),
            "realised_cost": realised_cost(y, pred, cost_matrix),
            "realised_cost_at_evaluate_threshold": realised_cost(y, plain, cost_matrix)}


def selective_report(y: np.ndarray, p: np.ndarray, pred: np.ndarray, cfg: dict) -> tuple[dict, dict, np.ndarray]:
    """The reject option at evaluate.reject_threshold, the risk-coverage curve of the decisions ranked by the
    confidence max(p, 1 - p), its area (AURC, and E-AURC above the perfect ranking) and the coverage at
    evaluate.target_risk. Risk = error rate among accepted rows; the curve's last point is the overall error."""
    rejected = reject_option(p, cfg["reject_threshold"])
    confidence, accepted = rejected["confidence"], rejected["accepted"]
    kept = selective_risk(y, pred, accepted)
    n_errors = int(np.sum(y != pred))
    report = {
        "confidence": "max(p, 1 - p)",
        "reject_option": {"reject_threshold": cfg["reject_threshold"], **kept,
                          "accuracy_accepted": 1.0 - kept["selective_risk"] if kept["n_accepted"] else float("nan")},
        "aurc": aurc(y, pred, confidence),
        "optimal_aurc": optimal_aurc(len(y), n_errors),
        "e_aurc": excess_aurc(y, pred, confidence),
        "error_rate": n_errors / len(y),
        "target_risk": cfg["target_risk"],
        "at_target_risk": coverage_at_risk(y, pred, confidence, cfg["target_risk"]),
    }
    return report, risk_coverage_curve(y, pred, confidence), accepted


def main() -> None:
    params = load_params()
    data, cfg = params["data"], params["evaluate"]
    rule = decision_rule(cfg)
    threshold = rule["threshold"]
    model, calibrator = mlio.load(paths.MODEL), mlio.load(paths.CALIBRATOR)
    test = read_parquet(paths.TEST, "split")
    X = read_parquet(paths.FINAL_TEST_FEATURES, "features").drop(columns=[paths.ROW_ID]).to_numpy()
    y = binary_target(test[data["target"]], data["positive_label"])

    score = decision_scores(model, X)
    p_raw = NoCalibration().fit(score).transform(score)
    p = calibrator.transform(score)
    pred = (p >= threshold).astype(np.int64)
    selective, curve, accepted = selective_report(y, p, pred, cfg)

    table = binary_metrics(y, pred)
    bins = params["calibration"]
    before, after = calibration_report(y, p_raw, bins), calibration_report(y, p, bins)
    groups = group_calibration(y, p_raw, p, sensitive_groupings(test, data["sensitive"]), bins)
    metrics = {
        "n": int(len(y)),
        "threshold": threshold,
        "decision": {**rule, **(cost_report(y, p, pred, rule["cost_matrix"], cfg["threshold"]) if rule["cost_matrix"] else {})},
        "roc_auc": roc_auc_score(y, p),
        "average_precision": average_precision_score(y, p),
        **{k: table[k] for k in ("accuracy", "precision", "recall", "specificity", "f1")},
        "log_loss": after["log_loss"],
        "brier": after["brier"],
        "calibration": {"binning": binning_spec(bins), "before": before, "after": after, "groups": groups},
        "confusion": {k: table[k] for k in ("tp", "fp", "fn", "tn")},
        "table": table,
        "cv_vs_test": gap_report(read_json(paths.TRAIN_METRICS, "train"), y, p, pred),
        "selective": selective,
    }
    fpr, tpr, roc_thr = roc_curve(y, p)
    precision, recall, pr_thr = precision_recall_curve(y, p)
    predictions = pd.DataFrame({paths.ROW_ID: test[paths.ROW_ID], "y": y, "score": score, "proba_uncalibrated": p_raw,
                                "proba": p, "prediction": pred, "accepted": accepted})
    reject = selective["reject_option"]
    print(f"evaluate: test ROC AUC {metrics['roc_auc']:.4f}, accuracy {metrics['accuracy']:.4f} at threshold {threshold:.4g} "
          f"({rule['rule']}); reject option: coverage {reject['coverage']:.3f}, selective risk {reject['selective_risk']:.4f}; "
          f"AURC {selective['aurc']:.4f}, E-AURC {selective['e_aurc']:.4f}")

    write_parquet(predictions, paths.TEST_PREDICTIONS)
    write_json(metrics, paths.TEST_METRICS)
    write_json([{"fpr": a, "tpr": b, "threshold": t} for a, b, t in zip(fpr, tpr, roc_thr)], paths.ROC_CURVE)
    write_json([{"recall": r, "precision": q, "threshold": t} for r, q, t in zip(recall, precision, np.append(pr_thr, np.nan))],
               paths.PR_CURVE)
    write_csv(pd.DataFrame({"actual": y, "predicted": pred}), paths.CONFUSION)
    write_json([dict(zip(curve, values)) for values in zip(*curve.values())], paths.RISK_COVERAGE)
    write_json(reliability_rows(y, p_raw, bins, "before") + reliability_rows(y, p, bins, "after"), paths.RELIABILITY_TEST)


if __name__ == "__main__":
    run_stage(main)
