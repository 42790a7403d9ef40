"""The MLflow store is never silently replaced. MLflow opens an emptied or deleted sqlite file as a new store, and a
mistyped tracking URI as a new server's history: the next run would be registered as version 1 and compared with
nothing. So the track stage keeps, in the workspace, its own record of what it wrote (mlflow-ledger.json: per store,
the runs and the registered versions) and refuses to write to a store that no longer holds them, or to a store other
than the one the last run used, with one line naming the file and the way back. Before and after each write it keeps
a consistent copy of a sqlite store (SQLite's online backup API, the last KEPT copies in mlflow-backups/), which the
way back restores, and copies what is new in mlartifacts/ to mlflow-backups/mlartifacts/: the artifact store is part
of the store, and a registered version whose model files are gone (`rm -rf mlartifacts`) no longer loads. So before it
writes, track (and the monitor) also refuses a store whose registered versions lost their files, naming the copy that
restores them or saying that none does. Both are git-ignored: they describe this machine's store, as the store itself
does. `opened` is the one way in for both commands: the checks, and the default store pointed at this repository's
own mlartifacts.

To record into another store on purpose: `python -m pipeline.tracking.store use` (the store the next run would use:
MLFLOW_TRACKING_URI, else params.yaml tracking.uri, else mlflow.db). A copied or moved repository's store pointed at
its own artifacts without a run: `python -m pipeline.tracking.store relocate`. Registered versions whose files are lost
with no copy, kept as they are (they will not load) so that track goes on: `python -m pipeline.tracking.store
accept-lost`."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from ..core.errors import PipelineError
from ..core.json_types import JSON

if TYPE_CHECKING:
    from mlflow import MlflowClient
    from mlflow.entities.model_registry import ModelVersion

LEDGER = "mlflow-ledger.json"
BACKUPS = "mlflow-backups"
KEPT = 5  # sqlite copies kept: the last two runs' before and after, and one more
RUNS_CHECKED = 10  # a server's most recent recorded runs looked up one by one (a sqlite store: all, in one query)
DEFAULT = "default"  # the repository's own mlflow.db, wherever the repository sits (a copy keeps its history)
ARTIFACTS = (
    "mlartifacts"  # the default store's artifact root, <repo root>/mlartifacts; its copy: mlflow-backups/mlartifacts
)
LOST = "store.artifacts"  # the version tag of a version whose files were lost and accepted as lost (accept-lost)
DAMAGED = ("SQLITE_NOTADB", "SQLITE_CORRUPT")  # a file SQLite cannot read as a database (not: locked, busy, read-only)


def identity(uri: str, default_store: bool) -> str:
    return DEFAULT if default_store else uri


def sqlite_file(uri: str) -> Path | None:
    """The file of a sqlite:/// URI, or None for any other store."""
    if not uri.startswith("sqlite:///"):  # sqlite:////abs/path or sqlite:///relative/path (SQLAlchemy's form)
        return None
    return Path(unquote(uri.removeprefix("sqlite:///").split("?")[0])).absolute()


@contextmanager
def ledger_of(root: Path) -> Iterator[JSON]:
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


@dataclass(frozen=True)
class Opened:
    """The store a command writes to, checked (opened)."""

    client: MlflowClient  # of the store
    uri: str
    identity: str  # the ledger's name of the store (DEFAULT for <root>/mlflow.db)
    db: Path | None  # its sqlite file, or None (a server)
    default: bool  # the repository's own mlflow.db


@contextmanager
def opened(root: Path, uri: str, who: str) -> Iterator[tuple[JSON, Opened]]:
    """The store at `uri` as track and the monitor write to it, the one way in for both: the ledger held (written
    back when the block ends without error); the store the last run used, its file a readable database still holding
    what the workspace recorded; the repository's own mlflow.db pointed at its own mlartifacts (a copied repository's
    locations name the original's: a run would write its files there); every registered version's files present.
    `who` begins the refusals ("track", "monitor")."""
    import mlflow
    from mlflow import MlflowClient

    default = uri == f"sqlite:///{root / 'mlflow.db'}"
    db, store_id = sqlite_file(uri), identity(uri, default)
    with ledger_of(root) as ledger:
        check_same_store(ledger, store_id, uri, who)
        check_file_kept(ledger, store_id, db, root, who)
        try:  # any failure to reach or use the store (down, locked, read-only): one line
            moved_from = relocate_default_store(root) if default else None
            if moved_from:
                print(f"{who}: the store was created in {moved_from}; its artifact locations now point into {root}")
            mlflow.set_tracking_uri(uri)
            client = MlflowClient()
            check_holds(ledger, store_id, client, uri, db, root, who)
            check_artifacts(client, root, db, who)
        except PipelineError:
            raise
        except Exception as exc:
            raise unusable(who, uri, exc) from None
        yield ledger, Opened(client=client, uri=uri, identity=store_id, db=db, default=default)


def unusable(who: str, uri: str, exc: Exception) -> PipelineError:
    from .runs import one_line

    return PipelineError(
        f"{who}: cannot use the MLflow tracking store {uri} ({one_line(exc)}). Start the server, release the store "
        "(another process may hold mlflow.db) or fix MLFLOW_TRACKING_URI / params.yaml tracking.uri; nothing was "
        "written, and the outputs of the other stages are unaffected"
    )


def check_same_store(ledger: JSON, store: str, shown: str, who: str = "track") -> None:
    """Refuse a store other than the one the last run recorded to."""
    last = ledger["current"]
    if last is not None and last != store:
        raise PipelineError(
            f"{who}: this run would record to {shown}, but this workspace's runs so far were recorded to "
            f"{_shown(last)} ({LEDGER}); nothing was written. Set MLFLOW_TRACKING_URI / params.yaml tracking.uri "
            f"back, or, to record to {shown} from now on, run `python -m pipeline.tracking.store use`"
        )


def check_file_kept(ledger: JSON, store: str, db: Path | None, root: Path, who: str = "track") -> None:
    """Before MLflow opens a sqlite store (it would create its tables in an emptied file): refuse a damaged file
    (MLflow's own error names neither the file nor its copies), and a missing, empty or foreign file where the
    ledger says runs were recorded."""
    if db is None:
        return
    present = _run_ids(db, root, who) if db.exists() and db.stat().st_size else None  # refuses a damaged file
    recorded = ledger["stores"].get(store)
    if not recorded or not recorded["runs"]:
        return
    if not db.exists() or db.stat().st_size == 0:
        _refuse(recorded, db, root, "is missing" if not db.exists() else "is empty", who=who)
    lost = [r for r in recorded["runs"] if r not in present] if present is not None else []
    if lost:
        what = f"has lost {len(lost)} of the {len(recorded['runs'])} runs track recorded in it"
        _refuse(recorded, db, root, what, who=who)


def _run_ids(db: Path, root: Path, who: str) -> set[str] | None:
    """The ids of the runs in the sqlite file `db` (None: not an MLflow store yet, or locked: MLflow says which);
    a file SQLite cannot read as a database (its header overwritten, a page corrupted) is refused here."""
    try:
        with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as connection:
            return {r[0] for r in connection.execute("SELECT run_uuid FROM runs")}
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorname", None) not in DAMAGED:
            return None  # no runs table yet, or locked by another process: MLflow's own error says so
        latest = backups(root, db)[-1:]
        way_back = (
            f"restore the last copy: `cp {latest[0].relative_to(root)} {_relative(db, root)}`, then `dvc repro`"
            if latest
            else f"restore it from your own copy (there is none in {BACKUPS}/), or move it away to start a new store"
        )
        raise PipelineError(
            f"{who}: the MLflow store {db} is damaged, not a database SQLite can read ({exc}); nothing was written. "
            f"To get its runs and versions back, {way_back}"
        ) from None


def check_holds(
    ledger: JSON, store: str, client: MlflowClient, shown: str, db: Path | None, root: Path, who: str = "track"
) -> None:
    """Refuse a store that no longer holds the registered versions (and, on a server, the latest runs) the ledger
    lists: emptied, recreated or replaced."""
    recorded = ledger["stores"].get(store)
    if not recorded:
        return
    for name, versions in sorted(recorded["versions"].items()):
        present = {str(v.version) for v in client.search_model_versions(f"name = '{name}'")}
        lost = sorted(set(versions) - present, key=int)
        if lost:
            _refuse(recorded, db, root, f"has lost version(s) {', '.join(lost)} of {name}", shown, who)
    if db is None:
        for run_id in recorded["runs"][-RUNS_CHECKED:]:
            try:
                client.get_run(run_id)
            except Exception:
                _refuse(recorded, db, root, f"has lost run {run_id}", shown, who)


def _refuse(
    recorded: JSON, db: Path | None, root: Path, what: str, shown: str | None = None, who: str = "track"
) -> None:
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
        f"{who}: the MLflow store {where} {what} (the workspace recorded {held} in it, {LEDGER}); nothing was "
        f"written. To get them back, {way_back}; to start a new history on purpose, remove {LEDGER}"
    )


def every_version(client: MlflowClient) -> list[ModelVersion]:
    """Every registered version in the store, page after page."""
    found: list[ModelVersion] = []
    token = None
    while True:
        page = client.search_model_versions(page_token=token)
        found += list(page)
        token = page.token
        if not token:
            return found


def local_dir(uri: str | None) -> Path | None:
    """The directory of a file:// artifact location (None: another scheme, whose files its server keeps)."""
    if not uri or not uri.startswith("file://"):
        return None
    return Path(unquote(urlparse(uri).path))


def lost_versions(client: MlflowClient) -> list[tuple[ModelVersion, Path]]:
    """(version, its directory) of each registered version whose model files are gone from its local artifact
    location, but those accepted as lost (accept-lost)."""
    lost = []
    for version in every_version(client):
        where = local_dir(client.get_model_version_download_uri(version.name, version.version))
        if where is not None and LOST not in version.tags and not (where / "MLmodel").is_file():
            lost.append((version, where))
    return lost


def check_artifacts(client: MlflowClient, root: Path, db: Path | None, who: str = "track") -> None:
    """Refuse a sqlite store whose registered versions lost their model files (they would answer `No such
    artifact` when loaded or served, and nothing else would say so), naming the copy in mlflow-backups/ that
    restores them, or saying that there is none and what is left to do. A server's artifacts are its operator's."""
    if db is None:
        return
    lost = lost_versions(client)
    if not lost:
        return
    named = _versions_named(v for v, _ in lost)
    first = _relative(lost[0][1], root)
    mirror, here = root / BACKUPS / ARTIFACTS, root / ARTIFACTS
    covered = all(where.is_relative_to(here) and (mirror / where.relative_to(here) / "MLmodel").is_file()
                  for _, where in lost)  # fmt: skip
    what = f"{who}: the model files of {named} are gone ({first}/MLmodel and the like): those versions no longer load"
    if covered:
        raise PipelineError(
            f"{what}; nothing was written. Restore them from the copy: `cp -R {BACKUPS}/{ARTIFACTS}/. {ARTIFACTS}`, "
            "then `dvc repro`"
        )
    raise PipelineError(
        f"{what}, and {BACKUPS}/ holds no copy of them; nothing was written. Restore {ARTIFACTS}/ from your own "
        "copy, then `dvc repro`; or, to go on with those versions lost, `python -m pipeline.tracking.store "
        f"accept-lost` (it tags them {LOST}=lost)"
    )


def _versions_named(versions: Iterable[ModelVersion]) -> str:
    by_name: dict[str, list[str]] = {}
    for v in versions:
        by_name.setdefault(v.name, []).append(str(v.version))
    return "; ".join(f"{n} version(s) {', '.join(sorted(vs, key=int))}" for n, vs in sorted(by_name.items()))


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
    another process writes), the oldest copies beyond KEPT removed, and the artifacts' copy brought up to date
    (copy_artifacts). None when the store is not a sqlite file."""
    if db is None or not db.exists() or db.stat().st_size == 0:
        return None
    directory = root / BACKUPS
    directory.mkdir(exist_ok=True)
    copy_artifacts(root)
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


def copy_artifacts(root: Path) -> None:
    """Copy the files of <root>/mlartifacts that its copy in mlflow-backups/ lacks. MLflow writes an artifact once
    and never changes it, so the copy only grows, as the store does; a file whose size differs is copied again (a
    copy cut short by a kill). Copies, not hard links: a file damaged in place must not damage its copy."""
    here, mirror = root / ARTIFACTS, root / BACKUPS / ARTIFACTS
    if not here.is_dir():
        return
    for source in sorted(p for p in here.rglob("*") if p.is_file()):
        target = mirror / source.relative_to(here)
        if target.is_file() and target.stat().st_size == source.stat().st_size:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.partial")
        shutil.copy2(source, partial)
        os.replace(partial, target)


def remember(ledger: JSON, store: str, run_id: str, name: str, version: str | int | None) -> None:
    """Add what track wrote (or found recorded) to the ledger; the store becomes the current one."""
    recorded = ledger["stores"].setdefault(store, {"runs": [], "versions": {}})
    if run_id not in recorded["runs"]:
        recorded["runs"].append(run_id)
    versions = recorded["versions"].setdefault(name, [])
    if version is not None and str(version) not in versions:
        versions.append(str(version))
    ledger["current"] = store


ARTIFACT_COLUMNS = (
    ("experiments", "artifact_location"),
    ("runs", "artifact_uri"),
    ("logged_models", "artifact_location"),
    ("model_versions", "storage_location"),  # where `models:/<name>@<alias>` is read from
)


def relocate_default_store(root: Path) -> str | None:
    """Make a copied or moved repository's default store (<root>/mlflow.db) point at its own <root>/mlartifacts.

    MLflow records artifact locations as absolute URIs (a relative one would follow the working directory,
    mlflow#7292), so a copy of the repository would go on writing into the original's mlartifacts. When the
    store's locations name another root, they are rewritten to this one (the copy's artifacts came with it).
    Returns the old root, or None when nothing had to move."""
    db = root / "mlflow.db"
    if not db.exists():
        return None
    here = (root / ARTIFACTS).as_uri()
    with sqlite3.connect(db) as connection:
        try:
            locations = [r[0] for r in connection.execute("SELECT artifact_location FROM experiments")]
        except sqlite3.OperationalError:  # not an MLflow store yet
            return None
        old = next(
            (
                loc.split("/mlartifacts")[0] + "/mlartifacts"
                for loc in locations
                if loc and loc.startswith("file://") and "/mlartifacts" in loc and not loc.startswith(here)
            ),
            None,
        )
        if old is None:
            return None
        for table, column in ARTIFACT_COLUMNS:
            connection.execute(
                f'UPDATE "{table}" SET "{column}" = ? || substr("{column}", ?) WHERE "{column}" LIKE ?',
                (here, len(old) + 1, old + "%"),
            )
    old_root: str = old.removeprefix("file://").removesuffix("/mlartifacts")
    return old_root


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
    from .runs import repo_root

    root = repo_root()
    old = relocate_default_store(root)
    print(f"mlflow.db now points at {root / ARTIFACTS} (was {old})" if old else "mlflow.db already points here")


def accept_lost() -> None:
    """`python -m pipeline.tracking.store accept-lost`: the registered versions whose model files are gone, with no
    copy to restore them from, tagged {LOST}=lost: they stay in the registry (their runs, metrics and decisions
    remain the history) and track no longer refuses the store on their account."""
    import mlflow
    from mlflow import MlflowClient

    from ..core.config import load_params
    from .runs import repo_root, tracking_uri

    mlflow.set_tracking_uri(tracking_uri(load_params()["tracking"]["uri"]))
    client = MlflowClient()
    lost = lost_versions(client)
    for version, where in lost:
        client.set_model_version_tag(version.name, version.version, LOST, f"lost (were in {where})")
    root = repo_root()
    print(
        f"tagged {LOST}=lost: {_versions_named(v for v, _ in lost)}" if lost else "no registered version lost its files"
    )
    if lost:
        print(f"their files are gone from {_relative(lost[0][1], root)} and the like; they will not load")


if __name__ == "__main__":
    import sys

    from ..core.errors import run_stage

    commands = {"use": use, "relocate": relocate, "accept-lost": accept_lost}
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        sys.exit("usage: python -m pipeline.tracking.store use|relocate|accept-lost")
    run_stage(commands[sys.argv[1]])
