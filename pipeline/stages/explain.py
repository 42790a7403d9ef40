"""Stage 9, explain: what the deployed predictor relies on, in the raw feature space of the user's data
(seed 004, D4:2002-2056; catalogue section 4). Permutation importance with intervals on the held-out test rows
(a raw column is shuffled, then passed through the fitted features, the model and the calibrator, so a
one-hot-encoded column counts once); Shapley values of a seeded sample of test rows (TreeSHAP, the linear closed
form, KernelSHAP or exact enumeration), each with its additivity error; partial dependence and ICE curves of the
most important features; and for neural networks gradient x input / LRP with their conservation error. A label
metric scores the deployed predictor's decisions (models/predictor, the evaluate stage's too). For K > 2 classes
Shapley values, partial dependence and ICE are per class (of each class's probability, or logit for the linear
closed form).
Per raw column, TreeSHAP values are sums over the column's encoded columns: additive, but the raw-column game's
Shapley values only for linear models (pipeline/explanations.py; attributions.json says so per method)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib.explain import permutation_importance
from pipeline import build, paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.explanations import (
    RAW_COLUMN_NOTE,
    attribution_summary,
    choose_method,
    importance_rows,
    pdp_curves,
    pdp_rows,
    raw_column_of,
    relevance_attributions,
    response_of,
    shapley_attributions,
    surrogate_summary,
)
from pipeline.frames import feature_columns, raw_matrix
from pipeline.io import read_parquet, write_csv, write_json
from pipeline.task import Target


def main() -> None:
    params = load_params()
    data, cfg, seed = params["data"], params["explain"], params["seed"]
    target = Target.read(paths.TARGET)
    classes = target.label_names()
    predictor = mlio.load(paths.PREDICTOR)
    test, train = read_parquet(paths.TEST, "split"), read_parquet(paths.TRAIN, "split")
    numeric, categorical = feature_columns(test.columns, data)
    names = numeric + categorical
    X, X_train = raw_matrix(test, numeric, categorical), raw_matrix(train, numeric, categorical)
    y = target.encode(test[data["target"]])
    scorer = build.scorer("explain.scoring", cfg["scoring"], target.task)
    decision = (
        None
        if target.regression
        else {"rule": predictor.rule_, "threshold": predictor.decision_threshold_, "cost_matrix": predictor.cost_matrix}
    )
    explained = response_of(predictor, "proba")  # calibrated probabilities, or a regressor's prediction
    kernel = {"n_samples": cfg["kernel_samples"], "n_bootstrap": cfg["kernel_bootstrap"]}
    grid_resolution, percentiles = cfg["grid_resolution"], tuple(cfg["pdp_percentiles"])

    result = permutation_importance(
        response_of(predictor, scorer.response), X, y, scorer, n_repeats=cfg["n_repeats"], random_state=seed
    )
    features = importance_rows(result, names)
    print(
        "explain: permutation importance ("
        + scorer.name
        + " drop): "
        + ", ".join(f"{f['feature']} {f['mean']:.4f}" for f in features[:5])
    )

    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(len(X), size=min(cfg["n_rows"], len(X)), replace=False))
    background = X_train[np.sort(rng.choice(len(X_train), size=min(cfg["n_background"], len(X_train)), replace=False))]
    transformer, model = predictor.features, predictor.model
    owners = raw_column_of(list(transformer.get_feature_names_out(names)), names)
    method = choose_method(cfg["shapley"], model, owners)
    attributions = {"columns": names, "classes": classes, "rows": rows.tolist(), "n_background": len(background)}
    if method != "none":
        try:
            shap = shapley_attributions(
                method, model, transformer, X[rows], background, explained, kernel, seed, owners
            )
        except ValueError as exc:
            raise PipelineError(f"explain: {exc}") from None
        scale = max(np.abs(shap["prediction"]).max(), np.abs(shap["expected_value"]).max(), 1e-300)
        attributions["shapley"] = {
            "method": method,
            "output": shap["output"],
            "raw_columns": RAW_COLUMN_NOTE[method],
            "per_class": np.ndim(shap["values"]) == 3,
            "expected_value": shap["expected_value"],
            "additivity_error_max": float(shap["additivity_error"].max()),
            "additivity_error_max_relative": float(shap["additivity_error"].max() / scale),
            "features": attribution_summary(shap["values"], names, classes),
            "values": shap["values"],
            "standard_errors": shap.get("standard_errors"),
        }
        print(
            f"explain: Shapley ({method}, {shap['output']}{', per class' if target.task == 'multiclass' else ''}): top "
            + ", ".join(f["feature"] for f in attributions["shapley"]["features"][:5])
            + f"; additivity error {attributions['shapley']['additivity_error_max_relative']:.1e} (relative)"
        )
    try:
        relevance = relevance_attributions(
            cfg["relevance"], model, transformer, X[rows], owners, cfg["lrp_epsilon"], X_train
        )
    except ValueError as exc:
        raise PipelineError(f"explain.relevance {cfg['relevance']!r}: {exc}") from None
    if relevance is not None:
        finite = relevance["conservation_error"][np.isfinite(relevance["conservation_error"])]
        attributions["relevance"] = {
            "method": cfg["relevance"],
            "output": relevance["output"],
            "conservation_error_median": float(np.median(finite)) if finite.size else None,
            "features": attribution_summary(relevance["values"], names, classes),
        }

    if cfg["surrogate_depth"]:
        attributions["surrogate"] = surrogate_summary(
            predictor, X_train, X, names, not target.regression, cfg["surrogate_depth"], seed
        )
        print(
            f"explain: surrogate tree (depth {attributions['surrogate']['depth']}, "
            f"{attributions['surrogate']['n_leaves']} leaves): fidelity on test "
            f"{attributions['surrogate']['fidelity']:.3f}"
            f" ({attributions['surrogate']['fidelity_metric']})"
        )
    top = [names.index(f["feature"]) for f in features[: cfg["pdp_features"]]]
    pdp = {
        **pdp_curves(explained, X[rows], names, top, grid_resolution, percentiles),
        "output": {
            "binary": "calibrated probability",
            "regression": "prediction",
            "multiclass": "calibrated probability of each class (last axis)",
        }[target.task],
        "classes": {"binary": classes[1:], "multiclass": classes, "regression": [target.column]}[target.task],
    }

    write_json(
        {
            "method": "permutation",
            "scoring": scorer.name,
            "baseline": result["baseline_score"],
            "n_repeats": cfg["n_repeats"],
            "confidence_level": result["confidence_level"],
            "interval": "mean ± t(n_repeats - 1) std / sqrt(n_repeats), std with ddof=1 (null for one repeat)",
            "decision": decision if scorer.response == "label" else None,
            "features": features,
        },
        paths.IMPORTANCE,
    )
    write_csv(
        pd.DataFrame({"feature": [f["feature"] for f in features], "importance": [f["mean"] for f in features]}),
        paths.IMPORTANCE_PLOT,
    )
    write_json(attributions, paths.ATTRIBUTIONS)
    shapley_rows = attributions["shapley"]["features"] if "shapley" in attributions else []
    write_csv(
        pd.DataFrame(
            {"feature": [f["feature"] for f in shapley_rows], "mean_abs_shapley": [f["mean_abs"] for f in shapley_rows]}
        ),
        paths.SHAPLEY_PLOT,
    )
    write_json(pdp, paths.PARTIAL_DEPENDENCE)
    write_csv(pd.DataFrame(pdp_rows(pdp)), paths.PDP_PLOT)


if __name__ == "__main__":
    run_stage(main)
