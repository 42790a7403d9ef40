"""pipeline/core/io.py: atomic writes (a failing block never damages the previous output), deterministic JSON with
NaN as null, and read errors that name the file."""

from __future__ import annotations

import gzip
import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipeline.core.data_files import read_dataset
from pipeline.core.errors import PipelineError
from pipeline.core.io import (
    atomic_path,
    read_json,
    read_parquet,
    replace_directory,
    write_csv,
    write_json,
    write_parquet,
)


@pytest.fixture(autouse=True)
def in_scratch_directory(tmp_path, monkeypatch):
    """Stages run from the repository root, and read_dataset refuses a file outside it: the scratch directory is the
    repository here."""
    monkeypatch.chdir(tmp_path)


# ---- atomic writes ----------------------------------------------------------------------------------------


def test_atomic_path_replaces_on_success_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    with atomic_path(target) as tmp:
        assert tmp != target and tmp.parent == target.parent
        tmp.write_text("new")
        assert not target.exists()  # nothing visible until the block succeeds
    assert target.read_text() == "new"
    assert os.listdir(target.parent) == ["out.txt"]


def test_atomic_path_keeps_old_file_when_block_raises(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old good output")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half writ")
            raise RuntimeError("crash mid-write")
    assert target.read_text() == "old good output"
    assert os.listdir(tmp_path) == ["out.json"]


def test_atomic_path_cleans_a_temporary_directory(tmp_path):
    target = tmp_path / "dir_out"
    with pytest.raises(ValueError):
        with atomic_path(target) as tmp:
            tmp.mkdir()
            (tmp / "part").write_text("x")
            raise ValueError
    assert os.listdir(tmp_path) == []


def test_writer_failure_does_not_damage_earlier_parquet(tmp_path):
    target = tmp_path / "t.parquet"
    good = pd.DataFrame({"a": [1, 2]})
    write_parquet(good, target)
    bad = pd.DataFrame({"a": [object(), object()]})  # pyarrow cannot store arbitrary objects
    with pytest.raises(Exception):
        write_parquet(bad, target)
    pd.testing.assert_frame_equal(pd.read_parquet(target), good)
    assert os.listdir(tmp_path) == ["t.parquet"]


def test_write_json_failure_keeps_previous(tmp_path):
    target = tmp_path / "m.json"
    write_json({"a": 1}, target)
    with pytest.raises(TypeError):
        write_json({"a": object()}, target)
    assert json.loads(target.read_text()) == {"a": 1}


def test_replace_directory_swaps_whole_tree(tmp_path):
    target, staging = tmp_path / "features", tmp_path / ".features.staging"
    target.mkdir()
    (target / "old.parquet").write_text("old")
    staging.mkdir()
    (staging / "fold_0.parquet").write_text("new")
    replace_directory(staging, target)
    assert sorted(os.listdir(target)) == ["fold_0.parquet"]
    assert sorted(os.listdir(tmp_path)) == ["features"]  # no staging, no .old left behind


def test_replace_directory_when_target_absent(tmp_path):
    staging = tmp_path / "stage"
    staging.mkdir()
    (staging / "f").write_text("1")
    replace_directory(staging, tmp_path / "t")
    assert (tmp_path / "t" / "f").read_text() == "1" and not staging.exists()


# ---- JSON ---------------------------------------------------------------------------------------------------


def test_write_json_nan_and_inf_become_null(tmp_path):
    path = tmp_path / "m.json"
    obj = {
        "a": float("nan"),
        "b": np.float64("nan"),
        "c": [1.0, math.inf, -np.inf],
        "d": np.array([np.nan, 2.0]),
        "e": {"f": np.float32(0.5), "g": np.int64(3), "h": np.bool_(True)},
        "ok": 0.25,
    }
    write_json(obj, path)
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == {
        "a": None,
        "b": None,
        "c": [1.0, None, None],
        "d": [None, 2.0],
        "e": {"f": 0.5, "g": 3, "h": True},
        "ok": 0.25,
    }


def test_write_json_is_deterministic_and_sorted(tmp_path):
    a = {"zeta": 1, "alpha": {"y": 2, "b": [3, {"k2": 1, "k1": 0}]}, 5: "int key"}
    b = {5: "int key", "alpha": {"b": [3, {"k1": 0, "k2": 1}], "y": 2}, "zeta": 1}  # same content, other order
    write_json(a, tmp_path / "1.json")
    write_json(a, tmp_path / "2.json")
    write_json(b, tmp_path / "3.json")
    first = (tmp_path / "1.json").read_bytes()
    assert first == (tmp_path / "2.json").read_bytes() == (tmp_path / "3.json").read_bytes()
    assert first.endswith(b"\n")
    keys = list(json.loads(first))
    assert keys == sorted(keys) == ["5", "alpha", "zeta"]


def test_write_csv_uses_unix_newlines(tmp_path):
    write_csv(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), tmp_path / "c.csv")
    assert (tmp_path / "c.csv").read_bytes() == b"a,b\n1,x\n2,y\n"


def test_write_csv_neutralises_what_a_spreadsheet_would_run(tmp_path):
    """OWASP's CSV injection: a text cell or a column name starting with = + - @ tab or CR is prefixed with ' (read
    as text); numbers, negative ones included, stay numbers; other text is untouched."""
    formula = '=HYPERLINK("http://example.com","F")'
    frame = pd.DataFrame(
        {"group": [formula, "+1", "-x", "@SUM(A1)", "\tA", "\rB", "plain", "a=b"], "@name": [-1.5, 2, 3, 4, 5, 6, 7, 8]}
    )
    write_csv(frame, tmp_path / "c.csv")
    back = pd.read_csv(tmp_path / "c.csv", keep_default_na=False)
    assert list(back.columns) == ["group", "'@name"]
    assert back["group"].tolist() == ["'" + formula, "'+1", "'-x", "'@SUM(A1)", "'\tA", "'\rB", "plain", "a=b"]
    assert back["'@name"].tolist() == [-1.5, 2, 3, 4, 5, 6, 7, 8]
    assert frame["group"].iloc[0] == formula, "the caller's frame is not changed"


def test_every_csv_the_pipeline_writes_goes_through_write_csv():
    """The neutralisation holds only if no stage writes a CSV by itself."""
    root = Path(__file__).resolve().parents[2] / "pipeline"
    writers = [p for p in root.rglob("*.py") if "to_csv(" in p.read_text() or "csv.writer" in p.read_text()]
    assert [p.relative_to(root).as_posix() for p in writers] == ["core/io.py"]


# ---- reads --------------------------------------------------------------------------------------------------


def _message(fn, *args) -> str:
    with pytest.raises(PipelineError) as info:
        fn(*args)
    return str(info.value)


def test_read_dataset_missing_file(tmp_path):
    path = tmp_path / "nope.csv"
    message = _message(read_dataset, path)
    assert str(path) in message and "data.path" in message


@pytest.mark.parametrize("name", ["empty.csv", "empty.csv.gz"])
def test_read_dataset_empty_file(tmp_path, name):
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wb"):
            pass
    else:
        path.write_bytes(b"")
    message = _message(read_dataset, path)
    assert str(path) in message and "empty" in message


def test_read_dataset_header_only(tmp_path):
    path = tmp_path / "header.csv"
    path.write_text("a,b,c\n")
    message = _message(read_dataset, path)
    assert str(path) in message and "no rows" in message


def test_read_dataset_header_only_parquet(tmp_path):
    path = tmp_path / "h.parquet"
    pd.DataFrame({"a": pd.Series([], dtype=float)}).to_parquet(path)
    assert str(path) in _message(read_dataset, path)


@pytest.mark.parametrize(
    "name, content", [("bad.parquet", b"not parquet at all"), ("bad.csv.gz", b"not gzip"), ("data.xlsx", b"whatever")]
)
def test_read_dataset_unreadable_or_unsupported(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    assert str(path) in _message(read_dataset, path)


@pytest.mark.parametrize("name", ["d.csv", "d.csv.gz", "d.parquet"])
def test_read_dataset_formats_roundtrip(tmp_path, name):
    df = pd.DataFrame({"a": [1, 2, 3], "b": [0.5, np.nan, 1.5]})
    path = tmp_path / name
    if name.endswith(".parquet"):
        df.to_parquet(path)
    else:
        df.to_csv(path, index=False)
    pd.testing.assert_frame_equal(read_dataset(path), df)


def test_read_json_and_parquet_name_the_stage(tmp_path):
    message = _message(read_json, tmp_path / "m.json", "train")
    assert "m.json" in message and "dvc repro train" in message
    (tmp_path / "bad.json").write_text("{oops")
    assert "bad.json" in _message(read_json, tmp_path / "bad.json", "train")
    message = _message(read_parquet, Path(tmp_path / "x.parquet"), "split")
    assert "x.parquet" in message and "dvc repro split" in message


@pytest.mark.parametrize("gzipped", [False, True])
def test_a_csv_cut_short_is_refused_not_filled_with_missing_values(tmp_path, gzipped):
    """An interrupted copy ends in a row with fewer fields than the header; pandas would fill the rest with NaN (and
    validate would quarantine the row as unlabelled). The last line is checked against the header."""
    text = "a,b,c,y\n1,2,3,0\n4,5,6,1\n7,8"
    path = tmp_path / ("cut.csv.gz" if gzipped else "cut.csv")
    path.write_bytes(gzip.compress(text.encode()) if gzipped else text.encode())
    with pytest.raises(PipelineError, match=r"looks truncated: its last line has 2 of the header's 4 fields"):
        read_dataset(path)
    whole = tmp_path / "whole.csv"
    whole.write_text(text + ",9,1\n\n")  # complete, with a trailing blank line
    assert read_dataset(whole).shape == (3, 4)
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('a,b\n1,"two\nlines"\n')  # a quoted field spanning lines: not judged from its last line
    assert read_dataset(quoted).shape == (1, 2)


@pytest.mark.parametrize("gzipped", [False, True])
def test_a_wide_file_whose_last_line_is_longer_than_the_tail_read_is_whole(tmp_path, gzipped):
    """100 rows of 5,000 columns: a row is ~90 KB, more than the 64 KB read from the end, and the file was refused as
    "truncated: its last line has 3339 of the header's 5001 fields". The last line is now read whole; one cut short is
    still refused."""
    header = ",".join(f"g{j}" for j in range(5000))
    row = ",".join(["1.23456789012345"] * 5000)
    text = "\n".join([header, *[row] * 3]) + "\n"
    path = tmp_path / ("wide.csv.gz" if gzipped else "wide.csv")
    path.write_bytes(gzip.compress(text.encode()) if gzipped else text.encode())
    assert read_dataset(path).shape == (3, 5000)
    cut = text[: -(len(row) // 2 + 2)]  # the newline and the last row from within its 2,501st field
    path.write_bytes(gzip.compress(cut.encode()) if gzipped else cut.encode())
    with pytest.raises(PipelineError, match=r"looks truncated: its last line has 2500 of the header's 5000 fields"):
        read_dataset(path)


def test_a_file_outside_the_repository_is_refused_unread(tmp_path, tmp_path_factory):
    """A data.path (or a symlink) that leads outside the repository is named as such, its content never read."""
    secret = tmp_path_factory.mktemp("elsewhere") / "passwd.csv"
    secret.write_text("root:x:0:0,root\n1,2\n")
    (tmp_path / "link.csv").symlink_to(secret)
    for path in (secret, tmp_path / "link.csv"):
        with pytest.raises(PipelineError) as info:
            read_dataset(path)
        assert "outside the repository" in str(info.value) and "root:x" not in str(info.value)
