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

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

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
from mllib.metrics import (
    auc_score_interval,
    bootstrap_intervals,
    get_scorer,
    one_vs_rest_auc,
    precision_recall_curve,
    roc_auc_ovr,
    roc_auc_score,
    roc_curve,
)

from ..core.build import component_seed
from ..core.frames import proba_columns, score_columns
from ..core.json_types import JSON
from ..core.records import TrainMetrics
from ..core.summaries import binning_spec, calibration_report, group_calibration, reliability_rows
from ..core.task import Classification, Target

if TYPE_CHECKING:
    from mllib.base import GroupLabels
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.metrics.scorers import Scorer

CostMatrix = list[list[float]] | None  # decision.cost_matrix: cost[decided class][true class], or None
Figures = Callable[[np.ndarray], dict[str, float]]  # the test figures on the given rows (with_intervals)

GAP_DIAGNOSIS = (
    "validation-test gap beyond two CV standard deviations; the notes' causes (seed 004, D4:567): leakage between "
    "the splits, preprocessing not refitted per fold, over-tuning on the validation folds, or test data not "
    "identically distributed"
)


def with_intervals(
    figures_of: Figures,
    n: int,
    params: JSON,
    clusters: np.ndarray | None = None,
    strata: np.ndarray | None = None,
) -> JSON:
    """Every figure of figures_of(rows) on the n test rows with its percentile bootstrap interval
    (evaluate.n_boot replicates at evaluate.confidence_level): whole clusters of data.group drawn together when it is
    set, else within each class (strata) or by rows. A replicate where a figure is undefined leaves it out."""
    cfg = params["evaluate"]
    n_units = n if clusters is None else np.unique(clusters).size
    max_units = None if cfg["max_rows"] is None else max(2, int(cfg["max_rows"] * n_units / n))
    names: list[str] = []  # the figures' names, from the first call: the figures on every row

    def statistic(rows: np.ndarray) -> dict[str, float]:
        try:
            figures = figures_of(rows)
        except ValueError:  # e.g. a cluster draw without one of the classes: every figure of it undefined
            if not names:
                raise
            return dict.fromkeys(names, float("nan"))
        names[:] = names or list(figures)
        return figures

    boot = bootstrap_intervals(
        statistic,
        n,
        cfg["n_boot"],
        cfg["confidence_level"],
        component_seed(params["seed"], "evaluate intervals"),
        clusters=clusters,
        strata=strata,
        max_units=max_units,
    )
    drawn = {
        "cluster": f"the test rows' {params['data']['group']} clusters (a cluster's rows drawn together)",
        "stratified row": "the test rows within each class",
        "row": "the test rows",
    }[boot["unit"]]
    sampled, point = boot["subsample"], boot["point"]
    return {
        "method": f"percentile bootstrap, {boot['n_boot']} draws with replacement of {drawn}"
        + (
            f", from a seeded sample of {sampled['units']:,} of the {boot['n_units']:,} units (evaluate.max_rows), "
            f"the ends rescaled by sqrt({sampled['units']:,} / {boot['n_units']:,}) = {sampled['scale']:.3g} "
            "(the m-out-of-n bootstrap)"
            if sampled
            else ""
        ),
        "confidence_level": boot["confidence_level"],
        "n_boot": boot["n_boot"],
        "unit": boot["unit"],
        "n": int(n),
        "n_units": boot["n_units"],
        "figures": {
            m: {"value": point[m], "interval": boot["intervals"][m], "defined_draws": boot["defined"][m]} for m in point
        },
    }


def widen_ranking_interval(intervals: JSON, metric: str, score_interval: list[float]) -> None:
    """The ROC AUC's interval: the hull of the bootstrap's and the Hanley-McNeil score interval's (a bootstrap of
    few rows that separate perfectly is [1, 1]; 17 test rows at AUC 1.000 became champion on it)."""
    figure = intervals["figures"][metric]
    figure["bootstrap_interval"], figure["score_interval"] = figure["interval"], score_interval
    figure["interval"] = [float(np.nanmin([figure["interval"][0], score_interval[0]])),
                          float(np.nanmax([figure["interval"][1], score_interval[1]]))]  # fmt: skip
    intervals["method"] += (
        f"; {metric}: the hull of that and its Hanley-McNeil score interval (Newcombe 2006), which a bootstrap of few "
        "rows at the boundary (AUC 1) cannot give"
    )


def against_no_skill(target: Classification, y: np.ndarray, decision: np.ndarray, no_skill: int,
                     cost_matrix: CostMatrix, intervals: JSON) -> JSON:  # fmt: skip
    """The deployed rule beside the rule that ignores the features (one class for every row): their loss on test
    (realised cost with decision.cost_matrix, else balanced error), the gain with its interval, and how many rows
    each class was decided for."""
    names, figures = target.label_names(), intervals["figures"]
    decided = target.counts(decision)
    return {
        "metric": "realised cost per row (decision.cost_matrix)"
        if cost_matrix
        else "balanced error (1 - the mean recall over the classes)",
        "no_skill_rule": f"decide {names[no_skill]} for every row, the training rows' "
        + ("class of least expected cost" if cost_matrix else "most frequent class"),
        "loss": figures["decision_loss"]["value"],
        "no_skill_loss": figures["no_skill_decision_loss"]["value"],
        "gain": figures["decision_gain"]["value"],
        "gain_interval": figures["decision_gain"]["interval"],
        "decided": decided,
        "classes_decided": sum(1 for v in decided.values() if v),
        "same_as_no_skill": bool(np.all(decision == no_skill)),
    }


def binary_scores(target: Classification, y: np.ndarray, P: np.ndarray, decision: np.ndarray) -> JSON:
    """The test scores of p(positive) and the decisions, with the full metric table and the confusion counts."""
    from mllib.metrics import average_precision_score, binary_metrics, roc_auc_score

    table = binary_metrics(y, decision)
    return {
        "roc_auc": roc_auc_score(y, P[:, 1]),
        "average_precision": average_precision_score(y, P[:, 1]),
        **{k: table[k] for k in ("accuracy", "precision", "recall", "specificity", "f1")},
        "confusion": {k: table[k] for k in ("tp", "fp", "fn", "tn")},
        "table": table,
    }


def multiclass_scores(target: Classification, y: np.ndarray, P: np.ndarray, decision: np.ndarray) -> JSON:
    """Accuracy, balanced accuracy, macro averages, per class one against the rest (precision, recall, F1, ROC
    AUC, average precision), top-k accuracy and the confusion matrix."""
    from mllib.metrics import (
        average_precision_score,
        multiclass_report,
        one_vs_rest_auc,
        roc_auc_ovr,
        top_k_accuracy,
    )

    names, K = target.label_names(), P.shape[1]
    report = multiclass_report(y, decision, labels=np.arange(K))
    auc = one_vs_rest_auc(y, P)
    ap = [
        average_precision_score((y == k).astype(np.int64), P[:, k]) if (y == k).any() else float("nan")
        for k in range(K)
    ]
    per_class = {
        name: {
            "precision": report["per_class"]["precision"][k],
            "recall": report["per_class"]["recall"][k],
            "f1": report["per_class"]["f_beta"][k],
            "support": int(report["per_class"]["support"][k]),
            "roc_auc_ovr": auc[k],
            "average_precision": ap[k],
        }
        for k, name in enumerate(names)
    }
    return {
        "roc_auc_ovr": roc_auc_ovr(y, P),
        "accuracy": report["accuracy"],
        "balanced_accuracy": report["balanced_accuracy"],
        "f1_macro": report["averages"]["macro"]["f1"],
        "precision_macro": report["averages"]["macro"]["precision"],
        "recall_macro": report["averages"]["macro"]["recall"],
        "averages": report["averages"],
        "per_class": per_class,
        "top_k_accuracy": {str(k): top_k_accuracy(y, P, k) for k in range(1, K)},
        "confusion": {
            "labels": names,
            "matrix": report["confusion"].tolist(),
            "orientation": "rows = true class, columns = decided class",
        },
    }


# by classification task: every test metric of probabilities P and decisions, and the ones the no-skill rule's test
# figures show
SCORES: dict[str, Callable[[Classification, np.ndarray, np.ndarray, np.ndarray], JSON]] = {
    "binary": binary_scores,
    "multiclass": multiclass_scores,
}
BASELINE_METRICS = {
    "binary": ("roc_auc", "average_precision", "accuracy", "precision", "recall", "f1"),
    "multiclass": ("accuracy", "roc_auc_ovr", "balanced_accuracy", "f1_macro"),
}


def no_skill_decision(target: Classification, y_train: np.ndarray, cost_matrix: CostMatrix) -> int:
    """The rule that ignores the features: one class for every row, the training rows' most frequent class, or
    with decision.cost_matrix the class of least expected cost under their class shares."""
    prior = target.class_counts(y_train) / y_train.size
    if cost_matrix is None:
        return int(np.argmax(prior))
    return int(np.argmin(np.asarray(cost_matrix, dtype=np.float64) @ prior))


def decision_loss(y: np.ndarray, decision: np.ndarray, cost_matrix: CostMatrix) -> float:
    """What the deployed rule is judged on against the no-skill rule: the realised cost per row under
    decision.cost_matrix, else the balanced error (1 - the mean recall over the classes present), which every
    one-class rule holds at 1 - 1/K whatever the class shares."""
    from mllib.metrics.confusion import balanced_accuracy_score

    if cost_matrix is not None:
        return float(np.asarray(cost_matrix, dtype=np.float64)[decision, y].mean())
    return 1.0 - balanced_accuracy_score(y, decision)


def test_figures(
    target: Classification,
    y: np.ndarray,
    P: np.ndarray,
    decision: np.ndarray,
    no_skill: int,
    cost_matrix: CostMatrix,
    cfg: JSON,
) -> dict[str, float]:
    """The test figures given an interval (evaluate.n_boot): the headline metrics, the ECE of the deployed
    probabilities, and the decision rule's loss beside the no-skill rule's with their difference (the gain)."""
    from mllib.calibration import expected_calibration_error
    from mllib.metrics import brier_score, log_loss

    scores = SCORES[target.task](target, y, P, decision)
    figures = {m: scores[m] for m in target.test_metrics if m in scores}
    figures["log_loss"] = log_loss(y, target.metric_probabilities(P))
    figures["brier"] = brier_score(y, target.metric_probabilities(P))
    figures["ece"] = expected_calibration_error(*target.calibration_view(y, P), cfg["n_bins"], cfg["binning"])
    loss = decision_loss(y, decision, cost_matrix)
    base = decision_loss(y, np.full(y.size, no_skill), cost_matrix)
    return figures | {"decision_loss": loss, "no_skill_decision_loss": base, "decision_gain": base - loss}


def baseline_scores(target: Classification, y_train: np.ndarray, y: np.ndarray) -> JSON:
    """The no-skill baseline's test scores: the training rows' class frequencies for every row (the majority
    class decided), with the metrics of the model beside it."""
    from mllib.baseline import PriorClassifier
    from mllib.metrics import brier_score, log_loss

    P = PriorClassifier().fit(np.zeros((y_train.size, 1)), y_train).predict_proba(np.zeros((y.size, 1)))
    scores = SCORES[target.task](target, y, P, np.argmax(P, axis=1))
    return {
        "model": "class prior of the training rows",
        **{k: scores[k] for k in BASELINE_METRICS[target.task]},
        "log_loss": log_loss(y, target.metric_probabilities(P)),
        "brier": brier_score(y, target.metric_probabilities(P)),
    }


def _classification_scorer_input(
    target: Classification, scorer: Scorer, P: np.ndarray | None, decision: np.ndarray
) -> np.ndarray:
    """What the search's scorer reads of the deployed outputs: the decisions, or the probabilities it takes."""
    if scorer.response == "label":
        return decision
    assert P is not None  # a classifier's outputs always hold its probabilities
    return P[:, 1] if scorer.response == "score" else target.metric_probabilities(P)


def _binary_ranking_interval(y: np.ndarray, P: np.ndarray, level: float) -> list[float]:
    """The ROC AUC's Hanley-McNeil score interval (mllib.metrics.auc_score_interval): wide when few rows separate
    perfectly, where a bootstrap has no spread."""
    interval: list[float] = auc_score_interval(
        roc_auc_score(y, P[:, 1]), int(np.sum(y == 1)), int(np.sum(y == 0)), level
    )
    return interval


def _multiclass_ranking_interval(y: np.ndarray, P: np.ndarray, level: float) -> list[float]:
    """The mean over the classes present of each one-vs-rest AUC's Hanley-McNeil score interval ends (as if the
    classes' errors moved together: conservative)."""
    auc = one_vs_rest_auc(y, P)
    ends = [
        auc_score_interval(auc[k], int(np.sum(y == k)), int(np.sum(y != k)), level)
        for k in range(P.shape[1])
        if not np.isnan(auc[k])
    ]
    interval: list[float] = np.mean(ends, axis=0).tolist()
    return interval


# by task: what the search's scorer reads of the deployed outputs (a regression target's: its predictions)
SCORER_INPUTS: dict[str, Callable[..., np.ndarray]] = {
    "binary": _classification_scorer_input,
    "multiclass": _classification_scorer_input,
    "regression": lambda target, scorer, P, predictions: predictions,
}
# by classification task: the rule without costs (p(positive) >= decision.threshold, or the largest probability),
# the classes whose ROC and PR curves are drawn (the positive one, or each against the rest), the ranking metric
# (what a calibration map may change of the ranking) and its confidence interval
PLAIN_DECISIONS: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {
    "binary": lambda P, threshold: (P[:, 1] >= threshold).astype(np.int64),
    "multiclass": lambda P, threshold: np.argmax(P, axis=1),
}
CURVE_CLASSES: dict[str, Callable[[np.ndarray], Iterable[int]]] = {
    "binary": lambda P: [1],
    "multiclass": lambda P: range(P.shape[1]),
}
RANKING_SCORES: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "binary": lambda y, P: roc_auc_score(y, P[:, 1]),
    "multiclass": roc_auc_ovr,
}
RANKING_INTERVALS: dict[str, Callable[[np.ndarray, np.ndarray, float], list[float]]] = {
    "binary": _binary_ranking_interval,
    "multiclass": _multiclass_ranking_interval,
}


def gap_report(
    train_metrics: TrainMetrics, target: Target, y: np.ndarray, P: np.ndarray | None, decision: np.ndarray
) -> JSON:
    """The search's scorer on test beside its cross-validated mean and standard deviation; P: (n, K) probabilities
    (None for a regression target, whose predictions are `decision`)."""
    scorer = get_scorer(train_metrics.scoring)
    test_value = scorer.score(y, SCORER_INPUTS[target.task](target, scorer, P, decision))
    gap = train_metrics.cv_mean - test_value
    within = abs(gap) <= 2 * train_metrics.cv_std
    return {
        "scoring": scorer.name,
        "cv_mean": train_metrics.cv_mean,
        "cv_std": train_metrics.cv_std,
        "test": test_value,
        "gap": gap,
        "diagnosis": "within CV variation" if within else GAP_DIAGNOSIS,
    }


def cost_report(
    target: Classification,
    y: np.ndarray,
    P: np.ndarray,
    decision: np.ndarray,
    cost_matrix: list[list[float]],
    threshold: float,
) -> JSON:
    """Expected cost on test of the decisions under the posterior (sum_j cost[a, j] p(j | x) at the decision a),
    their realised average cost[a_i, y_i] over the labels, and the realised cost of the plain rule (binary:
    p(positive) >= decision.threshold; K > 2: the largest probability)."""
    cost = np.asarray(cost_matrix, dtype=np.float64)
    rows = np.arange(y.size)
    return {
        "expected_cost_posterior": float(expected_costs(P, cost)[rows, decision].mean()),
        "realised_cost": float(cost[decision, y].mean()),
        "realised_cost_plain_rule": float(cost[PLAIN_DECISIONS[target.task](P, threshold), y].mean()),
    }


def selective_report(
    y: np.ndarray, decided: dict[str, np.ndarray], reject_threshold: float, target_risk: float
) -> tuple[JSON, dict[str, np.ndarray]]:
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


def curves(target: Classification, y: np.ndarray, P: np.ndarray) -> tuple[list[JSON], list[JSON]]:
    """ROC and PR rows with a `class` field: the positive class (binary) or each class against the rest."""
    names = target.label_names()
    roc: list[JSON] = []
    pr: list[JSON] = []
    for k in CURVE_CLASSES[target.task](P):
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


def rule_of(predictor: DeployedPredictor) -> JSON:
    """The deployed predictor's decision rule, as reported."""
    return {
        **predictor.decision_rule(),
        "plain_threshold": predictor.threshold,
        "reject_threshold": predictor.reject_threshold,
        "set_coverage": predictor.conformal.coverage,
    }


def ranking_change(target: Classification, y: np.ndarray, P_raw: np.ndarray, P: np.ndarray) -> JSON:
    """The test ranking score of the model's own probabilities and of the deployed (mapped) ones: a monotone map
    (Platt, temperature) leaves it unchanged; isotonic's ties and histogram binning's independently estimated bins
    can move it either way, so the report says when the deployed map changed the ranking the model made."""
    before, after = float(RANKING_SCORES[target.task](y, P_raw)), float(RANKING_SCORES[target.task](y, P))
    return {
        "metric": target.ranking_metric,
        "model": before,
        "deployed": after,
        "changed": bool(abs(after - before) > 1e-12),
    }


def prediction_columns(
    y: np.ndarray,
    scores: np.ndarray,
    P_raw: np.ndarray,
    P: np.ndarray,
    decided: dict[str, np.ndarray],
    sets: np.ndarray,
) -> dict[str, np.ndarray]:
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
    decided: dict[str, np.ndarray],
    sets: np.ndarray,
    params: JSON,
    groupings: dict[str, GroupLabels],
    train_metrics: TrainMetrics,
    rule: JSON,
    y_train: np.ndarray,
    clusters: np.ndarray | None = None,
) -> tuple[JSON, JSON]:
    """(test.json, plot data) for the deployed predictor's outputs on the test rows; rule: rule_of(predictor);
    clusters: the data.group value of each test row (the intervals draw whole clusters), or None."""
    decision, bins, names = decided["decision"], params["calibration"], target.label_names()
    no_skill = no_skill_decision(target, y_train, rule["cost_matrix"])
    intervals = with_intervals(
        lambda rows: test_figures(target, y[rows], P[rows], decision[rows], no_skill, rule["cost_matrix"], bins),
        y.size,
        params,
        clusters=clusters,
        strata=y,
    )
    widen_ranking_interval(
        intervals, target.headline_metric, RANKING_INTERVALS[target.task](y, P, intervals["confidence_level"])
    )
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
        "decision": {k: rule[k] for k in ("rule", "threshold", "cost_matrix")}
        | costs
        | {"against_no_skill": against_no_skill(target, y, decision, no_skill, rule["cost_matrix"], intervals)},
        **SCORES[target.task](target, y, P, decision),
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
        "baseline": baseline_scores(target, y_train, y),
        "bootstrap": intervals,
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
