"""Files that would cost unbounded work or end in a traceback (issue 62, points 6 and 7): a data file whose header is
one huge line or names more columns than the pipeline takes is refused before it is parsed, and a stage's output cut
short or overwritten (a predictor, a table, a matrix, a record) is one line naming the file and the `dvc` commands
that restore it from DVC's cache or rebuild it."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import make_project

from mllib import io as mlio
from mllib.linear import LogisticRegression
from pipeline.core.data_files import MAX_COLUMNS, MAX_HEADER_BYTES, read_dataset
from pipeline.core.errors import PipelineError
from pipeline.core.io import read_estimators, read_json, read_matrix, read_parquet, read_predictor, write_matrix


@pytest.fixture
def in_scratch(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)  # read_dataset reads only files inside the working directory (the repository)
    return tmp_path


def refusal(read, *args) -> str:
    with pytest.raises(PipelineError) as info:
        read(*args)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message[:1000]
    return message


# ---- a header that is not one ---------------------------------------------------------------------------------


@pytest.mark.parametrize("gzipped", [False, True], ids=["csv", "csv.gz"])
def test_a_file_of_one_huge_line_is_refused_before_it_is_parsed(in_scratch, gzipped):
    """The issue: a 300 MB single-line file reached a MemoryError traceback at 7 GB. A first line longer than the
    header cap is refused naming the file and the cap (read: the cap's bytes, not the file)."""
    line = b"x" * (MAX_HEADER_BYTES + 10)  # one name of a megabyte: no delimiter to split it on
    name = "one_line.csv.gz" if gzipped else "one_line.csv"
    (in_scratch / name).write_bytes(gzip.compress(line) if gzipped else line)
    message = refusal(read_dataset, name)
    assert message.startswith(f"data file {name}: its first line (the header) is longer than the 1,048,576 bytes")


def test_a_file_with_more_columns_than_the_cap_is_refused(in_scratch):
    """The issue: a 100,000-column file ran validate silently past 580 s and 1 GB."""
    n = MAX_COLUMNS + 1
    header = ",".join(f"c{j}" for j in range(n))
    (in_scratch / "wide.csv").write_text(f"{header}\n{','.join(['1'] * n)}\n")
    message = refusal(read_dataset, "wide.csv")
    assert message.startswith(f"data file wide.csv has {n:,} columns, more than the {MAX_COLUMNS:,} the pipeline")
    pd.DataFrame({f"c{j}": [1.0] for j in range(n)}).to_parquet(in_scratch / "wide.parquet")
    assert f"has {n:,} columns" in refusal(read_dataset, "wide.parquet")


def test_a_file_at_the_column_cap_is_read(in_scratch):
    header = ",".join(f"c{j}" for j in range(MAX_COLUMNS))
    (in_scratch / "wide.csv").write_text(f"{header}\n{','.join(['1'] * MAX_COLUMNS)}\n")
    assert read_dataset("wide.csv").shape == (1, MAX_COLUMNS)


def test_a_header_with_a_quoted_line_break_is_read_whole(in_scratch):
    (in_scratch / "quoted.csv").write_text('a,"b\nsecond line",c\n1,2,3\n')
    assert list(read_dataset("quoted.csv").columns) == ["a", "b\nsecond line", "c"]


# ---- a stage's output cut short -------------------------------------------------------------------------------


def cut_short(path: Path) -> None:
    content = path.read_bytes()
    path.write_bytes(content[: len(content) // 2])


def assert_names_the_recovery(message: str, path: Path, stage: str) -> None:
    assert message.startswith(f"{path} cannot be read ("), message
    assert f"`dvc checkout --force {path}`" in message and f"`dvc repro --force {stage}`" in message, message


def assert_names_the_model_recovery(message: str, model: Path, stage: str) -> None:
    """An mllib model is two files: both named, both restored."""
    assert message.startswith(f"{model}.json + .npz cannot be read ("), message
    assert f"`dvc checkout --force {model}.json {model}.npz`" in message, message
    assert f"`dvc repro --force {stage}`" in message, message


@pytest.fixture
def model_files(in_scratch) -> Path:
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), np.r_[np.zeros(20), np.ones(20)]
    mlio.save(LogisticRegression().fit(X, y), in_scratch / "models/predictor")
    return in_scratch / "models/predictor"


@pytest.mark.parametrize("part", [".npz", ".json"])
def test_a_truncated_predictor_names_the_file_and_the_rebuild(model_files, part):
    """The issue: a truncated predictor.npz read by evaluate was a traceback (zipfile.BadZipFile)."""
    cut_short(model_files.with_suffix(part))
    message = refusal(read_predictor, Path("models/predictor"))
    assert_names_the_model_recovery(message, Path("models/predictor"), "calibrate")


def test_a_truncated_fold_model_names_the_stage_that_writes_it(model_files):
    folds = model_files.parent / "fold_models"
    folds.mkdir()
    for suffix in (".json", ".npz"):
        shutil.copy(model_files.with_suffix(suffix), folds / f"fold_0{suffix}")
    cut_short(folds / "fold_0.npz")
    message = refusal(read_estimators, Path("models/fold_models"), "train")
    assert_names_the_model_recovery(message, Path("models/fold_models/fold_0"), "train")


@pytest.mark.parametrize("cut", ["half", "footer", "middle"])
def test_a_damaged_parquet_output_names_the_file_and_the_rebuild(in_scratch, cut):
    path = Path("data/processed/train.parquet")
    path.parent.mkdir(parents=True)
    pd.DataFrame({"a": np.arange(2000.0), "b": ["x", "y"] * 1000}).to_parquet(path, compression="snappy")
    content = bytearray(path.read_bytes())
    if cut == "half":
        content = content[: len(content) // 2]
    elif cut == "footer":
        content = content[:-3]
    else:  # the bytes of the first column's data overwritten: the footer intact, the pages not
        content[200:600] = b"\x00" * 400
    path.write_bytes(bytes(content))
    assert_names_the_recovery(refusal(read_parquet, path, "split"), path, "split")


def test_a_truncated_matrix_and_record_name_the_file_and_the_rebuild(in_scratch):
    matrix, record = Path("data/features/final_train.npy"), Path("reports/split.json")
    write_matrix(np.ones((50, 4)), matrix)
    record.parent.mkdir()
    record.write_text(json.dumps({"a": list(range(100))}))
    for path in (matrix, record):
        cut_short(path)
    for mmap in (False, True):
        assert_names_the_recovery(refusal(read_matrix, matrix, "features", mmap), matrix, "features")
    assert_names_the_recovery(refusal(read_json, record, "split"), record, "split")


@pytest.fixture(scope="module")
def split_project(tmp_path_factory, sample_csv) -> Path:
    root = make_project(tmp_path_factory.mktemp("damaged"), sample_csv)
    for stage in ("validate", "clean", "split"):
        done = subprocess.run([sys.executable, "-m", f"pipeline.stages.{stage}"], cwd=root, capture_output=True)
        assert done.returncode == 0, done.stderr
    return root


def test_the_features_stage_on_a_truncated_train_parquet_is_one_line(split_project):
    """The issue: a truncated train.parquet read by features was a traceback."""
    cut_short(split_project / "data/processed/train.parquet")
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.stages.features"], cwd=split_project, capture_output=True, text=True
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    message = done.stderr.strip()
    assert len(message.splitlines()) == 1 and message.startswith("error: data/processed/train.parquet cannot be read")
    assert "`dvc repro --force split`" in message, message
