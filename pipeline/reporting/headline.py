"""The headline figures of a run (each test metric with the no-skill baseline's beside it, `test_no_skill.*`, which
sorts after `test.*` so MLflow's compare view does not open on a constant): the few dozen numbers a reader compares
between experiments (`dvc metrics show`, `dvc exp show`, the MLflow run's metrics, the promotion gate), each once.
The stages' detailed reports stay in their own JSON files and plots; these are picked from them, with the same dotted
names everywhere (e.g. `test.roc_auc`).
"""

from __future__ import annotations

import math

CLASSIFICATION_TEST = ("accuracy", "log_loss", "brier")
BINARY_TEST = ("roc_auc", "average_precision", "precision", "recall", "f1")
MULTICLASS_TEST = ("roc_auc_ovr", "balanced_accuracy", "f1_macro")
REGRESSION_TEST = ("rmse", "mae", "r2", "mean_residual")
HEADLINE_METRIC = {"binary": "roc_auc", "multiclass": "roc_auc_ovr", "regression": "r2"}  # higher is better


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def _pick(source: dict, keys) -> dict:
    return {k: _number(source.get(k)) for k in keys}


def headline(train: dict, calibration: dict, test: dict, fairness: dict, assessment: dict) -> dict:
    """{section: {name: number}}: the search's CV score and gap, the test metrics of the task, calibration or
    interval quality, and the fairness gaps of each sensitive attribute and their intersections."""
    task = test["task"]
    out = {
        "train": {
            "cv_mean": train["cv_mean"],
            "cv_std": train["cv_std"],
            "cv_pooled": train["cv_pooled"],
            "n_candidates": train["n_candidates"],
            "baseline_cv_mean": train["baseline"]["cv_mean"],
        },
        "test": {"cv_vs_test_gap": test["cv_vs_test"]["gap"]},
    }
    if task == "regression":
        intervals = test["intervals"]
        out["test"].update(_pick(test, REGRESSION_TEST))
        out["test_no_skill"] = _pick(test["baseline"], REGRESSION_TEST)
        out["intervals"] = {
            "coverage": intervals[intervals["deployed"]]["coverage"],
            "mean_width": intervals[intervals["deployed"]]["mean_width"],
            "target_coverage": intervals["coverage_target"],
        }
    else:
        picked = CLASSIFICATION_TEST + (BINARY_TEST if task == "binary" else MULTICLASS_TEST)
        out["test"].update(_pick(test, picked))
        out["test_no_skill"] = _pick(test["baseline"], picked)
        out["calibration"] = {
            "oof_ece_before": calibration["oof_before"]["ece"],
            "oof_ece_after": calibration["oof_after_crossfitted"]["ece"],
            "test_ece_before": test["calibration"]["before"]["ece"],
            "test_ece_after": test["calibration"]["after"]["ece"],
        }
        reject = test["selective"]["reject_option"]
        out["decisions"] = {
            "reject_coverage": reject["coverage"],
            "selective_risk": _number(reject["selective_risk"]),
            "aurc": test["selective"]["aurc"],
            "set_coverage": test["conformal"]["coverage"],
            "mean_set_size": test["conformal"]["mean_set_size"],
        }
    out["fairness"] = {
        **fairness_gaps(fairness),
        "n_attributes": sum(" & " not in a for a in fairness.get("attributes", {})),
    }
    out["trust"] = {
        "leakage_inflation": _number(assessment["leakage"].get("inflation")),
        "learning_curve_gap": _number((assessment["learning_curve"] or {}).get("diagnosis", {}).get("train_valid_gap")),
        "nested_cv_mean": _number((assessment.get("nested") or {}).get("outer_mean")),
        "search_optimism": _number((assessment.get("nested") or {}).get("optimism")),
        # feature columns that alone predict the target beyond assess.single_feature_bound and are not declared
        # legitimate (None: not checked); the promotion gate requires 0
        "leaky_features": (
            len(assessment["single_feature"]["flagged"]) if "bound" in assessment["single_feature"] else None
        ),
    }
    return out


def fairness_gaps(fairness: dict) -> dict:
    """Per sensitive attribute and every intersection of them ("female x black": MLflow's metric names take no "&"):
    the parity gaps (classification) or the error, bias and coverage gaps (regression), max - min over the groups
    large enough. The gate's fairness bound reads them all, so a gap that only shows in an intersection counts."""
    gaps = {}
    for grouping, result in fairness.get("attributes", {}).items():
        attribute = grouping.replace(" & ", " x ")
        if "gaps" in result:  # regression
            for metric in ("mae", "mean_residual", "interval_coverage"):
                gaps[f"{attribute}.{metric}_gap"] = _number(result["gaps"][metric]["difference"])
        else:
            for criterion in ("demographic_parity", "equal_opportunity"):
                gaps[f"{attribute}.{criterion}_gap"] = _number(result["criteria"][criterion]["difference"])
    return gaps


def flat(headline_figures: dict) -> dict[str, float]:
    """{"section.name": number} of the defined figures (the MLflow metrics and the promotion gate's view)."""
    return {
        f"{section}.{name}": value
        for section, values in headline_figures.items()
        for name, value in values.items()
        if value is not None
    }
