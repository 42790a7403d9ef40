"""The store's checks that need no pipeline run (pipeline/tracking/store.py, naming.py): a damaged mlflow.db, the
registered versions' files and their copy in mlflow-backups/, names beyond MLflow's limits. On the previous main a
mlflow.db whose header was overwritten got MLflow's "file is not a database" blamed on the store's reachability with
no word of the copy that restores it, `rm -rf mlartifacts` went unnoticed (and mlflow-backups/ held the database
only), and a 5,000-character experiment name reached MLflow and was reported as a store that cannot be used."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pipeline.core.errors import PipelineError
from pipeline.tracking import store
from pipeline.tracking.naming import names


def a_store(root: Path) -> Path:
    """A sqlite file with MLflow's runs table holding one run, and one copy of it in mlflow-backups/."""
    db = root / "mlflow.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE runs (run_uuid TEXT)")
        connection.execute("INSERT INTO runs VALUES ('r1')")
    connection.close()
    assert store.backup(root, db) is not None
    return db


def recorded(runs: list[str]) -> dict:
    return {"current": store.DEFAULT, "stores": {store.DEFAULT: {"runs": runs, "versions": {}}}}


@pytest.mark.parametrize("ledger", [recorded(["r1"]), recorded([])], ids=["recorded", "nothing recorded yet"])
def test_a_damaged_header_names_the_file_and_the_copy_that_restores_it(tmp_path, ledger):
    db = a_store(tmp_path)
    with open(db, "r+b") as stream:
        stream.write(b"\0" * 100)  # SQLite's header
    with pytest.raises(PipelineError) as refused:
        store.check_file_kept(ledger, store.DEFAULT, db, tmp_path)
    line = str(refused.value)
    (copy,) = store.backups(tmp_path, db)
    assert "\n" not in line and str(db) in line and "damaged" in line
    assert f"`cp {copy.relative_to(tmp_path)} mlflow.db`" in line


def test_a_damaged_file_without_a_copy_says_there_is_none(tmp_path):
    db = tmp_path / "mlflow.db"
    db.write_bytes(b"not a database at all" * 100)
    with pytest.raises(PipelineError, match=r"there is none in mlflow-backups/"):
        store.check_file_kept(recorded(["r1"]), store.DEFAULT, db, tmp_path)


def test_a_locked_store_is_left_to_mlflows_own_message(tmp_path):
    """Locked is not damaged: the store's 'database is locked' line (tests/e2e/test_track_resume.py) stays."""
    db = a_store(tmp_path)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        store.check_file_kept(recorded(["r1"]), store.DEFAULT, db, tmp_path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


class Version:
    def __init__(self, name: str, version: int, where: Path, tags: dict | None = None):
        self.name, self.version, self.where, self.tags = name, str(version), where, tags or {}


class Page(list):
    token = None


class Registry:
    """What check_artifacts asks of an MlflowClient: the versions, page by page, and where each one's files are."""

    def __init__(self, versions: list[Version]):
        self.versions = versions

    def search_model_versions(self, page_token=None):
        return Page(self.versions)

    def get_model_version_download_uri(self, name, version):
        return next(v.where.as_uri() for v in self.versions if (v.name, v.version) == (name, version))


def model_files(root: Path, *parts: str) -> Path:
    where = root.joinpath("mlartifacts", *parts, "artifacts")
    where.mkdir(parents=True)
    (where / "MLmodel").write_text("flavors: {}\n")
    return where


def test_every_registered_versions_files_are_copied_and_their_loss_is_refused_with_the_copy(tmp_path):
    db = a_store(tmp_path)
    client = Registry([Version("m", 1, model_files(tmp_path, "1", "models", "m-a")),
                       Version("m", 2, model_files(tmp_path, "1", "models", "m-b"))])  # fmt: skip
    store.check_artifacts(client, tmp_path, db)  # all present
    store.backup(root=tmp_path, db=db)  # what track does before and after it writes
    assert (tmp_path / "mlflow-backups/mlartifacts/1/models/m-b/artifacts/MLmodel").is_file()
    for path in (tmp_path / "mlartifacts").rglob("*"):  # `rm -rf mlartifacts`, as a walk
        if path.is_file():
            path.unlink()
    with pytest.raises(PipelineError) as refused:
        store.check_artifacts(client, tmp_path, db)
    line = str(refused.value)
    assert "m version(s) 1, 2" in line and "mlartifacts/1/models/m-a/artifacts/MLmodel" in line, line
    assert "nothing was written" in line and "`cp -R mlflow-backups/mlartifacts/. mlartifacts`" in line, line


def test_files_lost_with_no_copy_are_said_plainly_and_can_be_accepted(tmp_path):
    db = a_store(tmp_path)
    version = Version("m", 1, model_files(tmp_path, "1", "models", "m-a"))
    (version.where / "MLmodel").unlink()  # lost before any copy was taken
    with pytest.raises(PipelineError) as refused:
        store.check_artifacts(Registry([version]), tmp_path, db)
    line = str(refused.value)
    assert "m version(s) 1" in line and "mlflow-backups/ holds no copy of them" in line, line
    assert "python -m pipeline.tracking.store accept-lost" in line, line
    version.tags[store.LOST] = "lost"  # what accept-lost tags
    store.check_artifacts(Registry([version]), tmp_path, db)


def test_a_server_stores_artifacts_are_its_operators(tmp_path):
    store.check_artifacts(Registry([Version("m", 1, tmp_path / "nowhere")]), tmp_path, None)


@pytest.mark.parametrize(
    ("tracking", "key"),
    [
        ({"experiment": "e" * 5000, "registered_model": None}, "tracking.experiment"),
        ({"experiment": "e" * 493, "registered_model": None}, "tracking.experiment"),  # its monitor's: 501
        ({"experiment": None, "registered_model": "m" * 257}, "tracking.registered_model"),
        ({"experiment": None, "registered_model": "team/model"}, "tracking.registered_model"),
    ],
)
def test_a_name_mlflow_would_refuse_names_the_params_key_and_the_limit(tracking, key):
    params = {"data": {"path": "data/raw/randhie.csv.gz", "target": "binexp"}, "tracking": tracking}
    with pytest.raises(PipelineError) as refused:
        names(params)
    line = str(refused.value)
    assert line.startswith(f"params.yaml {key}") and "\n" not in line and len(line) < 300, line
    assert "500" in line or "256" in line or "'/' or ':'" in line, line


def test_names_within_the_limits_pass():
    params = {"data": {"path": "data/raw/randhie.csv.gz", "target": "binexp"}}
    assert names({**params, "tracking": {"experiment": "e" * 492, "registered_model": "m" * 256}}) == (
        "e" * 492,
        "m" * 256,
    )
