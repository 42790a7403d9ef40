"""The features stage: imputation, missing indicators, scaling, one-hot encoding (a missing label a level of its
own by default) and, with data.time_feature, the time, fitted on the training part of each fold only and once on
the whole training set for the final model (seed 004, D4:567, 808: "everything computed from data MUST be refitted
for each fold"). Leakage-proof by construction: fold k's transformer never sees the rows of validation fold k, and
no transformer ever sees the test rows. What it fills and pools is features.json's `missing` and `changes`.

Sections cited: Ghent ML notes (seed 004): 3.5 Analysis of Model Performance (567)"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import numpy as np

from mllib import io as mlio
from pipeline.core import build, paths
from pipeline.core.changes import feature_changes
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError, run_stage
from pipeline.core.io import read_parquet, staged_directory, write_estimators, write_json
from pipeline.core.partitions import data_mode
from pipeline.core.records import FeaturesReport
from pipeline.core.task import Target
from pipeline.steps import folds
from pipeline.steps.feature_fits import features_for

# by task: the features.projection it cannot use (LDA projects onto directions that separate classes)
REFUSED_PROJECTIONS: dict[str, tuple[str, ...]] = {"binary": (), "multiclass": (), "regression": ("lda",)}


def main() -> None:
    params = load_params()
    cfg = params["features"]
    target = Target.read(paths.TARGET)
    if cfg["projection"]["name"] in REFUSED_PROJECTIONS[target.task]:
        raise PipelineError(
            f"params.yaml: features.projection {cfg['projection']['name']} projects onto directions that separate "
            f"classes, but {target.column!r} is a {target.describe()}; use pca or pls (or none)"
        )
    membership = read_parquet(paths.FOLDS, "split")
    if not np.array_equal(
        membership[paths.ROW_ID].to_numpy(), read_parquet(paths.TRAIN, "split", [paths.ROW_ID])[paths.ROW_ID].to_numpy()
    ):
        raise PipelineError(f"{paths.FOLDS} does not match {paths.TRAIN}; rerun `dvc repro split`")
    splits = folds.splits_of(membership)
    with staged_directory(paths.FEATURES_DIR) as staging, ExitStack() as cluster:
        made = features_for(data_mode(params, paths.TRAIN), cluster, params, target, staging)
        fitted, final = made.fit_splits(splits)
        write_json(made.columns, staging / paths.FEATURE_NAMES.name)
    report: dict[str, Any] = {"numeric": made.numeric, "categorical": made.categorical, "folds": made.report}
    report["final"] = {"n_fit_rows": made.n_rows, "features": made.columns[paths.FINAL_TRAIN_FEATURES.name]}
    report["pooled_levels"] = build.pooled_levels(final, made.categorical)
    report["missing"] = build.missing_values(final, made.numeric, made.categorical, made.missing)
    report["changes"] = feature_changes(report["missing"], report["pooled_levels"], made.n_rows, cfg)
    if made.time:
        assert made.time_unit is not None  # set with made.time
        report["time"] = build.time_as_feature(final, made.time, made.time_unit)
        print(f"features: {made.time[0]} is a feature: {report['time']['feature']}")
    for record in report["changes"]:
        print(f"features: {record.change}")

    mlio.save(final, paths.FEATURE_TRANSFORMER)
    write_estimators(fitted, paths.FOLD_FEATURES)
    FeaturesReport(**report).write()


if __name__ == "__main__":
    run_stage(main)
