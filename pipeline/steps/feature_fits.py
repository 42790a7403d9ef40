"""The features stage's fits: each split's transformer on the split's training part and one on every training row,
from the training table in memory (each matrix written as it is made) or from its parts on the cluster (fitted from
mergeable statistics, no matrix written: pipeline/steps/feature_blocks.py)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from mllib.base import MixedMatrix

from ..core import paths
from ..core.build import fit_features
from ..core.compute import dask_client
from ..core.frames import feature_columns, numbers_or_days, raw_matrix, time_input
from ..core.io import read_parquet, write_json, write_matrix
from ..core.json_types import JSON
from ..core.partitions import ClusterBlocks, InMemory, Mode, OnParts, Parts, per_mode, table_head

# at run time, not under TYPE_CHECKING: singledispatch's register reads the registered functions' annotations
from ..core.task_base import Target
from .feature_blocks import INPUTS, SplitList, row_blocks

if TYPE_CHECKING:
    from distributed import Client

    from ..core.build import Transformer
    from .shapley_values import FittedFeatures

# the rows a fit reads: (X, y, groups) in this process, or (their blocks on the cluster, None, None)
FitRows = tuple[MixedMatrix | ClusterBlocks, np.ndarray | None, np.ndarray | None]


class WriteFeatures(Protocol):
    """What a fitted transformer leaves on disk (its matrix of every training row, in the staging directory, under
    `name`; with final, the test rows' too), or nothing (the partitioned path)."""

    def __call__(self, transformer: FittedFeatures, name: str, final: bool = False) -> None: ...


class Features:
    """The features fitted per split and once on every training row (rows_of: the rows to fit on; write: what a
    fitted transformer leaves on disk)."""

    def __init__(
        self,
        params: JSON,
        numeric: list[str],
        categorical: list[str],
        n_rows: int,
        rows_of: Callable[[np.ndarray], FitRows],
        write: WriteFeatures,
    ) -> None:
        self.cfg, self.seed, self.numeric, self.categorical = params["features"], params["seed"], numeric, categorical
        self.time = time_input(params["data"])  # (column, kind) of data.time as a feature, or None
        self.time_unit = numbers_or_days(table_head(paths.TRAIN, "split", 1)[0][self.time[0]])[1] if self.time else None
        self.n_rows, self.rows_of, self.write = n_rows, rows_of, write
        self.columns: dict[str, list[str]] = {}
        self.report: dict[str, JSON] = {}
        self.missing: dict[str, int] = {}  # {column: missing values among every training row}, the final fit's

    @classmethod
    def in_memory(cls, params: JSON, target: Target, staging: Path) -> Features:
        train = read_parquet(paths.TRAIN, "split")
        numeric, categorical = feature_columns(train.columns, params["data"])
        X_train = raw_matrix(train, numeric, categorical)
        y = target.encode(train[params["data"]["target"]])
        groups = train[params["data"]["group"]].to_numpy() if params["data"]["group"] else None
        del train

        def rows_of(rows: np.ndarray) -> FitRows:
            return X_train[rows], y[rows], None if groups is None else groups[rows]

        def write(transformer: FittedFeatures, name: str, final: bool = False) -> None:
            write_matrix(transformer.transform(X_train), staging / name)
            if final:
                test = read_parquet(paths.TEST, "split")
                write_matrix(
                    transformer.transform(raw_matrix(test, numeric, categorical)),
                    staging / paths.FINAL_TEST_FEATURES.name,
                )

        return cls(params, numeric, categorical, len(y), rows_of, write)

    @classmethod
    def on_parts(cls, client: Client, params: JSON, target: Target, staging: Path) -> Features:
        parts = Parts.output(paths.TRAIN, "split")
        numeric, categorical = feature_columns(parts.columns, params["data"])
        inputs = {"numeric": numeric, "categorical": categorical}
        write_json(inputs, staging / INPUTS.name)

        def rows_of(rows: np.ndarray) -> FitRows:
            return row_blocks(client, parts, rows, inputs, target), None, None

        return cls(params, numeric, categorical, len(parts), rows_of, lambda *_, **__: None)

    def fit_splits(self, splits: SplitList) -> tuple[list[Transformer], Transformer]:
        fitted = []
        for k, (fit_rows, _) in enumerate(splits):
            transformer, names, _ = self._fit(fit_rows, f"the training part of split {k}")
            fitted.append(transformer)
            self.write(transformer, paths.fold_features(k).name)
            self.columns[paths.fold_features(k).name] = names
            self.report[str(k)] = {
                "n_fit_rows": len(fit_rows),
                "n_features": len(names),
                **({"selected": names} if self.cfg["selection"]["name"] != "none" else {}),
            }
            print(f"features: split {k}: fitted on {len(fit_rows)} rows -> {len(names)} features")
        final, names, self.missing = self._fit(np.arange(self.n_rows), "the training set")
        self.write(final, paths.FINAL_TRAIN_FEATURES.name, final=True)
        for path in (paths.FINAL_TRAIN_FEATURES, paths.FINAL_TEST_FEATURES):
            self.columns[path.name] = names
        return fitted, final

    def _fit(self, rows: np.ndarray, where: str) -> tuple[Transformer, list[str], dict[str, int]]:
        X, y, groups = self.rows_of(rows)
        return fit_features(self.cfg, X, y, groups, self.numeric, self.categorical, where, self.seed, self.time)


@per_mode
def features_for(mode: Mode, cluster: ExitStack, params: JSON, target: Target, staging: Path) -> Features:
    """The features' fits of the run's mode: from the training table in memory, or from its parts on a cluster
    opened in `cluster` (no matrix written)."""


@features_for.register
def _on_parts(mode: OnParts, cluster: ExitStack, params: JSON, target: Target, staging: Path) -> Features:
    return Features.on_parts(cluster.enter_context(dask_client(params["compute"])), params, target, staging)


@features_for.register
def _in_memory(mode: InMemory, cluster: ExitStack, params: JSON, target: Target, staging: Path) -> Features:
    return Features.in_memory(params, target, staging)
