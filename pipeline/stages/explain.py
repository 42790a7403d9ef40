"""Stage 9, explain: permutation importance on the held-out test rows (seed 004, D4:2022-2040), computed in
the raw feature space of the user's data: a raw column is shuffled, then passed through the fitted feature
transformer, the model and the calibrator, so the importance is that of the deployed predictor and a
one-hot-encoded column counts once."""
from __future__ import annotations

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib.calibration import decision_scores
from mllib.explain import permutation_importance
from mllib.metrics import get_scorer
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import run_stage
from pipeline.frames import binary_target, feature_columns, raw_matrix
from pipeline.io import read_parquet, write_csv, write_json


def deployed_predictor(transformer, model, calibrator, response: str, threshold: float):
    """Raw matrix -> what the scorer needs: calibrated probability, raw score, or the thresholded decision."""
    def predict(X_raw):
        score = decision_scores(model, transformer.transform(X_raw))
        if response == "score":
            return score
        p = calibrator.transform(score)
        return (p >= threshold).astype(np.int64) if response == "label" else p
    return predict


def main() -> None:
    params = load_params()
    data, cfg = params["data"], params["explain"]
    transformer, model = mlio.load(paths.FEATURE_TRANSFORMER), mlio.load(paths.MODEL)
    calibrator = mlio.load(paths.CALIBRATOR)
    test = read_parquet(paths.TEST, "split")
    numeric, categorical = feature_columns(test.columns, data)
    X = raw_matrix(test, numeric, categorical)
    y = binary_target(test[data["target"]], data["positive_label"])
    scorer = get_scorer(cfg["scoring"])
    predict = deployed_predictor(transformer, model, calibrator, scorer.response, params["evaluate"]["threshold"])

    result = permutation_importance(predict, X, y, scorer, n_repeats=cfg["n_repeats"], random_state=params["seed"])
    names = numeric + categorical
    order = np.argsort(-result["importances_mean"], kind="stable")
    features = [{"feature": names[j], "mean": result["importances_mean"][j], "std": result["importances_std"][j],
                 "repeats": result["importances"][j]} for j in order]
    top = ", ".join(f"{f['feature']} {f['mean']:.4f}" for f in features[:5])
    print(f"explain: permutation importance ({scorer.name} drop, {cfg['n_repeats']} repeats): {top}")
    write_json({"method": "permutation", "scoring": scorer.name, "baseline": result["baseline_score"],
                "n_repeats": cfg["n_repeats"], "features": features}, paths.IMPORTANCE)
    write_csv(pd.DataFrame({"feature": [f["feature"] for f in features], "importance": [f["mean"] for f in features]}),
              paths.IMPORTANCE_PLOT)


if __name__ == "__main__":
    run_stage(main)
