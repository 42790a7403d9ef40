"""The explain stage: what the deployed predictor relies on, in the raw feature space of the user's data
(seed 004, D4:2002-2056; catalogue section 4). Permutation importance with intervals on the held-out test rows
(a raw column is shuffled, then passed through the fitted features, the model and the calibrator, so a
one-hot-encoded column counts once); Shapley values of a seeded sample of test rows (TreeSHAP, the linear closed
form, KernelSHAP or exact enumeration), each with its additivity error; partial dependence and ICE curves of the
most important features; and for neural networks gradient x input / LRP with their conservation error. A label
metric scores the deployed predictor's decisions (models/predictor, the evaluate stage's too). For K > 2 classes
Shapley values, partial dependence and ICE are per class (of each class's probability, or logit for the linear
closed form).
Per raw column, TreeSHAP values are sums over the column's encoded columns: additive, but the raw-column game's
Shapley values only for linear models (pipeline/steps/explanations.py; attributions.json says so per method).

Sections cited: Ghent ML notes (seed 004): 11.2 Model Explainability (2002)"""

from __future__ import annotations

import pandas as pd

from mllib.explain import permutation_importance
from pipeline.core import build, paths
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.explanation_records import Attributions, ImportanceReport, PartialDependence
from pipeline.core.frames import feature_columns, raw_matrix
from pipeline.core.io import read_predictor, write_csv
from pipeline.core.progress import Progress
from pipeline.core.task import Target
from pipeline.steps.explanations import (
    after_features,
    beyond_noise,
    explained_tables,
    importance_report,
    importance_rows,
    importance_summary,
    pdp_curves,
    pdp_outputs,
    pdp_rows,
    row_attributions,
)


def main() -> None:
    params = load_params()
    data, cfg, seed = params["data"], params["explain"], params["seed"]
    target = Target.read(paths.TARGET)
    classes = target.label_names()
    predictor = read_predictor(paths.PREDICTOR)
    test, train, test_rows, sample = explained_tables(cfg["max_rows"], seed)
    numeric, categorical = feature_columns(test.columns, data)
    names = numeric + categorical
    X, X_train = raw_matrix(test, numeric, categorical), raw_matrix(train, numeric, categorical)
    y = target.encode(test[data["target"]])
    scorer = build.scorer("explain.scoring", cfg["scoring"], target)
    decision = predictor.decision_rule()
    explained = target.response(predictor, "proba")  # calibrated probabilities, or a regressor's prediction
    grid_resolution, percentiles = cfg["grid_resolution"], tuple(cfg["pdp_percentiles"])

    result = permutation_importance(
        target.response(after_features(predictor, X), scorer.response),
        X,
        y,
        scorer,
        n_repeats=cfg["n_repeats"],
        random_state=seed,
        progress=Progress("explain: permutation importance (columns)"),
        features=predictor.features,
    )
    features = importance_rows(result, names)
    informative = beyond_noise(features, result["confidence_level"])
    print(importance_summary(scorer.name, features, informative))

    rows, attributions = row_attributions(predictor, X, X_train, names, classes, target, cfg, seed)
    if sample:
        attributions["sample"] = sample
    if test_rows is not None:  # the explained rows as positions in the test table
        attributions["rows"] = test_rows[rows].tolist()
    top = [names.index(f["feature"]) for f in informative[: cfg["pdp_features"]]]  # none drawn for noise
    pdp = {**pdp_curves(explained, X[rows], names, top, grid_resolution, percentiles), **pdp_outputs(target)}

    label = scorer.response == "label"
    importance = importance_report(result, scorer.name, cfg["n_repeats"], decision if label else None, features,
                                   informative)  # fmt: skip
    ImportanceReport.of({**importance, **({"sample": sample} if sample else {})}).write()
    write_csv(
        pd.DataFrame({"feature": [f["feature"] for f in features], "importance": [f["mean"] for f in features]}),
        paths.IMPORTANCE_PLOT,
    )
    Attributions.of(attributions).write()
    shapley_rows = attributions["shapley"]["features"] if "shapley" in attributions else []
    write_csv(
        pd.DataFrame(
            {"feature": [f["feature"] for f in shapley_rows], "mean_abs_shapley": [f["mean_abs"] for f in shapley_rows]}
        ),
        paths.SHAPLEY_PLOT,
    )
    PartialDependence.of(pdp).write()
    write_csv(pd.DataFrame(pdp_rows(pdp)), paths.PDP_PLOT)


if __name__ == "__main__":
    run_stage(main)
