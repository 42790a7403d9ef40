"""data.path as a directory of parts (pipeline/core/partitions.py): read as one table in memory, or on the dask backend
checked, cleaned and split part by part on a 2-worker LocalCluster, with the same outputs as the in-memory path on the
same rows: the corpus files cut into uneven parts (Parquet and CSV), and the default data's sample with rows repeated
across parts, a whole-number column with gaps in one part only, and -0.0 beside 0.0."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, run_stages, sample_frame
from partitioned_data import make_parts_project, sample_with_traps, write_parts
from real_data import BY_NAME

from pipeline.core.data_files import DataSource, dataset_md5, read_dataset
from pipeline.core.errors import PipelineError
from pipeline.core.io import read_parquet
from pipeline.core.partitions import Parts, rows_by_part, table_head

DATA_STAGES = ["validate", "clean", "split"]
TABLES = [
    "data/interim/validated.parquet",
    "data/interim/quarantine.parquet",
    "data/interim/clean.parquet",
    "data/processed/train.parquet",
    "data/processed/test.parquet",
    "data/processed/folds.parquet",
]
REPORTS = ["reports/validation.json", "reports/cleaning.json", "reports/split.json", "data/processed/target.json"]


@pytest.fixture(scope="module")
def cluster_client():
    """One 2-worker LocalCluster for the module (a stage opens its own; here they share one to save the starts)."""
    from pipeline.core.compute import dask_client

    with dask_client({"backend": "dask", "n_workers": 2, "scheduler": None}) as client:
        yield client


@pytest.fixture
def shared_cluster(cluster_client, monkeypatch):
    @contextmanager
    def opened(cfg):
        yield cluster_client

    for stage in ("validate", "clean"):  # split's views need no cluster
        monkeypatch.setattr(f"pipeline.stages.{stage}.dask_client", opened)


def outputs(root: Path) -> tuple[dict, dict]:
    tables = {t: read_parquet(root / t, "test") for t in TABLES}
    reports = {r: json.loads((root / r).read_text()) for r in REPORTS}
    return tables, reports


def run_both(root: Path, monkeypatch) -> tuple[tuple, tuple]:
    """The data stages on the dask backend (part by part), then on the local backend (one table in memory)."""
    params = yaml.safe_load((root / "params.yaml").read_text())
    for backend in ("dask", "local"):
        params["compute"]["backend"] = backend
        (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        run_stages(root, monkeypatch, DATA_STAGES)
        if backend == "dask":
            assert all((root / t).is_dir() for t in TABLES[:5]), "the partitioned path writes parts (and views)"
            partitioned = outputs(root)
    return partitioned, outputs(root)


def assert_same(partitioned, in_memory) -> None:
    for name, table in in_memory[0].items():
        pd.testing.assert_frame_equal(partitioned[0][name], table, obj=name)
    assert partitioned[1] == in_memory[1]


def test_sample_with_traps_partitioned_equals_in_memory(tmp_path, monkeypatch, shared_cluster):
    data = yaml.safe_load((REPO / "params.yaml").read_text())["data"]
    root = make_parts_project(tmp_path, sample_with_traps(), data)
    partitioned, in_memory = run_both(root, monkeypatch)
    assert_same(partitioned, in_memory)
    cleaning = in_memory[1]["reports/cleaning.json"]
    assert cleaning["duplicate_rows"] == {"rows": 2, "action": "removed", "setting": "auto"}
    assert in_memory[1]["reports/validation.json"]["rows_quarantined"] > 0  # fractional `black` values
    assert in_memory[0]["data/interim/clean.parquet"]["educdec"].dtype == np.float64


@pytest.mark.parametrize(("name", "fmt"), [("penguins", "csv"), ("titanic", "parquet"), ("grunfeld", "csv")])
def test_corpus_partitioned_equals_in_memory(tmp_path, monkeypatch, shared_cluster, name, fmt):
    """Missing values in features, a sensitive column and the target (penguins, CSV parts); only categorical features
    with repeated rows that are distinct people (titanic: counted, kept); a small grouped regression (grunfeld)."""
    dataset = BY_NAME[name]
    root = make_parts_project(tmp_path, dataset.frame(), dataset.data_section("unused"), fmt)
    partitioned, in_memory = run_both(root, monkeypatch)
    assert_same(partitioned, in_memory)


def test_directory_reads_as_the_concatenated_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = sample_with_traps()
    write_parts(frame, Path("parts"))
    read = read_dataset("parts", ["plan"])
    whole = frame.assign(plan=frame["plan"].astype(str).astype(object))
    pd.testing.assert_frame_equal(read, whole)
    parts = Parts.of(sorted(Path("parts").iterdir()), ["plan"])
    assert parts.dtypes.to_dict() == read.dtypes.to_dict()  # the parts typed as the whole table
    assert parts.read(1).index[0] == parts.rows[0]  # rows keep their positions in the table
    assert len(parts) == len(frame)


def test_table_head_reads_the_first_rows_of_a_file_or_of_parts(tmp_path):
    """What the track stage describes a table by: its first rows, typed as the whole table, and its row count."""
    frame = sample_with_traps().reset_index(drop=True)
    frame.to_parquet(tmp_path / "one.parquet", index=False)
    write_parts(frame, tmp_path / "parts", cuts=(0.001, 0.5))  # a first part of a few rows: its types are the table's
    for path in (tmp_path / "one.parquet", tmp_path / "parts"):
        head, n_rows = table_head(path, "split", 3)
        assert n_rows == len(frame)
        pd.testing.assert_frame_equal(head, read_parquet(path, "split").head(3))
        head, _ = table_head(path, "split", 2, columns=["plan"])
        assert head.columns.tolist() == ["plan"] and len(head) == 2
    with pytest.raises(PipelineError, match="written by the split stage"):
        table_head(tmp_path / "missing.parquet", "split", 3)


def test_rows_by_part():
    parts = Parts((Path("a"), Path("b"), Path("c")), (3, 0, 4), pd.Series(dtype=object))
    shares = rows_by_part(np.array([0, 2, 3, 6]), parts)
    assert [s.tolist() for s in shares] == [[0, 2], [], [3, 6]]


def test_messages_name_the_part_and_its_row(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = write_parts(sample_frame().head(50), Path("parts"), "csv")
    source = DataSource.of("parts", files, [10, 17, 23])
    assert source.row(12) == "data row 3 of part part-1.csv, line 4 of the part"
    assert DataSource.of("x.parquet").row(4) == "data row 5"
    assert DataSource.of("x.csv").row(4) == "data row 5, line 6 of the file"


def test_bad_directories_get_one_clear_message(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = sample_frame().head(40)
    files = write_parts(frame, Path("parts"))
    frame.drop(columns=["plan"]).to_parquet(files[2], index=False)
    with pytest.raises(PipelineError, match=r"part parts/part-2.parquet: its columns differ .*missing \['plan'\]"):
        read_dataset("parts")
    frame.to_csv("parts/part-3.csv", index=False)
    with pytest.raises(PipelineError, match="holds both Parquet and CSV files"):
        read_dataset("parts")
    Path("empty").mkdir()
    with pytest.raises(PipelineError, match="a directory without .parquet or .csv files"):
        read_dataset("empty")
    csv = write_parts(frame, Path("csv_parts"), "csv")
    csv[1].write_text(csv[1].read_text().rstrip("\n").rsplit(",", 3)[0] + "\n")  # cut short
    with pytest.raises(PipelineError, match="csv_parts/part-1.csv looks truncated"):
        read_dataset("csv_parts")


def test_directory_md5_follows_its_parts(tmp_path):
    files = write_parts(sample_frame().head(40), tmp_path / "parts")
    before = dataset_md5(tmp_path / "parts")
    assert before == dataset_md5(tmp_path / "parts")
    sample_frame().head(41).to_parquet(files[1], index=False)
    assert dataset_md5(tmp_path / "parts") != before


def test_unreachable_scheduler_stops_validate_with_one_message(tmp_path, monkeypatch):
    data = yaml.safe_load((REPO / "params.yaml").read_text())["data"]
    root = make_parts_project(tmp_path, sample_frame().head(200), data)
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["compute"].update(backend="dask", scheduler="tcp://127.0.0.1:9")
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    with pytest.raises(PipelineError, match=r"compute.scheduler 'tcp://127.0.0.1:9' cannot be reached"):
        run_stages(root, monkeypatch, ["validate"])
    assert not (root / "data/interim/validated.parquet").exists()


def _cancer_block(k: int, n_blocks: int):
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    rows = np.array_split(np.arange(len(y)), n_blocks)[k]
    return X[rows], y[rows], None


def test_models_fit_on_blocks_held_by_the_workers(cluster_client):
    """Each worker loads its blocks; Newton's steps and the Gram matrix come back as sums (pipeline ClusterBlocks), the
    additive model's inputs as the blocks' bin codes: the same model as from the blocks in this process (the same sums
    in the same order; within 1e-12, as the test process loads numpy before pipeline pins its CPU code paths, and the
    workers after; the additive model's tables to the bit), and a chain of feature steps (each a transform recorded
    and applied on every later pass) fitted as in this process."""
    from mllib.base import RowBlocks
    from mllib.linear import LogisticRegression
    from mllib.regression import Ridge
    from pipeline.core.partitions import ClusterBlocks

    held = ClusterBlocks.load(cluster_client, _cancer_block, list(range(4)), n_blocks=4)
    here = RowBlocks(_cancer_block(k, 4) for k in range(4))
    for model in (LogisticRegression(lam=0.3), LogisticRegression(lam=0.3, penalty="l1"), Ridge(lam=2.0)):
        on_cluster = model.fit_blocks(held).coef_
        in_process = type(model)(**model.get_params()).fit_blocks(here).coef_
        np.testing.assert_allclose(on_cluster, in_process, rtol=0, atol=1e-12)
    # the additive model: the blocks binned on the workers, the codes gathered here, then the same boosting
    from mllib.additive import ExplainableBoostingClassifier

    settings = {"outer_bags": 2, "interactions": 3}
    on_workers = ExplainableBoostingClassifier(**settings).fit_blocks(held)
    np.testing.assert_array_equal(
        on_workers.term_scores_, ExplainableBoostingClassifier(**settings).fit_blocks(here).term_scores_
    )
    from mllib.base import Pipeline
    from mllib.preprocessing import SimpleImputer, StandardScaler

    chain = Pipeline([("impute", SimpleImputer()), ("scale", StandardScaler()), ("model", Ridge(lam=1.0))])
    on_cluster = chain.fit_blocks(held).steps[-1][1].coef_
    in_process = Pipeline([("impute", SimpleImputer()), ("scale", StandardScaler()), ("model", Ridge(lam=1.0))])
    np.testing.assert_allclose(on_cluster, in_process.fit_blocks(here).steps[-1][1].coef_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_row_messages_name_the_part_on_both_paths(tmp_path, monkeypatch, shared_cluster, backend):
    """Read as one table (local) or part by part (dask), a row's message names its part and line."""
    data = yaml.safe_load((REPO / "params.yaml").read_text())["data"]
    frame = sample_frame().head(300)
    frame.loc[250, "black"] = 0.5  # a fractional 0/1 value in the third part (rows 165-299)
    root = make_parts_project(tmp_path, frame, data, "csv")
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["validate"]["fractional_binary"] = "fail"
    params["compute"]["backend"] = backend
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    with pytest.raises(PipelineError, match=r"data row 86 of part part-2.csv, line 87 of the part"):
        run_stages(root, monkeypatch, ["validate"])


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_partitioned_validate_names_the_part_whose_columns_differ(tmp_path, monkeypatch, shared_cluster, fmt):
    data = yaml.safe_load((REPO / "params.yaml").read_text())["data"]
    root = make_parts_project(tmp_path, sample_frame().head(300), data, fmt)
    part = root / f"data/raw/parts/part-1.{fmt}"
    frame = pd.read_parquet(part) if fmt == "parquet" else pd.read_csv(part)
    frame = frame.drop(columns=["xage"])
    frame.to_parquet(part, index=False) if fmt == "parquet" else frame.to_csv(part, index=False)
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["compute"]["backend"] = "dask"
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    with pytest.raises(PipelineError, match=rf"^data part data/raw/parts/part-1.{fmt}: its columns differ .*'xage'"):
        run_stages(root, monkeypatch, ["validate"])
    assert not (root / "data/interim/validated.parquet").exists()


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_an_empty_part_adds_no_row_and_changes_no_type(tmp_path, monkeypatch, shared_cluster, fmt):
    """Spark writes parts without rows (a header only): read as one table or part by part, they add nothing."""
    data = yaml.safe_load((REPO / "params.yaml").read_text())["data"]
    root = make_parts_project(tmp_path, sample_with_traps(), data, fmt)
    empty = root / f"data/raw/parts/part-1b.{fmt}"  # between part-1 and part-2
    header = sample_with_traps().head(0)
    header.to_parquet(empty, index=False) if fmt == "parquet" else header.to_csv(empty, index=False)
    partitioned, in_memory = run_both(root, monkeypatch)
    assert_same(partitioned, in_memory)
    assert in_memory[0]["data/interim/validated.parquet"]["xage"].dtype == np.float64
    assert in_memory[1]["reports/validation.json"]["rows_in"] == len(sample_with_traps())


def test_every_part_empty_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("parts").mkdir()
    sample_frame().head(0).to_csv("parts/part-0.csv", index=False)
    with pytest.raises(PipelineError, match="every part of data.path parts is empty"):
        read_dataset("parts")
