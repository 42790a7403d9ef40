"""Stage 7, evaluate: the test set, used once (seed 004, D4:200, 543): the full corrected metric table,
confusion matrix, ROC and PR curves, calibration on test, and the validation-vs-test gap with the
notes' diagnosis (D4:556-572)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib.calibration import NoCalibration, decision_scores
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
from pipeline.summaries import calibration_quality, reliability_rows

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


def main() -> None:
    params = load_params()
    data, threshold = params["data"], params["evaluate"]["threshold"]
    model, calibrator = mlio.load(paths.MODEL), mlio.load(paths.CALIBRATOR)
    test = read_parquet(paths.TEST, "split")
    X = read_parquet(paths.FINAL_TEST_FEATURES, "features").drop(columns=[paths.ROW_ID]).to_numpy()
    y = binary_target(test[data["target"]], data["positive_label"])

    score = decision_scores(model, X)
    p_raw = NoCalibration().fit(score).transform(score)
    p = calibrator.transform(score)
    pred = (p >= threshold).astype(np.int64)

    table = binary_metrics(y, pred)
    before, after = calibration_quality(y, p_raw, params["calibration"]), calibration_quality(y, p, params["calibration"])
    metrics = {
        "n": int(len(y)),
        "threshold": threshold,
        "roc_auc": roc_auc_score(y, p),
        "average_precision": average_precision_score(y, p),
        **{k: table[k] for k in ("accuracy", "precision", "recall", "specificity", "f1")},
        "log_loss": after["log_loss"],
        "brier": after["brier"],
        "calibration": {"before": before, "after": after},
        "confusion": {k: table[k] for k in ("tp", "fp", "fn", "tn")},
        "table": table,
        "cv_vs_test": gap_report(read_json(paths.TRAIN_METRICS, "train"), y, p, pred),
    }
    fpr, tpr, roc_thr = roc_curve(y, p)
    precision, recall, pr_thr = precision_recall_curve(y, p)
    predictions = pd.DataFrame({paths.ROW_ID: test[paths.ROW_ID], "y": y, "score": score, "proba_uncalibrated": p_raw,
                                "proba": p, "prediction": pred})
    print(f"evaluate: test ROC AUC {metrics['roc_auc']:.4f}, accuracy {metrics['accuracy']:.4f} at threshold {threshold}")

    write_parquet(predictions, paths.TEST_PREDICTIONS)
    write_json(metrics, paths.TEST_METRICS)
    write_json([{"fpr": a, "tpr": b, "threshold": t} for a, b, t in zip(fpr, tpr, roc_thr)], paths.ROC_CURVE)
    write_json([{"recall": r, "precision": q, "threshold": t} for r, q, t in zip(recall, precision, np.append(pr_thr, np.nan))],
               paths.PR_CURVE)
    write_csv(pd.DataFrame({"actual": y, "predicted": pred}), paths.CONFUSION)
    write_json(reliability_rows(y, p_raw, params["calibration"], "before") + reliability_rows(y, p, params["calibration"], "after"),
               paths.RELIABILITY_TEST)


if __name__ == "__main__":
    run_stage(main)
