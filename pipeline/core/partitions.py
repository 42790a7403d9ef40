"""Tables larger than one process's memory: a directory of Parquet parts (part-00000.parquet, ...) read and written
part by part on the Dask cluster of params.yaml `compute`.

The partitioned path is taken when data.path is a directory of parts and compute.backend is dask; the data stages'
outputs (validated, quarantine, clean, train, test) are then directories of parts at the same paths (a Parquet
reader reads such a directory as one table, rows in part order). A row keeps its position in the data (its
`_row_id`: parts in name order, rows in part order), so every check, count and split is the one the in-memory path
makes of the same rows. The workers read and write the parts themselves: a cluster on other machines needs the
repository on a shared filesystem at the same path.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pandas as pd

from .data_files import DataSource, as_text, check_same_columns, dataset_parts, read_data_file
from .dispatch import dispatched_over
from .errors import PipelineError
from .io import (
    check_inside,
    damage_named,
    existing_output,
    output_parts,
    read_view,
    staged_directory,
    view_selection,
    write_parquet,
)
from .json_types import JSON

if TYPE_CHECKING:
    from functools import _SingleDispatchCallable

    import numpy as np
    from distributed import Client, Future

    from .task_base import Target

R = TypeVar("R")  # a task's result
Steps = tuple[tuple[Callable[..., Any], tuple[Any, ...]], ...]  # transforms recorded on blocks: (fn, its arguments)


def partitioned(data: JSON, compute: JSON) -> bool:
    """Whether the data stages work part by part: data.path is a directory of parts and compute.backend is dask (on
    the local backend the parts are read as one table in memory, with the same results)."""
    return Path(data["path"]).is_dir() and compute["backend"] == "dask"


class Mode:
    """Where the data stages' rows are: InMemory or OnParts (`data_mode`)."""


def per_mode(function: Callable[..., R]) -> _SingleDispatchCallable[R]:
    """A function that differs by the data's mode (pipeline/core/dispatch.py, on its first argument, the mode): both
    modes register one."""
    return dispatched_over(Mode)(function)


class InMemory(Mode):
    """The rows in this process: every table one file, read whole (data.path a file, or a directory of parts read as
    one table on the local backend)."""

    @staticmethod
    def fitted_models(names: list[str], model_cfg: JSON, target: Target, seed: int) -> tuple[list[str], list[str]]:
        """(the models the train stage fits, those of model.name auto's set left out): every one."""
        return names, []


class OnParts(Mode):
    """The rows on the Dask cluster, part by part: every table a directory of parts (or a view of another's), the
    fits made from mergeable sums over the parts where they are."""

    @staticmethod
    def fitted_models(names: list[str], model_cfg: JSON, target: Target, seed: int) -> tuple[list[str], list[str]]:
        """(the models that fit from parts, those of model.name auto's set that cannot); a named one that cannot is
        refused."""
        from .build import models_from_parts

        return models_from_parts(names, model_cfg, target, seed)


def data_mode(params: JSON, table: Path | None = None) -> InMemory | OnParts:
    """The run's mode. validate chooses it from params.yaml (`partitioned`) and writes its tables as parts or as
    files; a later stage reads the choice back from the table it reads (`table`: a directory of parts, on the same
    dask backend), so no stage but validate reads data.path. Every stage that differs by the mode registers one
    function per mode (`per_mode`) and does not test it."""
    if table is None:
        return OnParts() if partitioned(params["data"], params["compute"]) else InMemory()
    return OnParts() if table.is_dir() and params["compute"]["backend"] == "dask" else InMemory()


def part_name(k: int) -> str:
    return f"part-{k:05d}.parquet"


@dataclass(frozen=True)
class Parts:
    """Parquet parts read as one table: `rows` per part, and the column types the parts' concatenation has (a
    column that is whole numbers in one part and has gaps in another is float64 in every part, as pd.concat makes
    it). read(k) gives part k with those types, indexed by the rows' positions in the table."""

    files: tuple[Path, ...]
    rows: tuple[int, ...]
    dtypes: pd.Series
    text_columns: tuple[str, ...] = ()
    shown: tuple[Path, ...] = ()  # the parts as messages name them (as given; the user's CSV parts): default `files`
    user_data: bool = True  # the user's parts (read with the data file's checks) or a stage's output
    selection: Path | None = None  # a view (io.write_view): the directory naming the rows kept of each part

    @classmethod
    def output(cls, directory: Path | str, made_by: str) -> Parts:
        """A stage's partitioned output: its parts, or the kept rows of another output's parts (a view)."""
        view = read_view(directory)
        if view is not None:
            parts = cls.of(view["files"])
            return replace(parts, rows=tuple(view["rows"]), selection=Path(directory).resolve(), user_data=False)
        files = output_parts(directory)
        if not files:
            raise PipelineError(
                f"{directory} has no parts; it is written by the {made_by} stage: run `dvc repro {made_by}`"
            )
        return replace(cls.of(files), user_data=False)

    @classmethod
    def of(cls, files: Sequence[Path], text_columns: Sequence[str] = (), shown: Sequence[Path] | None = None) -> Parts:
        """The Parquet parts `files` (shown: how messages name them; default the files as given)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        shown = tuple(Path(f) for f in (shown or files))
        files = tuple(Path(f).resolve() for f in files)  # the workers' working directory may not be this one
        schemas = [pq.read_schema(f) for f in files]
        check_same_columns(list(shown), [list(s.names) for s in schemas])
        # as one file of the parts would be typed: whole numbers and numbers with gaps -> float64, a column without a
        # value in one part -> the others' type
        unified = pa.unify_schemas([s.remove_metadata() for s in schemas], promote_options="permissive")
        dtypes = unified.empty_table().to_pandas().dtypes
        dtypes[[c for c in text_columns if c in dtypes.index]] = object  # read_data_file reads these as text
        rows = tuple(pq.ParquetFile(f).metadata.num_rows for f in files)
        return cls(files, rows, dtypes, tuple(text_columns), shown)

    @property
    def columns(self) -> pd.Index:
        return self.dtypes.index

    @property
    def offsets(self) -> list[int]:
        return [sum(self.rows[:k]) for k in range(len(self.rows))]

    def source(self, path: Path | str) -> DataSource:
        return DataSource.of(path, self.shown or self.files, self.rows)

    def read(self, k: int, columns: list[str] | None = None) -> pd.DataFrame:
        if self.user_data and columns is None:
            frame = _read_user_part(self.files[k], self.shown[k], self.text_columns)
        else:  # some columns only (the part's checks come with its whole read, on a worker)
            frame = pd.read_parquet(self.files[k], columns=columns)
            if self.selection is not None:
                frame = frame.iloc[view_selection(self.selection, k)]
            for column in set(self.text_columns) & set(frame.columns):
                frame[column] = frame[column].map(as_text, na_action="ignore").astype(object)
        frame = frame.astype(self.dtypes[frame.columns].to_dict())
        start = self.offsets[k]
        frame.index = pd.RangeIndex(start, start + len(frame))
        return frame

    def __getitem__(self, column: str) -> pd.Series:
        """One column of the whole table (what build_schema reads of the data)."""
        return pd.concat([self.read(k, [column])[column] for k in range(len(self.files))])

    def __len__(self) -> int:
        return sum(self.rows)


def _read_user_part(path: Path, shown: Path, text_columns: Sequence[str]) -> pd.DataFrame:
    """A part of the user's data with the data file's checks, its messages naming it as data.path does."""
    try:
        return read_data_file(path, text_columns, part=True)
    except PipelineError as exc:
        raise PipelineError(str(exc).replace(str(path), str(shown))) from None


def _to_parquet(csv: Path, shown: Path, out: Path, text_columns: Sequence[str]) -> None:
    write_parquet(_read_user_part(csv, shown, text_columns), out)


def raw_parts(client: Client, path: Path | str, text_columns: Sequence[str], scratch: Path) -> Parts:
    """data.path's parts as Parquet parts: Parquet parts as they are; CSV parts read once on the workers (with the
    single file's checks) and written as Parquet into `scratch`."""
    files = dataset_parts(check_inside(path))
    if files[0].name.lower().endswith((".parquet", ".pq")):
        parts = Parts.of(files, text_columns)
    else:
        converted = [scratch.resolve() / part_name(k) for k in range(len(files))]
        absolute = [f.resolve() for f in files]
        futures = client.map(_to_parquet, absolute, files, converted, text_columns=list(text_columns), pure=False)
        for future in futures:  # in part order: the first bad part's message is the one shown
            future.result()
        parts = Parts.of(converted, shown=files)  # text columns already read as text, as from one CSV
    if not len(parts):
        raise PipelineError(f"every part of data.path {path} is empty; point data.path at data with rows")
    return parts


def scratch_directory(near: Path | str) -> tempfile.TemporaryDirectory[str]:
    """A temporary directory beside `near` (same filesystem as the outputs), removed when the block ends."""
    Path(near).parent.mkdir(parents=True, exist_ok=True)
    return tempfile.TemporaryDirectory(dir=Path(near).parent, prefix=".parts-")


@contextmanager
def staged_outputs(outputs: dict[str, Path]) -> Iterator[dict[str, Path]]:
    """{name: an empty staging directory} for partitioned outputs, each swapped in whole for its output when the block
    ends without error (an error leaves the last good outputs as they were)."""
    with ExitStack() as stack:
        yield {name: stack.enter_context(staged_directory(path)) for name, path in outputs.items()}


def map_parts(
    client: Client, fn: Callable[..., R], n_parts: int, staged: dict[str, Path], *per_part: Sequence[Any], **kwargs: Any
) -> list[R]:
    """fn(k, {name: part k's file in staged output `name`}, *(items[k] for items in per_part), **kwargs) for every
    part k on the cluster (per_part: lists of one item per part, so a task gets its own part's share only): the
    results in part order, the first failing part's error raised (whichever part failed first in time)."""
    files = [{name: directory.resolve() / part_name(k) for name, directory in staged.items()} for k in range(n_parts)]
    shares = [client.scatter(list(items)) for items in per_part]  # sent to the workers, not inside the task graph
    futures: list[Future[R] | None] = list(
        client.map(partial(_one_part, fn), range(n_parts), files, *shares, pure=False, **kwargs)
    )  # a list whose items can be let go
    results: list[R] = []
    for k in range(n_parts):
        results.append(cast("Future[R]", futures[k]).result())  # released only below, once its result is here
        futures[k] = None  # the worker lets go of the result once it is here
    return results


def _one_part(fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """fn on one part, then the memory it freed handed back to the system: glibc keeps freed heap pages of a process
    that allocates and frees large frames part after part, and a worker's resident memory would grow with the
    number of parts it has worked (measured: 2.4 GB after 2-3 parts of 1M rows, 4.8 GB after 10)."""
    try:
        return fn(*args, **kwargs)
    finally:
        _trim_heap()


def _trim_heap() -> None:
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    libc = ctypes.util.find_library("c")
    if libc:
        try:
            ctypes.CDLL(libc).malloc_trim(0)
        except (OSError, AttributeError):  # not glibc: nothing to trim
            pass


def table_head(
    path: Path | str, made_by: str, n_rows: int, columns: list[str] | None = None
) -> tuple[pd.DataFrame, int]:
    """(the first n_rows rows of a stage's table, its number of rows): a file or parts, the rest left unread (what
    describes a table of 16M rows, its columns, types and a few example rows, without holding it)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = existing_output(path, made_by)
    if path.is_dir():
        parts, frames = Parts.output(path, made_by), []
        for k in range(len(parts.files)):  # the parts in order until they hold n_rows rows
            frames.append(parts.read(k, columns))
            if sum(len(f) for f in frames) >= n_rows:
                break
        return pd.concat(frames).head(n_rows), len(parts)
    with damage_named(path, made_by):
        file = pq.ParquetFile(path)
        first = next(file.iter_batches(batch_size=n_rows, columns=columns), None)
        table = pa.Table.from_batches([first]) if first is not None else file.schema_arrow.empty_table()
        return table.to_pandas(), file.metadata.num_rows


def rows_by_part(rows: np.ndarray, parts: Parts) -> list[np.ndarray]:
    """Sorted positions in the table, split by the part holding them."""
    import numpy as np

    bounds = np.searchsorted(rows, np.cumsum([0, *parts.rows]))
    return [rows[bounds[k] : bounds[k + 1]] for k in range(len(parts.rows))]


class ClusterBlocks:
    """Blocks of rows on the Dask cluster's workers, with mllib.base.RowBlocks's three methods: a model's fit_blocks
    (logistic regression's Newton steps, ridge's Gram matrix, the feature steps' statistics) runs its per-block
    function where each block is, and only the results (a loss, a gradient, a p x p matrix per block) come back, in
    block order. The blocks are made once and kept in the workers' memory (`load`); `transform` records a step that
    every later pass applies to each block where it is and lets go after, so a chain of feature steps costs a worker
    its blocks and one transformed block at a time, not a copy per step. (Reading the parts anew on each pass instead
    holds one part per worker whatever the rows, but cost the features stage 6x its CPU at 1M rows: the imputer's
    medians take a pass per column.)"""

    def __init__(self, client: Client, futures: Sequence[Future[Any]], steps: Steps = ()) -> None:
        self.client, self.futures, self.steps = client, list(futures), steps

    @classmethod
    def load(
        cls,
        client: Client,
        load_block: Callable[..., Any],
        part_numbers: list[int],
        *per_part: Sequence[Any],
        **kwargs: Any,
    ) -> ClusterBlocks:
        """A block per part k in `part_numbers`, made on a worker by load_block(k, *(items[k] for items in per_part),
        **kwargs) (e.g. the part's rows read and transformed) and kept there; per_part: lists of one item per part,
        scattered so each task gets its own part's share only."""
        shares = [client.scatter([items[k] for k in part_numbers]) for items in per_part]
        return cls(client, client.map(load_block, part_numbers, *shares, pure=False, **kwargs))

    def map(self, fn: Callable[..., R], *args: Any) -> list[R]:
        return list(self.each(fn, *args))

    def each(self, fn: Callable[..., R], *args: Any) -> Iterator[R]:
        """The results in block order, each fetched when the caller asks for it (all are computed at once; a result
        waits on its worker until then)."""
        futures: list[Future[R] | None] = [
            self.client.submit(_mapped, block, self.steps, fn, args, pure=False) for block in self.futures
        ]
        for k in range(len(futures)):
            yield cast("Future[R]", futures[k]).result()  # released only below, once its result is here
            futures[k] = None  # the worker lets the result go

    def transform(self, fn: Callable[..., Any], *args: Any) -> ClusterBlocks:
        return ClusterBlocks(self.client, self.futures, self.steps + ((fn, args),))


def _mapped(block: Any, steps: Steps, fn: Callable[..., R], args: tuple[Any, ...]) -> R:
    """fn(block, *args) after the recorded transforms."""
    for step, step_args in steps:
        block = step(block, *step_args)
    return fn(block, *args)
