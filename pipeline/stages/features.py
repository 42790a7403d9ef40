"""Stage 4, features: imputation, missing indicators, scaling and one-hot encoding, fitted on the training
part of each fold only and once on the whole training set for the final model (seed 004, D4:567, 808:
"everything computed from data MUST be refitted for each fold"). Leakage-proof by construction: fold k's
transformer never sees the rows of validation fold k, and no transformer ever sees the test rows."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from mllib import io as mlio
from mllib.base import fit_with_groups
from pipeline import build, folds, paths
from pipeline.config import load_params
from pipeline.errors import PipelineError, run_stage
from pipeline.frames import feature_columns, raw_matrix
from pipeline.io import read_parquet, replace_directory, write_estimators, write_json
from pipeline.names import FEATURE_STEPS
from pipeline.task import Target


def _check_observed(X: np.ndarray, numeric: list[str], where: str) -> None:
    """A numeric column with no observed value cannot be imputed from these rows."""
    empty = [c for j, c in enumerate(numeric) if np.isnan(X[:, j].astype(float)).all()]
    if empty:
        raise PipelineError(
            f"features: numeric column {empty[0]!r} has no observed values in {where}; add it to data.drop"
        )


def fit_transform(
    cfg: dict,
    X_fit: np.ndarray,
    y_fit: np.ndarray,
    groups,
    numeric: list[str],
    categorical: list[str],
    where: str,
    seed: int,
):
    """The features fitted on X_fit (y_fit for a supervised projection or selection, groups for the selection's inner
    folds); bad step settings name the key."""
    _check_observed(X_fit, numeric, where)
    try:
        transformer = fit_with_groups(build.feature_transformer(cfg, numeric, categorical, seed), X_fit, y_fit, groups)
    except (ValueError, TypeError) as exc:
        steps = ", ".join(f"{s}={cfg[s]['name']}" for s in FEATURE_STEPS if cfg[s]["name"] != "none")
        raise PipelineError(
            f"features: fitting the features ({steps}) on {where} failed: {exc}; check features.* in params.yaml"
        ) from None
    return transformer, transformer.get_feature_names_out(numeric + categorical)


def frame(Z: np.ndarray, names: list[str], row_ids: np.ndarray) -> pd.DataFrame:
    out = pd.DataFrame(Z, columns=names)
    out.insert(0, paths.ROW_ID, row_ids)
    return out


def main() -> None:
    params = load_params()
    cfg = params["features"]
    train = read_parquet(paths.TRAIN, "split")
    test = read_parquet(paths.TEST, "split")
    membership = read_parquet(paths.FOLDS, "split")
    if not np.array_equal(membership[paths.ROW_ID].to_numpy(), train[paths.ROW_ID].to_numpy()):
        raise PipelineError(f"{paths.FOLDS} does not match {paths.TRAIN}; rerun `dvc repro split`")
    numeric, categorical = feature_columns(train.columns, params["data"])
    X_train = raw_matrix(train, numeric, categorical)
    X_test = raw_matrix(test, numeric, categorical)
    target = Target.read(paths.TARGET)
    if target.regression and cfg["projection"]["name"] == "lda":
        raise PipelineError(
            "params.yaml: features.projection lda projects onto directions that separate classes, but "
            f"{target.column!r} is a regression target; use pca or pls (or none)"
        )
    y = target.encode(train[params["data"]["target"]])
    groups = train[params["data"]["group"]].to_numpy() if params["data"]["group"] else None

    outputs, report, fitted = {}, {"numeric": numeric, "categorical": categorical, "folds": {}}, []
    for k, (fit_rows, _) in enumerate(folds.splits_of(membership)):
        where = f"the training part of split {k}"
        transformer, names = fit_transform(
            cfg,
            X_train[fit_rows],
            y[fit_rows],
            None if groups is None else groups[fit_rows],
            numeric,
            categorical,
            where,
            params["seed"],
        )
        fitted.append(transformer)
        outputs[paths.fold_features(k).name] = frame(transformer.transform(X_train), names, train[paths.ROW_ID])
        report["folds"][str(k)] = {
            "n_fit_rows": len(fit_rows),
            "n_features": len(names),
            **({"selected": names} if cfg["selection"]["name"] != "none" else {}),
        }
        print(f"features: split {k}: fitted on {len(fit_rows)} rows -> {len(names)} features")
    final, names = fit_transform(cfg, X_train, y, groups, numeric, categorical, "the training set", params["seed"])
    outputs[paths.FINAL_TRAIN_FEATURES.name] = frame(final.transform(X_train), names, train[paths.ROW_ID])
    outputs[paths.FINAL_TEST_FEATURES.name] = frame(final.transform(X_test), names, test[paths.ROW_ID])
    report["final"] = {"n_fit_rows": len(X_train), "features": names}
    report["pooled_levels"] = build.pooled_levels(final, categorical)
    for column, count in report["pooled_levels"].items():
        print(
            f"features: {column!r} has {count['levels']} levels; {count['pooled']} rare ones share the column "
            f"{column}=infrequent (features.encoder.params min_frequency / max_categories)"
        )

    paths.FEATURES_DIR.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=paths.FEATURES_DIR.parent) as staging:
        fresh = Path(staging) / paths.FEATURES_DIR.name
        fresh.mkdir()
        for name, df in outputs.items():
            df.to_parquet(fresh / name, index=False)
        replace_directory(fresh, paths.FEATURES_DIR)
    mlio.save(final, paths.FEATURE_TRANSFORMER)
    write_estimators(fitted, paths.FOLD_FEATURES)
    write_json(report, paths.FEATURES_REPORT)


if __name__ == "__main__":
    run_stage(main)
