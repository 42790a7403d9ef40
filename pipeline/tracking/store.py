"""The MLflow store is never silently replaced. MLflow opens an emptied or deleted sqlite file as a new store, and a
mistyped tracking URI as a new server's history: the next run would be registered as version 1 and compared with
nothing. So the track stage keeps, in the workspace, its own record of what it wrote (mlflow-ledger.json: per store,
the runs and the registered versions) and refuses to write to a store that no longer holds them, or to a store other
than the one the last run used, with one line naming the file and the way back. Before and after each write it keeps
a consistent copy of a sqlite store (SQLite's online backup API, the last KEPT copies in mlflow-backups/), which the
way back restores. Both are git-ignored: they describe this machine's store, as the store itself does.

To record into another store on purpose: `python -m pipeline.tracking.store use` (the store the next run would use:
MLFLOW_TRACKING_URI, else params.yaml tracking.uri, else mlflow.db). A copied or moved repository's store pointed at
its own artifacts without a run: `python -m pipeline.tracking.store relocate`."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote

from ..core.errors import PipelineError

LEDGER = "mlflow-ledger.json"
BACKUPS = "mlflow-backups"
KEPT = 5  # sqlite copies kept: the last two runs' before and after, and one more
RUNS_CHECKED = 10  # a server's most recent recorded runs looked up one by one (a sqlite store: all, in one query)
DEFAULT = "default"  # the repository's own mlflow.db, wherever the repository sits (a copy keeps its history)


def identity(uri: str, default_store: bool) -> str:
    return DEFAULT if default_store else uri


def sqlite_file(uri: str) -> Path | None:
    """The file of a sqlite:/// URI, or None for any other store."""
    if not uri.startswith("sqlite:///"):  # sqlite:////abs/path or sqlite:///relative/path (SQLAlchemy's form)
        return None
    return Path(unquote(uri.removeprefix("sqlite:///").split("?")[0])).absolute()


@contextmanager
def ledger_of(root: Path):
    """The ledger of the repository at `root`, held under an exclusive lock while the block runs (two queued
    experiments tracking at once take turns), written back atomically when the block ends without error."""
    path = root / LEDGER
    with open(root / f".{LEDGER}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            ledger = json.loads(path.read_text()) if path.exists() else {"current": None, "stores": {}}
            ledger["stores"], ledger["current"]
        except (ValueError, KeyError, TypeError):
            raise PipelineError(
                f"track: {path} is not the ledger track writes (damaged); restore it from a copy, or remove it to "
                "start a new record of what this workspace wrote (the store's own history stays as it is)"
            ) from None
        yield ledger
        tmp = path.with_name(f".{LEDGER}.tmp")
        tmp.write_text(json.dumps(ledger, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, path)


def check_same_store(ledger: dict, store: str, shown: str) -> None:
    """Refuse a store other than the one the last run recorded to."""
    last = ledger["current"]
    if last is not None and last != store:
        raise PipelineError(
            f"track: this run would record to {shown}, but this workspace's runs so far were recorded to "
            f"{_shown(last)} ({LEDGER}); nothing was written. Set MLFLOW_TRACKING_URI / params.yaml tracking.uri "
            f"back, or, to record to {shown} from now on, run `python -m pipeline.tracking.store use`"
        )


def check_file_kept(ledger: dict, store: str, db: Path | None, root: Path) -> None:
    """Before MLflow opens a sqlite store (it would create its tables in an emptied file): refuse a missing, empty
    or foreign file where the ledger says runs were recorded."""
    recorded = ledger["stores"].get(store)
    if db is None or not recorded or not recorded["runs"]:
        return
    if not db.exists() or db.stat().st_size == 0:
        _refuse(recorded, db, root, "is missing" if not db.exists() else "is empty")
    try:
        with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as connection:
            present = {r[0] for r in connection.execute("SELECT run_uuid FROM runs")}
    except sqlite3.DatabaseError:
        return  # not readable as a store: MLflow's own error says so (a damaged file, a locked store)
    lost = [r for r in recorded["runs"] if r not in present]
    if lost:
        _refuse(recorded, db, root, f"has lost {len(lost)} of the {len(recorded['runs'])} runs track recorded in it")


def check_holds(ledger: dict, store: str, client, shown: str, db: Path | None, root: Path) -> None:
    """Refuse a store that no longer holds the registered versions (and, on a server, the latest runs) the ledger
    lists: emptied, recreated or replaced."""
    recorded = ledger["stores"].get(store)
    if not recorded:
        return
    for name, versions in sorted(recorded["versions"].items()):
        present = {str(v.version) for v in client.search_model_versions(f"name = '{name}'")}
        lost = sorted(set(versions) - present, key=int)
        if lost:
            _refuse(recorded, db, root, f"has lost version(s) {', '.join(lost)} of {name}", shown)
    if db is None:
        for run_id in recorded["runs"][-RUNS_CHECKED:]:
            try:
                client.get_run(run_id)
            except Exception:
                _refuse(recorded, db, root, f"has lost run {run_id}", shown)


def _refuse(recorded: dict, db: Path | None, root: Path, what: str, shown: str | None = None) -> None:
    where = str(db) if db is not None else shown
    held = f"{len(recorded['runs'])} run(s) and " + (
        ", ".join(f"{len(v)} version(s) of {n}" for n, v in sorted(recorded["versions"].items())) or "no versions"
    )
    latest = backups(root, db)[-1:] if db is not None else []
    way_back = (
        f"restore the last copy: `cp {latest[0].relative_to(root)} {_relative(db, root)}`, then `dvc repro`"
        if latest and db is not None
        else "restore it from your own copy (or the server's backup), then `dvc repro`"
    )
    raise PipelineError(
        f"track: the MLflow store {where} {what} (the workspace recorded {held} in it, {LEDGER}); nothing was "
        f"written. To get them back, {way_back}; to start a new history on purpose, remove {LEDGER}"
    )


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _shown(store: str) -> str:
    return "mlflow.db" if store == DEFAULT else store


def backups(root: Path, db: Path | None) -> list[Path]:
    """The kept copies of the sqlite file `db`, oldest first."""
    if db is None:
        return []
    return sorted((root / BACKUPS).glob(f"{db.stem}-*.db"))


def backup(root: Path, db: Path | None) -> Path | None:
    """A consistent copy of the sqlite store (the online backup API: a copy of one committed state, even while
    another process writes), the oldest copies beyond KEPT removed. None when the store is not a sqlite file."""
    if db is None or not db.exists() or db.stat().st_size == 0:
        return None
    directory = root / BACKUPS
    directory.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    n = len(list(directory.glob(f"{db.stem}-{stamp}-*.db")))
    target = directory / f"{db.stem}-{stamp}-{n}.db"
    source, copy = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True), sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()
    for old in backups(root, db)[:-KEPT]:
        old.unlink()
    return target


def remember(ledger: dict, store: str, run_id: str, name: str, version) -> None:
    """Add what track wrote (or found recorded) to the ledger; the store becomes the current one."""
    recorded = ledger["stores"].setdefault(store, {"runs": [], "versions": {}})
    if run_id not in recorded["runs"]:
        recorded["runs"].append(run_id)
    versions = recorded["versions"].setdefault(name, [])
    if version is not None and str(version) not in versions:
        versions.append(str(version))
    ledger["current"] = store


def use() -> None:
    """`python -m pipeline.tracking.store use`: record to the store the next run would use from now on."""
    from ..core.config import load_params
    from .runs import repo_root, tracking_uri

    root = repo_root()
    uri = tracking_uri(load_params()["tracking"]["uri"])
    store = identity(uri, uri == f"sqlite:///{root / 'mlflow.db'}")
    with ledger_of(root) as ledger:
        before, ledger["current"] = ledger["current"], store
    print(f"the next `dvc repro` records to {_shown(store)}" + (f" (before: {_shown(before)})" if before else ""))


def relocate() -> None:
    """`python -m pipeline.tracking.store relocate`: a copied or moved repository's mlflow.db pointed at its own
    mlartifacts (the track stage does it on every run), so its models load and serve with the original gone."""
    from .runs import relocate_default_store, repo_root

    root = repo_root()
    old = relocate_default_store(root)
    print(f"mlflow.db now points at {root / 'mlartifacts'} (was {old})" if old else "mlflow.db already points here")


if __name__ == "__main__":
    import sys

    from ..core.errors import run_stage

    commands = {"use": use, "relocate": relocate}
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        sys.exit("usage: python -m pipeline.tracking.store use|relocate")
    run_stage(commands[sys.argv[1]])
