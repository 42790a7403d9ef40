"""What a run's outputs come from, in a form that is a function of the stage's inputs (so the report stays
byte-reproducible): the data file's md5 (validate records it), a hash of the params sections that shape the
outputs, and the code as git tree ids.

A byte-reproducible output cannot name the commit that records it (the commit's id depends on the lock that holds
the output's md5), so the code is named by content instead: the git tree id of mllib/ and of pipeline/ as their
working files are, computed the way git computes it (blob = sha1("blob <size>\\0" + bytes), tree = sha1 of the
sorted "<mode> <name>\\0<id>" entries) without writing anything into the repository. For committed code it equals
`git rev-parse <commit>:mllib` of that commit; uncommitted code has an id no commit has. The commit and the dirty
flag of the working tree are the MLflow run's tags (pipeline/tracking/runs.py)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import TypeAlias, cast

from .json_types import JSON

Tree: TypeAlias = dict[str, "tuple[str, bytes] | Tree"]  # a directory: {name: (mode, id)} of files, {name: Tree}


def git(*args: str) -> str:
    """git's output, or "" when git or the repository is missing."""
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def params_sha256(params: JSON, sections: Iterable[str]) -> str:
    shaping = {section: params[section] for section in sections}
    return hashlib.sha256(json.dumps(shaping, sort_keys=True, default=str).encode()).hexdigest()


def _object_id(kind: str, body: bytes) -> bytes:
    return hashlib.sha1(f"{kind} {len(body)}\0".encode() + body).digest()


def _tree_id(entries: Tree) -> bytes:
    """entries: {name: (mode, id)} of files and {name: nested dict} of directories."""
    items = []
    for name, value in entries.items():
        if isinstance(value, dict):
            mode, object_id, key = "40000", _tree_id(value), name + "/"  # git sorts a directory as "name/"
        else:
            (mode, object_id), key = value, name
        items.append((key.encode(), f"{mode} {name}".encode() + b"\0" + object_id))
    return _object_id("tree", b"".join(entry for _, entry in sorted(items)))


def tree_id(directory: str) -> str | None:
    """The git tree id of `directory`'s files as they are in the working tree (tracked ones and untracked ones git
    does not ignore), or None outside a git checkout."""
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", directory)
    if not listed and not Path(".git").exists():
        return None
    root: Tree = {}
    for path in sorted(set(filter(None, listed.split("\0")))):
        file = Path(path)
        if not file.is_file() and not file.is_symlink():  # deleted in the working tree
            continue
        if file.is_symlink():
            mode, body = "120000", os.readlink(file).encode()
        else:
            mode, body = ("100755" if os.access(file, os.X_OK) else "100644"), file.read_bytes()
        node = root
        for part in file.relative_to(directory).parts[:-1]:
            node = cast(Tree, node.setdefault(part, {}))  # a directory's entry is always a Tree
        node[file.name] = (mode, _object_id("blob", body))
    return _tree_id(root).hex()


def code_trees(directories: Iterable[str] = ("mllib", "pipeline")) -> dict[str, str | None]:
    return {directory: tree_id(directory) for directory in directories}
