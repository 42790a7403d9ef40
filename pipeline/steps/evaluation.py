"""The evaluate stage's tables: the test metrics of the deployed predictor's probabilities and decisions, for a
binary or a multiclass target, and the rows of its plots. Everything here is computed from arrays: y (class codes),
P (calibrated (n, K) probabilities), the uncalibrated P, the predictor's decisions and conformal sets.

Binary (seed 004, D4:395-413; corrected table, catalogue section 1): ROC AUC and AP of p(positive), the full table
of the decisions p >= t. K > 2 classes: macro one-vs-rest ROC AUC and per-class ROC / PR, the K x K confusion
matrix with per-class and macro / micro / weighted precision, recall and F1, top-k accuracy, multiclass log loss
and Brier. Both: calibration before / after, expected and realised cost of cost-matrix decisions, the reject option
by the largest probability with its risk-coverage curve (D4:1986-1996), conformal set coverage and size, and the
validation-vs-test gap with the notes' diagnosis (D4:556-572).

Sections cited: Ghent ML notes (seed 004): 3.1 Error Functions for Model Selection (395); 3.5 Analysis of Model
    Performance (556, 567); 11.1 Overconfidence and Unreliability of Models (1986)"""

from __future__ import annotations

import numpy as np

from mllib.conformal import set_summary
from mllib.decisions import (
    aurc,
    coverage_at_risk,
    excess_aurc,
    expected_costs,
    optimal_aurc,
    risk_coverage_curve,
    selective_risk,
)
from mllib.metrics import get_scorer, precision_recall_curve, roc_curve

from ..core.frames import proba_columns, score_columns
from ..core.summaries import binning_spec, calibration_report, group_calibration, reliability_rows
from ..core.task import Classification, Target

GAP_DIAGNOSIS = (
    "validation-test gap beyond two CV standard deviations; the notes' causes (seed 004, D4:567): leakage between "
    "the splits, preprocessing not refitted per fold, over-tuning on the validation folds, or test data not "
    "identically distributed"
)


def gap_report(train_metrics: dict, target: Target, y: np.ndarray, P: np.ndarray | None, decision: np.ndarray) -> dict:
    """The search's scorer on test beside its cross-validated mean and standard deviation; P: (n, K) probabilities
    (None for a regression target, whose predictions are `decision`)."""
    scorer = get_scorer(train_metrics["scoring"])
    test_value = scorer.score(y, target.scorer_input(scorer, P, decision))
    gap = train_metrics["cv_mean"] - test_value
    within = abs(gap) <= 2 * train_metrics["cv_std"]
    return {
        "scoring": scorer.name,
        "cv_mean": train_metrics["cv_mean"],
        "cv_std": train_metrics["cv_std"],
        "test": test_value,
        "gap": gap,
        "diagnosis": "within CV variation" if within else GAP_DIAGNOSIS,
    }


def cost_report(
    target: Classification, y: np.ndarray, P: np.ndarray, decision: np.ndarray, cost_matrix, threshold: float
) -> dict:
    """Expected cost on test of the decisions under the posterior (sum_j cost[a, j] p(j | x) at the decision a),
    their realised average cost[a_i, y_i] over the labels, and the realised cost of the plain rule (binary:
    p(positive) >= decision.threshold; K > 2: the largest probability)."""
    cost = np.asarray(cost_matrix, dtype=np.float64)
    rows = np.arange(y.size)
    return {
        "expected_cost_posterior": float(expected_costs(P, cost)[rows, decision].mean()),
        "realised_cost": float(cost[decision, y].mean()),
        "realised_cost_plain_rule": float(cost[target.plain_decisions(P, threshold), y].mean()),
    }


def selective_report(y: np.ndarray, decided: dict, reject_threshold: float, target_risk: float) -> tuple[dict, dict]:
    """The reject option (abstain when the largest probability is below reject_threshold), the risk-coverage curve
    of the decisions ranked by that confidence, its area (AURC, and E-AURC above the perfect ranking) and the
    coverage at target_risk. Risk = error rate among accepted rows; the curve's last point is the overall error."""
    decision, confidence = decided["decision"], decided["confidence"]
    kept = selective_risk(y, decision, decided["accepted"])
    n_errors = int(np.sum(y != decision))
    report = {
        "confidence": "the largest class probability (binary: max(p, 1 - p))",
        "reject_option": {
            "reject_threshold": reject_threshold,
            **kept,
            "accuracy_accepted": 1.0 - kept["selective_risk"] if kept["n_accepted"] else float("nan"),
        },
        "aurc": aurc(y, decision, confidence),
        "optimal_aurc": optimal_aurc(y.size, n_errors),
        "e_aurc": excess_aurc(y, decision, confidence),
        "error_rate": n_errors / y.size,
        "target_risk": target_risk,
        "at_target_risk": coverage_at_risk(y, decision, confidence, target_risk),
    }
    return report, risk_coverage_curve(y, decision, confidence)


def curves(target: Classification, y: np.ndarray, P: np.ndarray) -> tuple[list[dict], list[dict]]:
    """ROC and PR rows with a `class` field: the positive class (binary) or each class against the rest."""
    names = target.label_names()
    roc, pr = [], []
    for k in target.curve_classes(P):
        if not (y == k).any() or (y == k).all():
            continue
        positive = (y == k).astype(np.int64)
        fpr, tpr, thresholds = roc_curve(positive, P[:, k])
        roc += [{"class": names[k], "fpr": a, "tpr": b, "threshold": t} for a, b, t in zip(fpr, tpr, thresholds)]
        precision, recall, thresholds = precision_recall_curve(positive, P[:, k])
        pr += [
            {"class": names[k], "recall": r, "precision": q, "threshold": t}
            for r, q, t in zip(recall, precision, np.append(thresholds, np.nan))
        ]
    return roc, pr


def rule_of(predictor) -> dict:
    """The deployed predictor's decision rule, as reported."""
    return {
        **predictor.decision_rule(),
        "plain_threshold": predictor.threshold,
        "reject_threshold": predictor.reject_threshold,
        "set_coverage": predictor.conformal.coverage,
    }


def ranking_change(target: Classification, y: np.ndarray, P_raw: np.ndarray, P: np.ndarray) -> dict:
    """The test ranking score of the model's own probabilities and of the deployed (mapped) ones: a monotone map
    (Platt, temperature) leaves it unchanged; isotonic's ties and histogram binning's independently estimated bins
    can move it either way, so the report says when the deployed map changed the ranking the model made."""
    before, after = float(target.ranking_score(y, P_raw)), float(target.ranking_score(y, P))
    return {
        "metric": target.ranking_metric,
        "model": before,
        "deployed": after,
        "changed": bool(abs(after - before) > 1e-12),
    }


def prediction_columns(y, scores, P_raw, P, decided: dict, sets) -> dict:
    """test_predictions.parquet's columns after the row id: the label, the model's scores, the probabilities before
    and after the map, the decision, whether it was accepted (reject option) and the conformal set."""
    K = P.shape[1]
    return {
        "y": y,
        **score_columns(scores),
        **{f"uncalibrated_{k}": P_raw[:, k] for k in range(K)},
        **proba_columns(P),
        "prediction": decided["decision"],
        "accepted": decided["accepted"],
        **{f"in_set_{k}": sets[:, k] for k in range(K)},
    }


def test_metrics(
    target: Classification,
    y: np.ndarray,
    P: np.ndarray,
    P_raw: np.ndarray,
    decided: dict,
    sets: np.ndarray,
    params: dict,
    groupings: dict,
    train_metrics: dict,
    rule: dict,
    y_train: np.ndarray,
) -> tuple[dict, dict]:
    """(test.json, plot data) for the deployed predictor's outputs on the test rows; rule: rule_of(predictor)."""
    decision, bins, names = decided["decision"], params["calibration"], target.label_names()
    selective, risk_curve = selective_report(y, decided, rule["reject_threshold"], params["evaluate"]["target_risk"])
    before, after = calibration_report(target, y, P_raw, bins), calibration_report(target, y, P, bins)
    costs = (
        cost_report(target, y, P, decision, rule["cost_matrix"], rule["plain_threshold"]) if rule["cost_matrix"] else {}
    )
    metrics = {
        "task": target.task,
        "n": int(y.size),
        "classes": names,
        "threshold": rule["threshold"],
        "decision": {k: rule[k] for k in ("rule", "threshold", "cost_matrix")} | costs,
        **target.scores(y, P, decision),
        "log_loss": after["log_loss"],
        "brier": after["brier"],
        "calibration": {
            "binning": binning_spec(bins),
            "before": before,
            "after": after,
            "groups": group_calibration(target, y, P_raw, P, groupings, bins),
            "ranking": ranking_change(target, y, P_raw, P),
        },
        "conformal": {"set_coverage": rule["set_coverage"], **set_summary(sets, y)},
        "cv_vs_test": gap_report(train_metrics, target, y, P, decision),
        "selective": selective,
        "baseline": target.baseline_scores(y_train, y),
    }
    roc, pr = curves(target, y, P)
    plots = {
        "roc": roc,
        "pr": pr,
        "risk_coverage": [dict(zip(risk_curve, v)) for v in zip(*risk_curve.values())],
        "confusion": {"actual": [names[k] for k in y], "predicted": [names[k] for k in decision]},
        "reliability": reliability_rows(target, y, P_raw, bins, "before")
        + reliability_rows(target, y, P, bins, "after"),
    }
    return metrics, plots
