"""The training and test rows of a partitioned split (pipeline/core/partitions.py) as blocks of model inputs held on
the Dask workers, one block per part: the features stage fits each split's transformer from the raw inputs of the
split's training rows (mergeable statistics: mllib's fit_blocks), and the train stage fits logistic regression and
ridge from the rows' features, each part transformed by the split's transformer where it is. No process holds a
whole matrix and no per-split matrix is written: a stage that still needs a whole matrix makes it from the rows
and the fitted transformer (`split_features`, `final_features`), as the in-memory path reads it. The fairness
stage's reweighed refit takes its rows from here too (`audited_rows`: in this process, or on the parts).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from mllib.base import BaseEstimator, MixedMatrix, fit_blocks_with_groups, fit_with_groups
from mllib.model_selection import BlockFold, FoldData

from ..core import paths
from ..core.build import fits_from_blocks
from ..core.compute import TaskRunner, dask_client, own_threads, task_runner
from ..core.frames import feature_columns, raw_matrix
from ..core.io import read_estimators, read_json, read_matrix, read_model, read_parquet
from ..core.json_types import JSON
from ..core.partitions import ClusterBlocks, InMemory, Mode, OnParts, Parts, data_mode, per_mode, rows_by_part

# at run time, not under TYPE_CHECKING: singledispatch's register reads the registered functions' annotations
from ..core.task_base import Target

if TYPE_CHECKING:
    import pandas as pd
    from distributed import Client, Future

    from mllib.deploy.predictor import DeployedPredictor

    from .shapley_values import FittedFeatures

INPUTS = paths.FEATURES_DIR / "inputs.json"  # the partitioned path's record: the raw input columns, no matrices
SplitList = list[tuple[np.ndarray, np.ndarray]]  # [(fitting rows, validation rows)], as folds.SplitList
PartOutputs = dict[str, np.ndarray]  # {name: an array with a row per input row} (part_outputs' fn)


def _input_block(
    k: int,
    rows: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    parts: Parts,
    numeric: list[str],
    categorical: list[str],
    target: Target,
    transformer: FittedFeatures | None,
) -> tuple[MixedMatrix | np.ndarray, np.ndarray, np.ndarray | None]:
    """(X, y, weights) of part k's rows `rows` (positions in the table): the raw inputs, or their features."""
    frame = parts.read(k, [*numeric, *categorical, target.column]).loc[rows]
    X = raw_matrix(frame, numeric, categorical)
    return (X if transformer is None else transformer.transform(X)), target.encode(frame[target.column]), weights


def row_blocks(
    client: Client,
    parts: Parts,
    rows: np.ndarray,
    inputs: JSON,
    target: Target,
    transformer: FittedFeatures | None = None,
    weights: np.ndarray | None = None,
) -> ClusterBlocks:
    """The rows `rows` (sorted positions in the table, repeats allowed) as blocks on the cluster, one per part that
    holds some, kept in the workers' memory; inputs: {"numeric": [...], "categorical": [...]}; weights: optional, one
    per row of `rows`."""
    shares = rows_by_part(rows, parts)
    kept = [k for k, share in enumerate(shares) if len(share)]
    per_part = [shares]
    if weights is not None:
        per_part.append(np.split(np.asarray(weights, dtype=np.float64), np.cumsum([len(s) for s in shares])[:-1]))
    return ClusterBlocks.load(
        client, _input_block, kept, *per_part, parts=parts, **inputs, target=target, transformer=transformer
    )


class BlockFolds:
    """The fold_data of mllib.model_selection.evaluate_candidates for a partitioned split: fold k is a BlockFold of
    split k's fitting and validation rows in the features of split k's transformer, loaded on the cluster when the
    fold is reached (the previous fold released first), with the fitting rows' groups (data.group) as in memory."""

    def __init__(
        self, client: Client, splits: SplitList, inputs: JSON, target: Target, groups: np.ndarray | None = None
    ) -> None:
        self.client, self.splits, self.inputs, self.target, self.groups = client, splits, inputs, target, groups
        self.parts = Parts.output(paths.TRAIN, "split")
        self.transformers = read_estimators(paths.FOLD_FEATURES, "features")
        self._last: tuple[int | None, BlockFold | None] = (None, None)

    def __len__(self) -> int:
        return len(self.splits)

    def __getitem__(self, k: int) -> BlockFold:
        if self._last[0] != k:
            self._last = (None, None)
            fit, valid = (
                row_blocks(self.client, self.parts, rows, self.inputs, self.target, self.transformers[k])
                for rows in self.splits[k]
            )
            groups = None if self.groups is None else self.groups[self.splits[k][0]]  # the fitting rows', in order
            self._last = (k, BlockFold(fit, valid, groups))
        return cast(BlockFold, self._last[1])  # set above when fold k was not the last one


def all_rows(
    client: Client,
    table: Path,
    inputs: JSON,
    target: Target,
    transformer: FittedFeatures,
    weights: np.ndarray | None = None,
) -> ClusterBlocks:
    """Every row of a partitioned table (the split's train or test) in the transformer's features (weights: one per
    row, or None)."""
    parts = Parts.output(table, "split")
    return row_blocks(client, parts, np.arange(len(parts)), inputs, target, transformer, weights)


def _part_outputs(
    k: int, parts: Parts, inputs: JSON, fn: Callable[..., PartOutputs], args: tuple[Any, ...]
) -> PartOutputs:
    frame = parts.read(k, [*inputs["numeric"], *inputs["categorical"]])
    return fn(*args, raw_matrix(frame, inputs["numeric"], inputs["categorical"]))


def part_outputs(client: Client, table: Path, inputs: JSON, fn: Callable[..., PartOutputs], *args: Any) -> PartOutputs:
    """fn(*args, X) of every row of a partitioned table, computed part by part on the workers (X: a part's raw inputs;
    fn returns {name: array with a row per input row}), put together in row order."""
    parts = Parts.output(table, "split")
    held = [k for k, n in enumerate(parts.rows) if n]
    futures: list[Future[PartOutputs] | None] = list(
        client.map(_part_outputs, held, parts=parts, inputs=inputs, fn=fn, args=args, pure=False)
    )  # a list whose items can be let go
    found = []
    for k, future in enumerate(futures):
        found.append(cast("Future[PartOutputs]", future).result())  # item k is let go only below
        futures[k] = None  # the worker lets go of the part's outputs once they are here
    return {name: np.concatenate([part[name] for part in found]) for name in found[0]}


def table_rows(table: Path) -> int:
    """The rows of a split table (a file, or a directory of parts), from its metadata."""
    import pyarrow.parquet as pq

    if table.is_dir():
        return len(Parts.output(table, "split"))
    if not table.exists():
        return len(read_parquet(table, "split", columns=[]))  # the missing file's message
    rows: int = pq.ParquetFile(table).metadata.num_rows
    return rows


def stated_sample(
    n: int, max_rows: int | None, seed: int, key: int, groups: np.ndarray | None = None
) -> np.ndarray | None:
    """Sorted positions of a seeded sample of at most max_rows of n rows (whole groups when `groups` gives each row's
    group: groups in a seeded order while they fit), or None when all n rows are used. key: which sample, so two
    samples of one seed are independent of each other and of the stage's other draws."""
    if max_rows is None or n <= max_rows:
        return None
    rng = np.random.default_rng([seed, key])
    if groups is None:
        return np.sort(rng.choice(n, size=max_rows, replace=False))
    _, group_of_row, sizes = np.unique(groups, return_inverse=True, return_counts=True)
    order = rng.permutation(sizes.size)
    kept = order[: max(1, int(np.searchsorted(np.cumsum(sizes[order]), max_rows, side="right")))]
    return np.flatnonzero(np.isin(group_of_row, kept))


def within(splits: SplitList, rows: np.ndarray) -> SplitList:
    """The splits restricted to the rows `rows` (sorted positions), as positions among them."""

    def among(positions: np.ndarray) -> np.ndarray:
        return np.searchsorted(rows, positions[np.isin(positions, rows)])

    return [(among(fit), among(valid)) for fit, valid in splits]


def read_rows(table: Path, rows: np.ndarray | None, columns: list[str] | None = None) -> pd.DataFrame:
    """The rows `rows` (sorted positions; None: all) of a split table, read a part at a time from a directory of
    parts, so only the chosen rows are ever held."""
    if rows is None or not table.is_dir():
        frame = read_parquet(table, "split", columns=columns)
        return frame if rows is None else frame.iloc[rows].reset_index(drop=True)
    parts = Parts.output(table, "split")
    import pandas as pd

    shares = rows_by_part(rows, parts)
    return pd.concat(
        [parts.read(k, columns).loc[share] for k, share in enumerate(shares) if len(share)], ignore_index=True
    )


def transformed(transformers: list[FittedFeatures], X_raw: MixedMatrix, k: int) -> np.ndarray:
    """Rows X_raw in the features of split k's transformer (assess's sample of the training rows)."""
    return transformers[k].transform(X_raw)


def split_features(k: int) -> np.ndarray:
    """Every training row in the features fitted on split k's training part: the features stage's matrix, or on the
    partitioned path (no matrix written) the rows transformed by split k's transformer. Module-level, so worker
    processes get it by name."""
    written = paths.fold_features(k)
    if written.exists() or not INPUTS.exists():
        return read_matrix(written, "features", mmap=True)
    return _made(paths.TRAIN, read_estimators(paths.FOLD_FEATURES, "features")[k])


def final_features(table: Path) -> np.ndarray:
    """The training (paths.TRAIN) or test (paths.TEST) rows in the features fitted on every training row."""
    written = paths.FINAL_TRAIN_FEATURES if table == paths.TRAIN else paths.FINAL_TEST_FEATURES
    if written.exists() or not INPUTS.exists():
        return read_matrix(written, "features")
    return _made(table, read_model(paths.FEATURE_TRANSFORMER, "features"))


def _made(table: Path, transformer: FittedFeatures) -> np.ndarray:
    inputs = read_json(INPUTS, "features")
    frame = read_parquet(table, "split", columns=[*inputs["numeric"], *inputs["categorical"]])
    return transformer.transform(raw_matrix(frame, inputs["numeric"], inputs["categorical"]))


@contextmanager
def audited_rows(params: JSON, target: Target) -> Iterator[tuple[pd.DataFrame, RowsInMemory | RowsOnParts]]:
    """(the test rows: their row ids, target, group and sensitive columns at least; the rows the reweighed refit is
    fitted and judged on: RowsInMemory, or RowsOnParts on the cluster on the partitioned path)."""
    data = params["data"]
    if isinstance(data_mode(params, paths.TRAIN), InMemory):
        test = read_parquet(paths.TEST, "split")
        X_test = raw_matrix(test, *feature_columns(test.columns, data))
        yield test, RowsInMemory(lambda: final_features(paths.TRAIN), X_test, params["compute"])
        return
    keys = [paths.ROW_ID, data["target"], *([data["group"]] if data["group"] else []), *data["sensitive"]]
    test = read_parquet(paths.TEST, "split", columns=list(dict.fromkeys(keys)))
    with dask_client(params["compute"]) as client:
        yield test, RowsOnParts(client, target)


def fit_weighted(model: BaseEstimator, X: np.ndarray, y: np.ndarray, weights: np.ndarray) -> str | None:
    """Fit `model` with sample weights; the reason when it cannot be, None when it was fitted."""
    # mllib's BaseEstimator declares no fit (each estimator class defines its own): the two ignores below
    if "sample_weight" not in inspect.signature(model.fit).parameters:  # type: ignore[attr-defined]
        return f"not supported: {type(model).__name__} cannot be fitted with sample weights"
    try:
        model.fit(X, y, sample_weight=weights)  # type: ignore[attr-defined]
    except ValueError as exc:
        return f"the weighted refit failed: {exc}"
    return None


class RowsInMemory:
    """The training rows in the deployed features and the raw test rows, in this process: what the reweighed refit
    is fitted on and judged on (the partitioned path's: RowsOnParts)."""

    def __init__(self, training_features: Callable[[], np.ndarray], X_test: MixedMatrix, compute: JSON) -> None:
        self.training_features, self.X_test = training_features, X_test  # training_features(): read when refitted
        self.compute = compute

    def fit_weighted(self, model: BaseEstimator, y: np.ndarray, weights: np.ndarray) -> str | None:
        with own_threads(model, self.compute):  # the stage's only fit: it may use every core
            return fit_weighted(model, self.training_features(), y, weights)

    def decisions(self, predictor: DeployedPredictor) -> np.ndarray:
        decision: np.ndarray = predictor.decide(predictor.predict_proba(self.X_test))["decision"]
        return decision


class RowsOnParts:
    """The reweighed refit on the partitioned path (RowsInMemory's counterpart): fitted from the training parts in
    the deployed features with a weight per row, its decisions made part by part on the test parts."""

    def __init__(self, client: Client, target: Target) -> None:
        self.client, self.target, self.inputs = client, target, read_json(INPUTS, "features")

    def fit_weighted(self, model: BaseEstimator, y: np.ndarray, weights: np.ndarray) -> str | None:
        if not fits_from_blocks(model):
            return f"not supported on parts: {type(model).__name__} needs every training row in one matrix"
        from mllib import io as mlio

        transformer = cast("FittedFeatures", mlio.load(paths.FEATURE_TRANSFORMER))  # the features stage's transformer
        try:
            # mllib's BaseEstimator declares no fit_blocks (fits_from_blocks above: this model has one)
            model.fit_blocks(  # type: ignore[attr-defined]
                all_rows(self.client, paths.TRAIN, self.inputs, self.target, transformer, weights)
            )
        except ValueError as exc:
            return f"the weighted refit failed: {exc}"
        return None

    def decisions(self, predictor: DeployedPredictor) -> np.ndarray:
        return part_outputs(self.client, paths.TEST, self.inputs, _decisions, predictor)["decision"]


def _decisions(predictor: DeployedPredictor, X: MixedMatrix) -> PartOutputs:
    return {"decision": predictor.decide(predictor.predict_proba(X))["decision"]}


# (the search's fold_data: BlockFolds or an mllib FoldData, Any while training.search_model declares a list; the
# runner of its tasks; the refit of a model on every training row)
TrainingRows = tuple[Any, AbstractContextManager[TaskRunner | None], Callable[[BaseEstimator], object]]


@per_mode
def training_rows(
    mode: Mode,
    cluster: ExitStack,
    params: JSON,
    names: list[str],
    target: Target,
    y: np.ndarray,
    splits: SplitList,
    groups: np.ndarray | None,
) -> TrainingRows:
    """The train stage's rows in the run's mode (a cluster is opened in `cluster`, and lives while it does): what
    the search fits and scores (fold_data of mllib.model_selection.evaluate_candidates), the runner its tasks take
    (compute.backend's, or none when the fits run on the cluster themselves), and the refit of the chosen model on
    every training row."""


@training_rows.register
def _on_parts(
    mode: OnParts,
    cluster: ExitStack,
    params: JSON,
    names: list[str],
    target: Target,
    y: np.ndarray,
    splits: SplitList,
    groups: np.ndarray | None,
) -> TrainingRows:
    """Each fit's sums over the parts, where the parts are; the training rows' groups (data.group) reach the models
    that hold rows out of their own fit (early stopping), as in memory."""
    client = cluster.enter_context(dask_client(params["compute"]))
    inputs = read_json(INPUTS, "features")

    def refit(model: BaseEstimator) -> object:
        from mllib import io as mlio

        transformer = cast("FittedFeatures", mlio.load(paths.FEATURE_TRANSFORMER))  # the features stage's transformer
        # the models fitted on parts have fit_blocks (OnParts.fitted_models)
        return fit_blocks_with_groups(model, all_rows(client, paths.TRAIN, inputs, target, transformer), groups)

    return BlockFolds(client, splits, inputs, target, groups), nullcontext(None), refit


@training_rows.register
def _in_memory(
    mode: InMemory,
    cluster: ExitStack,
    params: JSON,
    names: list[str],
    target: Target,
    y: np.ndarray,
    splits: SplitList,
    groups: np.ndarray | None,
) -> TrainingRows:
    """The features stage's matrix of each split, read split by split (one in memory at a time); the training part's
    groups (data.group) go to models that cross-validate inside it (stacking). Worker processes get the path reader,
    not the matrices."""

    def refit(model: BaseEstimator) -> object:
        return fit_with_groups(model, final_features(paths.TRAIN), y, groups)

    return FoldData(split_features, y, splits, groups), task_runner(params["compute"]), refit
