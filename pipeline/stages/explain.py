"""Stage 9, explain: what the deployed predictor relies on, in the raw feature space of the user's data
(seed 004, D4:2002-2056; catalogue section 4). Permutation importance with intervals on the held-out test rows
(a raw column is shuffled, then passed through the fitted features, the model and the calibrator, so a
one-hot-encoded column counts once); Shapley values of a seeded sample of test rows (TreeSHAP, the linear closed
form, KernelSHAP or exact enumeration), each with its additivity error; partial dependence and ICE curves of the
most important features; and for neural networks gradient x input / LRP with their conservation error. A label
metric scores the decisions the evaluate stage made (p >= its threshold, read from its metrics file).
Per raw column, TreeSHAP values are sums over the column's encoded columns: additive, but the raw-column game's
Shapley values only for linear models (pipeline/explanations.py; attributions.json says so per method)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib.calibration import decision_scores
from mllib.explain import partial_dependence, permutation_importance
from mllib.metrics import get_scorer
from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.explanations import (RAW_COLUMN_NOTE, choose_method, raw_column_of, relevance_attributions,
                                   shapley_attributions)
from pipeline.frames import binary_target, feature_columns, raw_matrix
from pipeline.io import read_json, read_parquet, write_csv, write_json


def deployed_predictor(transformer, model, calibrator, response: str, threshold: float):
    """Raw matrix -> what the scorer needs: calibrated probability, raw score, or the evaluate stage's decision
    p >= threshold."""
    def predict(X_raw):
        score = decision_scores(model, transformer.transform(X_raw))
        if response == "score":
            return score
        p = calibrator.transform(score)
        return (p >= threshold).astype(np.int64) if response == "label" else p
    return predict


def importance_rows(result: dict, names: list[str]) -> list[dict]:
    """Per raw column, largest first: mean drop, std over repeats (ddof=1) and the library's Student-t interval."""
    order = np.argsort(-result["importances_mean"], kind="stable")
    low, high = result["importances_interval"].T
    return [{"feature": names[j], "mean": result["importances_mean"][j], "std": result["importances_std"][j],
             "ci_low": low[j], "ci_high": high[j], "repeats": result["importances"][j]} for j in order]


def attribution_summary(values: np.ndarray, names: list[str]) -> list[dict]:
    mean_abs = np.abs(values).mean(axis=0)
    return [{"feature": names[j], "mean_abs": mean_abs[j], "mean": values[:, j].mean()}
            for j in np.argsort(-mean_abs, kind="stable")]


def pdp_curves(predict, X, names, features: list[int], grid_resolution: int, percentiles) -> dict:
    """1-D PD + ICE for each feature, 2-D PD for the first two; numeric grids span the given percentiles."""
    one_way = []
    for j in features:
        out = partial_dependence(predict, X, j, grid_resolution=grid_resolution, percentiles=percentiles)
        one_way.append({"feature": names[j], "grid": out["grid"][0].tolist(), "average": out["average"],
                        "ice": out["individual"]})
    two_way = None
    if len(features) >= 2:
        out = partial_dependence(predict, X, features[:2], grid_resolution=min(grid_resolution, 10), percentiles=percentiles)
        two_way = {"features": [names[j] for j in features[:2]], "grid": [g.tolist() for g in out["grid"]],
                   "average": out["average"]}
    return {"one_way": one_way, "two_way": two_way}


def main() -> None:
    params = load_params()
    data, cfg, seed = params["data"], params["explain"], params["seed"]
    transformer, model = mlio.load(paths.FEATURE_TRANSFORMER), mlio.load(paths.MODEL)
    calibrator = mlio.load(paths.CALIBRATOR)
    test, train = read_parquet(paths.TEST, "split"), read_parquet(paths.TRAIN, "split")
    numeric, categorical = feature_columns(test.columns, data)
    names = numeric + categorical
    X, X_train = raw_matrix(test, numeric, categorical), raw_matrix(train, numeric, categorical)
    y = binary_target(test[data["target"]], data["positive_label"])
    scorer = get_scorer(cfg["scoring"])
    decided = read_json(paths.TEST_METRICS, "evaluate")["decision"]  # the rule evaluate decided with
    decision = {k: decided[k] for k in ("rule", "threshold", "cost_matrix")}
    predict = deployed_predictor(transformer, model, calibrator, scorer.response, decision["threshold"])
    proba = deployed_predictor(transformer, model, calibrator, "probability", decision["threshold"])
    kernel = {"n_samples": cfg["kernel_samples"], "n_bootstrap": cfg["kernel_bootstrap"]}
    grid_resolution, percentiles = cfg["grid_resolution"], tuple(cfg["pdp_percentiles"])

    result = permutation_importance(predict, X, y, scorer, n_repeats=cfg["n_repeats"], random_state=seed)
    features = importance_rows(result, names)
    print("explain: permutation importance (" + scorer.name + " drop): "
          + ", ".join(f"{f['feature']} {f['mean']:.4f}" for f in features[:5]))

    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(len(X), size=min(cfg["n_rows"], len(X)), replace=False))
    background = X_train[np.sort(rng.choice(len(X_train), size=min(cfg["n_background"], len(X_train)), replace=False))]
    encoded = list(transformer.get_feature_names_out(names))
    owners = raw_column_of(encoded, names)
    method = choose_method(cfg["shapley"], model, owners)
    attributions = {"columns": names, "rows": rows.tolist(), "n_background": len(background)}
    if method != "none":
        try:
            shap = shapley_attributions(method, model, transformer, X[rows], background, proba, kernel, seed, owners)
        except ValueError as exc:
            raise PipelineError(f"explain: {exc}") from None
        scale = max(np.abs(shap["prediction"]).max(), abs(shap["expected_value"]), 1e-300)
        attributions["shapley"] = {
            "method": method, "output": shap["output"], "raw_columns": RAW_COLUMN_NOTE[method],
            "expected_value": shap["expected_value"],
            "additivity_error_max": float(shap["additivity_error"].max()),
            "additivity_error_max_relative": float(shap["additivity_error"].max() / scale),
            "features": attribution_summary(shap["values"], names), "values": shap["values"],
            "standard_errors": shap.get("standard_errors"),
        }
        print(f"explain: Shapley ({method}, {shap['output']}): top "
              + ", ".join(f["feature"] for f in attributions["shapley"]["features"][:5])
              + f"; additivity error {attributions['shapley']['additivity_error_max_relative']:.1e} (relative)")
    try:
        relevance = relevance_attributions(cfg["relevance"], model, transformer, X[rows], owners, cfg["lrp_epsilon"],
                                           X_train)
    except ValueError as exc:
        raise PipelineError(f"explain.relevance {cfg['relevance']!r}: {exc}") from None
    if relevance is not None:
        finite = relevance["conservation_error"][np.isfinite(relevance["conservation_error"])]
        attributions["relevance"] = {"method": cfg["relevance"], "output": relevance["output"],
                                     "conservation_error_median": float(np.median(finite)) if finite.size else None,
                                     "features": attribution_summary(relevance["values"], names)}

    top = [names.index(f["feature"]) for f in features[:cfg["pdp_features"]]]
    pdp = pdp_curves(proba, X[rows], names, top, grid_resolution, percentiles)

    write_json({"method": "permutation", "scoring": scorer.name, "baseline": result["baseline_score"],
                "n_repeats": cfg["n_repeats"], "confidence_level": result["confidence_level"],
                "interval": "mean ± t(n_repeats - 1) std / sqrt(n_repeats), std with ddof=1 (null for one repeat)",
                "decision": decision if scorer.response == "label" else None, "features": features},
               paths.IMPORTANCE)
    write_csv(pd.DataFrame({"feature": [f["feature"] for f in features], "importance": [f["mean"] for f in features]}),
              paths.IMPORTANCE_PLOT)
    write_json(attributions, paths.ATTRIBUTIONS)
    shapley_rows = attributions["shapley"]["features"] if "shapley" in attributions else []
    write_csv(pd.DataFrame({"feature": [f["feature"] for f in shapley_rows],
                            "mean_abs_shapley": [f["mean_abs"] for f in shapley_rows]}), paths.SHAPLEY_PLOT)
    write_json(pdp, paths.PARTIAL_DEPENDENCE)
    write_csv(pd.DataFrame([{"feature": c["feature"], "value": v, "partial_dependence": a}
                            for c in pdp["one_way"] for v, a in zip(c["grid"], c["average"])
                            if isinstance(v, (int, float))]), paths.PDP_PLOT)


if __name__ == "__main__":
    run_stage(main)
