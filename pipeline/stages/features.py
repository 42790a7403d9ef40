"""The features stage: imputation, missing indicators, scaling and one-hot encoding, fitted on the training
part of each fold only and once on the whole training set for the final model (seed 004, D4:567, 808:
"everything computed from data MUST be refitted for each fold"). Leakage-proof by construction: fold k's
transformer never sees the rows of validation fold k, and no transformer ever sees the test rows.

Sections cited: Ghent ML notes (seed 004): 3.5 Analysis of Model Performance (567)"""

from __future__ import annotations

import numpy as np

from mllib import io as mlio
from pipeline.core import build, paths
from pipeline.core.build import fit_features
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError, run_stage
from pipeline.core.frames import feature_columns, raw_matrix
from pipeline.core.io import read_parquet, staged_directory, write_estimators, write_json, write_matrix
from pipeline.core.records import FeaturesReport
from pipeline.core.task import Target
from pipeline.steps import folds


def main() -> None:
    params = load_params()
    cfg, seed = params["features"], params["seed"]
    train = read_parquet(paths.TRAIN, "split")
    test = read_parquet(paths.TEST, "split")
    membership = read_parquet(paths.FOLDS, "split")
    if not np.array_equal(membership[paths.ROW_ID].to_numpy(), train[paths.ROW_ID].to_numpy()):
        raise PipelineError(f"{paths.FOLDS} does not match {paths.TRAIN}; rerun `dvc repro split`")
    numeric, categorical = feature_columns(train.columns, params["data"])
    X_train = raw_matrix(train, numeric, categorical)
    X_test = raw_matrix(test, numeric, categorical)
    target = Target.read(paths.TARGET)
    if cfg["projection"]["name"] in target.refused_projections:  # lda: directions that separate classes
        raise PipelineError(
            f"params.yaml: features.projection {cfg['projection']['name']} projects onto directions that separate "
            f"classes, but {target.column!r} is a {target.describe()}; use pca or pls (or none)"
        )
    y = target.encode(train[params["data"]["target"]])
    groups = train[params["data"]["group"]].to_numpy() if params["data"]["group"] else None

    report, fitted, columns = {"numeric": numeric, "categorical": categorical, "folds": {}}, [], {}
    with staged_directory(paths.FEATURES_DIR) as staging:  # each matrix written when made: one in memory at a time
        for k, (fit_rows, _) in enumerate(folds.splits_of(membership)):
            where = f"the training part of split {k}"
            part = None if groups is None else groups[fit_rows]
            transformer, names = fit_features(
                cfg, X_train[fit_rows], y[fit_rows], part, numeric, categorical, where, seed
            )
            fitted.append(transformer)
            write_matrix(transformer.transform(X_train), staging / paths.fold_features(k).name)
            columns[paths.fold_features(k).name] = names
            report["folds"][str(k)] = {
                "n_fit_rows": len(fit_rows),
                "n_features": len(names),
                **({"selected": names} if cfg["selection"]["name"] != "none" else {}),
            }
            print(f"features: split {k}: fitted on {len(fit_rows)} rows -> {len(names)} features")
        final, names = fit_features(cfg, X_train, y, groups, numeric, categorical, "the training set", seed)
        for path, X in ((paths.FINAL_TRAIN_FEATURES, X_train), (paths.FINAL_TEST_FEATURES, X_test)):
            write_matrix(final.transform(X), staging / path.name)
            columns[path.name] = names
        write_json(columns, staging / paths.FEATURE_NAMES.name)
    report["final"] = {"n_fit_rows": len(X_train), "features": names}
    report["pooled_levels"] = build.pooled_levels(final, categorical)
    for column, count in report["pooled_levels"].items():
        print(
            f"features: {column!r} has {count['levels']} levels; {count['pooled']} rare ones share the column "
            f"{column}=infrequent (features.encoder.params min_frequency / max_categories)"
        )

    mlio.save(final, paths.FEATURE_TRANSFORMER)
    write_estimators(fitted, paths.FOLD_FEATURES)
    FeaturesReport(**report).write()


if __name__ == "__main__":
    run_stage(main)
