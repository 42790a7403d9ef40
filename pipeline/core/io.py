"""Reading and writing stage files. Every write is atomic (temporary file, then rename), so a failing
stage never leaves a half-written output or damages the outputs of an earlier good run; every read
failure names the file and the stage that makes it."""

from __future__ import annotations

import ctypes
import hashlib
import json
import math
import os
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .json_types import JSON

import numpy as np
import pandas as pd
import pyarrow as pa

from .errors import PipelineError

# Arrow's default allocator (mimalloc) keeps the pages of a table it has freed: reading a 16M-row table of four
# columns left the process at 1.47 GB for a 0.51 GB frame, 0.65 GB with the system's allocator (peak 1.43 -> 1.13).
pa.set_memory_pool(pa.system_memory_pool())
_LIBC: ctypes.CDLL | None
try:
    _LIBC = ctypes.CDLL("libc.so.6")
    _LIBC.malloc_trim
except (OSError, AttributeError):  # not glibc
    _LIBC = None


@contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """Yield a temporary sibling of `path`; on success it replaces `path`, on error it is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        yield tmp
        if path.is_dir():  # a partitioned output of an earlier run (pipeline/core/partitions.py)
            replace_directory(tmp, path)
        else:
            os.replace(tmp, path)
    except OSError as exc:  # a failed write (disk full, read-only) names the output, not its temporary file
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    finally:
        if tmp.is_dir():
            shutil.rmtree(tmp)
        elif tmp.exists():
            tmp.unlink()


def replace_directory(staging: Path, target: Path) -> None:
    """Swap a fully written staging directory (or file) into place of `target`, a directory or a file."""
    old = target.with_name(f".{target.name}.old")
    _remove(old)
    if target.exists():
        os.replace(target, old)
    os.replace(staging, target)
    _remove(old)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def write_estimators(estimators: Sequence[Any], directory: Path | str) -> None:
    """mllib estimators as fold_0, fold_1, ... (.json + .npz, mllib.io) in `directory`, replaced as a whole."""
    import tempfile

    from mllib import io as mlio

    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory.parent) as staging:
        fresh = Path(staging) / directory.name
        fresh.mkdir()
        for k, estimator in enumerate(estimators):
            mlio.save(estimator, fresh / f"fold_{k}")
        replace_directory(fresh, directory)


def read_estimators(directory: Path | str, made_by: str) -> list[Any]:
    """The estimators write_estimators saved, in fold order."""
    directory = Path(directory)
    if not directory.is_dir():
        raise PipelineError(f"{directory} is missing; it is written by the {made_by} stage: run `dvc repro {made_by}`")
    n = len(list(directory.glob("fold_*.json")))
    return [read_model(directory / f"fold_{k}", made_by) for k in range(n)]


def read_model(path: Path | str, made_by: str) -> Any:
    """An mllib estimator a stage saved (mllib.io: `path`.json + `path`.npz); a missing, truncated or damaged file is
    one line naming it and the command that restores or rebuilds it."""
    from mllib import io as mlio

    path = Path(path)
    parts = [existing_output(path.with_suffix(suffix), made_by) for suffix in (".json", ".npz")]
    with damage_named(path.with_suffix(".json + .npz"), made_by, parts):
        return mlio.load(path)


# what numpy, zipfile, json and pyarrow raise for a file cut short or overwritten; an OSError with an errno is the
# system's (no permission, disk gone), which run_stage names as such
_DAMAGE = (EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error, UnicodeDecodeError)


@contextmanager
def damage_named(path: Path | str, made_by: str, files: Sequence[Path] = ()) -> Iterator[None]:
    """Reading a stage's output: a truncated or damaged file (a copy interrupted, a disk error, an edit) becomes one
    line naming it, what the reader saw, and the `dvc` commands that restore it from DVC's cache or rebuild it (a
    column the file lacks reads the same: an output of another version of the stage). files: the files `path` names
    (an mllib model's .json and .npz), when not `path` itself."""
    try:
        yield
    except PipelineError:
        raise
    except (*_DAMAGE, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise
        raise damaged(path, made_by, exc, files) from None


def damaged(path: Path | str, made_by: str, exc: BaseException, files: Sequence[Path] = ()) -> PipelineError:
    seen = " ".join(str(exc).split()) or type(exc).__name__
    seen = seen if len(seen) <= 120 else seen[:117] + "..."
    restored = " ".join(str(f) for f in files) if files else str(path)
    return PipelineError(
        f"{path} cannot be read ({seen}): it is truncated, damaged or not the {made_by} stage's; restore it with "
        f"`dvc checkout --force {restored}` (DVC's copy), or rebuild it with "
        f"`dvc repro --force {made_by}`"
    )


def _jsonable(value: object) -> object:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None  # undefined (e.g. a rate with a zero denominator): JSON null, never a silent 0
    return value


def write_json(obj: object, path: Path | str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(_jsonable(obj), indent=2, sort_keys=True) + "\n")


def write_text(text: str, path: Path | str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_parquet(df: pd.DataFrame, path: Path | str) -> None:
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False, engine="pyarrow")


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP, "CSV Injection")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """Text a spreadsheet would run as a formula, prefixed with ' so it reads as text; anything else unchanged.
    Numbers stay numbers (a negative number is data, not a formula)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_csv(df: pd.DataFrame, path: Path | str) -> None:
    """A CSV safe to open in a spreadsheet: text cells and column names that would run as formulas are neutralised
    (the raw values stay in the stage's JSON and Parquet outputs, which are data, not documents)."""
    import csv

    safe = df.rename(columns=spreadsheet_safe)
    text = safe.columns[[not pd.api.types.is_numeric_dtype(t) for t in safe.dtypes]]
    for column in text:
        safe[column] = safe[column].map(spreadsheet_safe)
    # the csv module leaves a lone CR unquoted when lines end in LF, which a reader takes for a line break
    has_cr = lambda v: isinstance(v, str) and "\r" in v  # noqa: E731
    carriage_return = any(map(has_cr, safe.columns)) or any(safe[c].map(has_cr).any() for c in text)
    quoting = csv.QUOTE_NONNUMERIC if carriage_return else csv.QUOTE_MINIMAL
    with atomic_path(path) as tmp:
        safe.to_csv(tmp, index=False, lineterminator="\n", quoting=quoting)


def write_png(fig: Figure, path: Path | str) -> None:
    """Save a matplotlib figure without a timestamp or version stamp, so identical plots are identical bytes."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=100, metadata={"Software": None})


def read_json(path: Path | str, made_by: str) -> JSON:
    path = Path(path)
    try:
        content: JSON = json.loads(path.read_text())
        return content
    except FileNotFoundError:
        raise PipelineError(
            f"{path} is missing; it is written by the {made_by} stage: run `dvc repro {made_by}`"
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise damaged(path, made_by, exc) from None


def read_predictor(path: Path) -> Any:
    """The deployed predictor calibrate wrote (mllib.deploy: DeployedPredictor for classes, DeployedRegressor for a
    regression target). Typed Any: its members differ by kind, and the code looked up by the task's name uses them."""
    from mllib.deploy import DeployedPredictor, DeployedRegressor

    predictor = read_model(path, "calibrate")
    if not isinstance(predictor, (DeployedPredictor, DeployedRegressor)):
        raise PipelineError(
            f"{path} holds a {type(predictor).__name__}, not a deployed predictor: rerun `dvc repro -f calibrate`"
        )
    return predictor


def existing_output(path: Path | str, made_by: str) -> Path:
    """The path of a stage's output, or the error saying which stage writes it."""
    path = Path(path)
    if not path.exists():
        raise PipelineError(f"{path} is missing; it is written by the {made_by} stage: run `dvc repro {made_by}`")
    return path


def read_parquet(path: Path | str, made_by: str, columns: list[str] | None = None) -> pd.DataFrame:
    """A stage's parquet output (columns: only these, in this order; None: all)."""
    path = existing_output(path, made_by)
    with damage_named(path, made_by):
        table = _parquet_table(path, columns)
        # column by column, each Arrow column freed once converted: about one copy of the table at the peak, not two
        # (pandas.read_parquet holds both: 1.35 GB against 0.97 for 16M rows of four columns)
        frame = table.to_pandas(self_destruct=True, split_blocks=True)
    release_freed_memory()
    return frame


def _parquet_table(path: Path, columns: list[str] | None) -> pa.Table:
    import pyarrow.parquet as pq

    if not path.is_dir():
        return pq.read_table(path, columns=columns)
    # a partitioned output (pipeline/core/partitions.py), read whole: parts in order
    view = read_view(path)
    if view is None:
        parts = [pq.read_table(part, columns=columns) for part in output_parts(path)]
    else:  # the kept rows of each source part
        parts = [
            pq.read_table(part, columns=columns).take(view_selection(path, k)) for k, part in enumerate(view["files"])
        ]
    # a column without a value in one part (an empty quarantine) takes the others' type, as in one file
    return pa.concat_tables(parts, promote_options="permissive")


def release_freed_memory() -> None:
    """Give the pages malloc keeps after a read back to the system (glibc only; elsewhere nothing to do). A read of
    parts frees many blocks of a few MB, which glibc keeps in its heaps: 0.45 GB of the split stage's 3.8 GB at 20M
    rows."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def check_inside(path: Path | str) -> Path:
    """data.path, refused when it resolves outside the repository (symlinks followed: DVC versions the file there,
    and a link to a system file is never read) or does not exist."""
    path = Path(path)
    root, resolved = Path.cwd().resolve(), path.resolve()
    if not resolved.is_relative_to(root):  # refused before a byte is read: no message can echo its content
        raise PipelineError(
            f"params.yaml: data.path {path} resolves to {resolved}, outside the repository {root}; copy the file "
            "into the repository (e.g. data/raw/) so DVC versions it, and point data.path there"
        )
    if not path.exists():
        raise PipelineError(f"data file {path} (params.yaml: data.path) does not exist; fix data.path")
    return path


def output_parts(directory: Path | str) -> list[Path]:
    """The parts of a stage's partitioned output (pipeline/core/partitions.py), in order."""
    return sorted(Path(directory).glob("part-*.parquet"))


VIEW = "view.json"  # a partitioned output that is some rows of another one's parts, not a copy of them


def view_rows_file(k: int) -> str:
    return f"rows-{k:05d}.npy"


def write_view(directory: Path, output: Path | str, source: Path | str, counts: list[int]) -> None:
    """Make `directory` (the staging of `output`, holding rows-00000.npy, ...: the positions kept in each of source's
    parts) a view of the partitioned output `source` (named relative to `output`, so the view reads the same from any
    working directory); the source parts' md5s are part of it, so the view changes whenever they do (DVC
    reruns what reads it)."""
    parts = output_parts(source)
    md5s = []
    for part in parts:
        digest = hashlib.md5()
        with open(part, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 24), b""):
                digest.update(chunk)
        md5s.append(digest.hexdigest())
    of = os.path.relpath(Path(source).resolve(), Path(output).resolve().parent)
    write_json({"of": of, "parts": [p.name for p in parts], "md5": md5s, "rows": counts}, directory / VIEW)


def read_view(directory: Path | str) -> JSON | None:
    """A view's record (write_view), with `files`: the source parts; None when `directory` is not a view."""
    record_file = Path(directory) / VIEW
    if not record_file.is_file():
        return None
    record = json.loads(record_file.read_text())
    files = [Path(directory).parent / record["of"] / name for name in record["parts"]]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise PipelineError(f"{directory} keeps rows of {missing[0]}, which is missing; run `dvc repro split`")
    return {**record, "files": files}


def view_selection(directory: Path | str, k: int) -> np.ndarray:
    """The positions a view keeps of its source's part k."""
    rows: np.ndarray = np.load(Path(directory) / view_rows_file(k))
    return rows


@contextmanager
def staged_directory(directory: Path | str) -> Iterator[Path]:
    """Yield an empty staging directory beside `directory`; when the block ends without error the staging directory
    replaces `directory` whole (files are written one by one as they are made, and nothing is half-replaced)."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory.parent) as staging:
        fresh = Path(staging) / directory.name
        fresh.mkdir()
        yield fresh
        replace_directory(fresh, directory)


def write_matrix(X: np.ndarray, path: Path | str) -> None:
    """A float64 matrix as .npy (no pickle; the same bytes for the same values)."""
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.save(f, np.ascontiguousarray(X, dtype=np.float64), allow_pickle=False)


def read_matrix(path: Path | str, made_by: str, mmap: bool = False) -> np.ndarray:
    """A matrix written by write_matrix; mmap: memory-mapped read-only (rows are read from disk when indexed)."""
    path = existing_output(path, made_by)
    with damage_named(path, made_by):
        matrix: np.ndarray = np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
        return matrix
