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
from pipeline.core.compute import dask_client
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError, run_stage
from pipeline.core.frames import feature_columns, raw_matrix
from pipeline.core.io import read_parquet, staged_directory, write_estimators, write_json, write_matrix
from pipeline.core.partitions import Parts
from pipeline.core.records import FeaturesReport
from pipeline.core.task import Target
from pipeline.steps import folds
from pipeline.steps.feature_blocks import INPUTS, partitioned_split, row_blocks


def main() -> None:
    params = load_params()
    cfg = params["features"]
    target = Target.read(paths.TARGET)
    if cfg["projection"]["name"] in target.refused_projections:  # lda: directions that separate classes
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
    with staged_directory(paths.FEATURES_DIR) as staging:
        if partitioned_split(params["compute"]):
            with dask_client(params["compute"]) as client:
                made = Features.on_parts(client, params, target, staging)
                fitted, final = made.fit_splits(splits)
        else:
            made = Features.in_memory(params, target, staging)
            fitted, final = made.fit_splits(splits)
        write_json(made.columns, staging / paths.FEATURE_NAMES.name)
    report = {"numeric": made.numeric, "categorical": made.categorical, "folds": made.report}
    report["final"] = {"n_fit_rows": made.n_rows, "features": made.columns[paths.FINAL_TRAIN_FEATURES.name]}
    report["pooled_levels"] = build.pooled_levels(final, made.categorical)
    for column, count in report["pooled_levels"].items():
        print(
            f"features: {column!r} has {count['levels']} levels; {count['pooled']} rare ones share the column "
            f"{column}=infrequent (features.encoder.params min_frequency / max_categories)"
        )

    mlio.save(final, paths.FEATURE_TRANSFORMER)
    write_estimators(fitted, paths.FOLD_FEATURES)
    FeaturesReport(**report).write()


class Features:
    """The features fitted per split and once on every training row, from the training table in memory (each
    split's matrix written as it is made: one in memory at a time) or from its parts on the cluster (fitted from
    mergeable statistics; no matrix written, pipeline/steps/feature_blocks.py)."""

    def __init__(self, params: dict, target, staging, numeric, categorical, n_rows: int, rows_of, write):
        self.cfg, self.seed, self.data = params["features"], params["seed"], params["data"]
        self.target, self.staging, self.numeric, self.categorical = target, staging, numeric, categorical
        self.n_rows, self.rows_of, self.write = n_rows, rows_of, write
        self.columns, self.report = {}, {}

    @classmethod
    def in_memory(cls, params, target, staging) -> Features:
        train = read_parquet(paths.TRAIN, "split")
        numeric, categorical = feature_columns(train.columns, params["data"])
        X_train = raw_matrix(train, numeric, categorical)
        y = target.encode(train[params["data"]["target"]])
        groups = train[params["data"]["group"]].to_numpy() if params["data"]["group"] else None
        del train

        def rows_of(rows):
            return X_train[rows], y[rows], None if groups is None else groups[rows]

        def write(transformer, name, final=False):
            write_matrix(transformer.transform(X_train), staging / name)
            if final:
                test = read_parquet(paths.TEST, "split")
                write_matrix(
                    transformer.transform(raw_matrix(test, numeric, categorical)),
                    staging / paths.FINAL_TEST_FEATURES.name,
                )

        return cls(params, target, staging, numeric, categorical, len(y), rows_of, write)

    @classmethod
    def on_parts(cls, client, params, target, staging) -> Features:
        parts = Parts.output(paths.TRAIN, "split")
        numeric, categorical = feature_columns(parts.columns, params["data"])
        inputs = {"numeric": numeric, "categorical": categorical}
        write_json(inputs, staging / INPUTS.name)

        def rows_of(rows):
            return row_blocks(client, parts, rows, inputs, target), None, None

        return cls(params, target, staging, numeric, categorical, len(parts), rows_of, lambda *_, **__: None)

    def fit_splits(self, splits) -> tuple[list, object]:
        fitted = []
        for k, (fit_rows, _) in enumerate(splits):
            transformer, names = self._fit(fit_rows, f"the training part of split {k}")
            fitted.append(transformer)
            self.write(transformer, paths.fold_features(k).name)
            self.columns[paths.fold_features(k).name] = names
            self.report[str(k)] = {
                "n_fit_rows": len(fit_rows),
                "n_features": len(names),
                **({"selected": names} if self.cfg["selection"]["name"] != "none" else {}),
            }
            print(f"features: split {k}: fitted on {len(fit_rows)} rows -> {len(names)} features")
        final, names = self._fit(np.arange(self.n_rows), "the training set")
        self.write(final, paths.FINAL_TRAIN_FEATURES.name, final=True)
        for path in (paths.FINAL_TRAIN_FEATURES, paths.FINAL_TEST_FEATURES):
            self.columns[path.name] = names
        return fitted, final

    def _fit(self, rows, where: str):
        X, y, groups = self.rows_of(rows)
        return fit_features(self.cfg, X, y, groups, self.numeric, self.categorical, where, self.seed)


if __name__ == "__main__":
    run_stage(main)
