"""The user's data file (data.path): a CSV (plain or gzipped) or Parquet file, or a directory of parts read as one
table. Every way a file can be wrong (missing, empty, compressed under another name, not UTF-8, truncated, a header
too long, too many columns, duplicate names, parts whose columns differ) is one line naming the file and the fix."""

from __future__ import annotations

import gzip
import hashlib
import io
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import PipelineError
from .io import check_inside

PARQUET_SUFFIXES = (".parquet", ".pq")
CSV_SUFFIXES = (".csv", ".csv.gz", ".gz")


def _suffix(path: Path) -> str:
    return "".join(path.suffixes[-2:]).lower()


def _is_parquet(path: Path) -> bool:
    return _suffix(path).endswith(PARQUET_SUFFIXES)


class DataSource(str):
    """data.path as messages name it (a str), and where a row of the data (0-based, in reading order) sits: a file's
    data row and CSV line, or for a directory of parts the part and its row there."""

    parts: tuple[Path, ...] = ()
    offsets: tuple[int, ...] = ()  # the first row of each part

    @classmethod
    def of(cls, path: str | Path, parts: Iterable[Path] = (), rows: Iterable[int] = ()) -> DataSource:
        source = cls(str(path))
        source.parts, source.offsets = tuple(parts), tuple(int(x) for x in np.cumsum([0, *rows])[:-1])
        return source

    def row(self, index: int) -> str:
        path, index = Path(self), int(index)
        if self.parts:
            k = int(np.searchsorted(self.offsets, index, side="right")) - 1
            path, index = self.parts[k], index - self.offsets[k]
            where = f" of part {path.name}"
        else:
            where = ""
        line = "" if _is_parquet(path) else f", line {index + 2} of the {'part' if where else 'file'}"
        return f"data row {index + 1}{where}{line}"


def dataset_parts(path: Path | str) -> list[Path]:
    """The parts of a data.path directory, in name order: its Parquet files, or its CSV files (.csv, .csv.gz); each
    part holds some of the rows, with the same columns."""
    path = Path(path)
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    parquet = [p for p in files if _is_parquet(p)]
    csv = [p for p in files if _suffix(p).endswith(CSV_SUFFIXES)]
    if parquet and csv:
        raise PipelineError(
            f"params.yaml: data.path {path} holds both Parquet and CSV files ({parquet[0].name}, {csv[0].name}); "
            "a directory of parts holds one format: move the others out"
        )
    if not parquet and not csv:
        raise PipelineError(
            f"params.yaml: data.path {path} is a directory without .parquet or .csv files; point it at a file, or "
            "at a directory of parts (part-0.parquet, part-1.parquet, ...)"
        )
    return parquet or csv


def dataset_md5(path: Path | str) -> str:
    """The md5 of the data: a file's bytes (as dvc.lock records it); a directory's parts: the md5 of the lines
    `<md5 of the part> <name>` in name order."""
    path = Path(path)
    if not path.is_dir():
        return _file_md5(path)
    listing = "".join(f"{_file_md5(part)} {part.name}\n" for part in dataset_parts(path))
    return hashlib.md5(listing.encode()).hexdigest()


def _file_md5(path: Path) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 24), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_dataset(path: Path | str, text_columns: Sequence[str] = ()) -> pd.DataFrame:
    """The user's raw data: a file (CSV, gzipped CSV or Parquet), or a directory of parts (dataset_parts) read in
    name order as one table, with clear errors for missing, empty, truncated, wrongly encoded or unreadable files,
    for duplicate column names, for parts whose columns differ and for a path that resolves outside the repository.
    text_columns (data.categorical) are read as text, whatever their first rows look like, so a column of codes such
    as 1, 2, "2b" has one type."""
    return read_data(path, text_columns)[0]


def read_data(path: Path | str, text_columns: Sequence[str] = ()) -> tuple[pd.DataFrame, DataSource]:
    """read_dataset's table, and the DataSource that says where each of its rows sits (file, or part and row)."""
    path = check_inside(path)
    if not path.is_dir():
        return read_data_file(path, text_columns), DataSource.of(path)
    parts = dataset_parts(path)
    frames = [read_data_file(part, text_columns, part=True) for part in parts]
    check_same_columns(parts, [list(frame.columns) for frame in frames])
    rows = [len(frame) for frame in frames]
    if not any(rows):
        raise PipelineError(f"every part of data.path {path} is empty; point data.path at data with rows")
    # an empty part adds no row, and its untyped columns must not change the others' types
    table = pd.concat([frame for frame in frames if len(frame)], ignore_index=True)
    return table, DataSource.of(path, parts, rows)


def check_same_columns(parts: list[Path], columns: list[list[str]]) -> None:
    """Every part has the first part's columns, in its order (one message naming the part and the difference)."""
    for part, names in zip(parts[1:], columns[1:]):
        if names != columns[0]:
            missing = [c for c in columns[0] if c not in names]
            extra = [c for c in names if c not in columns[0]]
            difference = f"missing {missing}, extra {extra}" if missing or extra else "in another order"
            raise PipelineError(
                f"data part {part}: its columns differ from those of {parts[0].name} ({difference}); every part of "
                "a data.path directory needs the same columns in the same order"
            )


def read_data_file(path: Path, text_columns: Sequence[str] = (), part: bool = False) -> pd.DataFrame:
    """One data file (the whole data, or with `part` one part of a directory, which may hold no rows: Spark writes
    such parts)."""
    suffixes = _suffix(path)
    parquet = suffixes.endswith(PARQUET_SUFFIXES)
    if not parquet and not suffixes.endswith(CSV_SUFFIXES):
        raise PipelineError(f"data file {path}: unsupported format; use .csv, .csv.gz or .parquet")
    if not parquet:
        _check_not_compressed(path)
    try:
        header = _column_names(path, parquet)
        _check_no_nul_in_header(path, header)
        duplicated = sorted(name for name, n in Counter(header).items() if n > 1)
        if duplicated:
            raise PipelineError(
                f"data file {path} has duplicate column names {duplicated}; rename or remove the "
                "repeated columns (every column needs its own name)"
            )
        if parquet:
            df = pd.read_parquet(path)
        else:
            df = pd.read_csv(path, dtype={c: str for c in text_columns if c in header})
    except pd.errors.EmptyDataError:
        raise PipelineError(f"data file {path} is empty; point data.path at a file with a header and rows") from None
    except UnicodeDecodeError:
        offset, line, byte = _first_non_utf8(path)
        gzipped = path.suffix.lower() == ".gz"
        encoding, when = _encoding_guess(path)
        raise PipelineError(
            f"data file {path} is not UTF-8 text (byte 0x{byte:02x} at byte offset {offset}, line {line}); re-encode "
            f"it, e.g. `{'gunzip -c' if gzipped else 'cat'} {path.name} | iconv -f {encoding} -t utf-8 > fixed.csv` "
            f"{when}, and point data.path at the result"
        ) from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise PipelineError(
            f"data file {path} is truncated or not valid gzip ({type(exc).__name__}: {exc}); "
            "copy or download it again (`gzip -t` checks a .gz file)"
        ) from None
    except (pd.errors.ParserError, OSError, ValueError) as exc:
        raise PipelineError(
            f"data file {path} cannot be read ({type(exc).__name__}: {exc}); check its format"
        ) from None
    if df.shape[0] == 0 and not part:
        raise PipelineError(f"data file {path} has a header but no rows; point data.path at a file with data")
    if not parquet:
        _check_last_line(path, len(header))
    for column in text_columns:
        if column in df.columns and parquet:
            df[column] = df[column].map(as_text, na_action="ignore").astype(object)
    return df


# the first bytes of files a CSV reader would take for garbled text
_MAGIC = {
    b"\x1f\x8b": ("gzip-compressed", "name it {name}.gz (`mv {path} {path}.gz`) and point data.path at it"),
    b"PK\x03\x04": ("a zip archive", "unzip it (`unzip {path}`) and point data.path at the CSV inside"),
    b"BZh": ("bzip2-compressed", "decompress it (`bunzip2 -c {path} > {stem}.csv`) and point data.path at it"),
    b"\xfd7zXZ\x00": ("xz-compressed", "decompress it (`unxz -c {path} > {stem}.csv`) and point data.path at it"),
    b"(\xb5/\xfd": ("zstd-compressed", "decompress it (`zstd -dc {path} > {stem}.csv`) and point data.path at it"),
    b"PAR1": ("a Parquet file", "name it {stem}.parquet (`mv {path} {parquet}`) and point data.path at it"),
}


def _check_not_compressed(path: Path) -> None:
    """A file named as CSV whose first bytes say it is compressed or Parquet: refused, naming what it is."""
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    try:
        with opener(path, "rb") as f:
            head = f.read(8)
    except (OSError, EOFError, zlib.error):  # a broken .gz: the reader's message says so
        return
    for magic, (what, fix) in _MAGIC.items():
        if head.startswith(magic):
            stem = path.name.split(".")[0]
            parquet = path.with_name(f"{stem}.parquet")
            fix = fix.format(name=path.name, path=path, stem=stem, parquet=parquet)
            raise PipelineError(f"data file {path} is {what}, not CSV text; {fix}")


def _check_no_nul_in_header(path: Path, header: list[str]) -> None:
    """A column name holding NUL bytes: UTF-16 text without a byte order mark, read as UTF-8 (every other byte of its
    header is NUL); refused before its rows are taken for truncated lines."""
    spoilt = [name for name in map(str, header) if "\x00" in name]
    if spoilt:
        raise PipelineError(
            f"data file {path}: column name {spoilt[0]!r} holds NUL bytes (\\x00), as UTF-16 text without a byte order "
            f"mark does; re-encode it (`iconv -f utf-16le -t utf-8 {path.name} > fixed.csv`) and point data.path at "
            "the result"
        )


# byte order marks: a file that starts with one says its encoding (Excel's "Unicode text" is UTF-16 with one)
_BOMS = {
    b"\xff\xfe\x00\x00": "utf-32",
    b"\x00\x00\xfe\xff": "utf-32",
    b"\xff\xfe": "utf-16",
    b"\xfe\xff": "utf-16",
}


def _encoding_guess(path: Path) -> tuple[str, str]:
    """(iconv's name of the file's encoding, the clause saying why): the one its byte order mark names, else Latin-1
    (the usual single-byte encoding of a file that is not UTF-8)."""
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rb") as f:
        head = f.read(4)
    for bom, encoding in _BOMS.items():
        if head.startswith(bom):
            return encoding, f"(it starts with the byte order mark of {encoding.upper()})"
    return "latin1", "when it is Latin-1"


def _first_non_utf8(path: Path) -> tuple[int, int, int]:
    """(byte offset, line, byte) of the first byte that is not UTF-8 in a (decompressed) text file, 0-based offset
    and 1-based line as `cmp` and editors count them; read in chunks, so a large file costs no more memory."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    offset, lines = 0, 1
    with opener(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            pending = decoder.getstate()[0]
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                at = offset - len(pending) + exc.start
                bad = (pending + chunk)[exc.start]
                return at, lines + (pending + chunk)[: exc.start].count(b"\n"), bad
            offset += len(chunk)
            lines += chunk.count(b"\n")
    return offset, lines, 0


def as_text(value: object) -> str:
    """A category as text; a whole number stored as float (a Parquet integer column with gaps) without ".0"."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _last_line(path: Path) -> bytes:
    """The last non-empty line of a CSV file (gzipped or not), whole however long it is (a row of 5,000 numbers is
    ~100 KB): a plain file read from its end, further back until a line break precedes that line; a .gz file streamed
    through, keeping the line in progress."""
    if path.suffix.lower() != ".gz":
        size, file_size = 65536, path.stat().st_size
        with open(path, "rb") as f:
            while True:
                f.seek(max(0, file_size - size))
                lines = [line for line in f.read().splitlines() if line.strip()]
                if size >= file_size or len(lines) >= 2:  # the first line read may be cut; the last is whole
                    return lines[-1] if lines else b""
                size *= 4
    last, pending = b"", b""
    with gzip.open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            *complete, pending = (pending + chunk).split(b"\n")
            last = next((line for line in reversed(complete) if line.strip()), last)
    return pending if pending.strip() else last


def _check_last_line(path: Path, n_columns: int) -> None:
    """A file cut short (an interrupted copy or download) ends in a row with fewer fields than the header, which
    pandas would fill with missing values: refused, naming the count. (A last record whose quoted text spans lines
    cannot be judged from its last line and is left alone.)"""
    import csv

    last = _last_line(path)
    if b'"' in last:
        return
    fields = next(csv.reader([last.decode("utf-8", errors="replace")]), [])
    if len(fields) < n_columns:
        raise PipelineError(
            f"data file {path} looks truncated: its last line has {len(fields)} of the header's {n_columns} fields; "
            "copy or download it again"
        )


# The widest file the pipeline is built for: the real-data corpus's widest has 2,308 columns; at 100,000 validate alone
# ran past 580 s and 1 GB. A header longer than a megabyte is not a header (a file of one 300 MB line read as its
# header reached a MemoryError at 7 GB).
MAX_COLUMNS = 10_000
MAX_HEADER_BYTES = 1 << 20


def _column_names(path: Path, parquet: bool) -> list[str]:
    """The file's column names as written (pandas renames a repeated name to `name.1` when it reads the data), read
    from at most its first MAX_HEADER_BYTES; more than MAX_COLUMNS names are refused."""
    if parquet:
        import pyarrow.parquet as pq

        names = list(pq.read_schema(path).names)
    else:
        opener = gzip.open if path.suffix.lower() == ".gz" else open
        with opener(path, "rb") as f:
            head = f.read(MAX_HEADER_BYTES + 1)
        if len(head) > MAX_HEADER_BYTES and b"\n" not in head:
            raise PipelineError(
                f"data file {path}: its first line (the header) is longer than the {MAX_HEADER_BYTES:,} bytes a "
                "header may hold (no line break in them); check that the file is a CSV file with one row per line "
                "and a header line of column names"
            )
        names = [str(c) for c in pd.read_csv(io.BytesIO(head), header=None, nrows=1).iloc[0].tolist()]
    if len(names) > MAX_COLUMNS:
        raise PipelineError(
            f"data file {path} has {len(names):,} columns, more than the {MAX_COLUMNS:,} the pipeline takes; keep the "
            "columns you need (a file of those columns) and point data.path at it"
        )
    return names
