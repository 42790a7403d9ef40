"""pipeline/core/provenance.py: the code's git tree ids, computed from the working files without writing to the
repository, equal git's own tree ids for committed code and differ once a file changes; params hash."""

from __future__ import annotations

import os
import subprocess

from pipeline.core import provenance


def git(cwd, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def test_tree_ids_equal_gits_for_committed_code_and_change_with_any_file(tmp_path, monkeypatch):
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("__pycache__/\n")
    code = tmp_path / "code"
    (code / "sub" / "deeper").mkdir(parents=True)
    (code / "a.py").write_text("x = 1\n")
    (code / "sub" / "b.py").write_text("y = 2\n")
    (code / "sub" / "deeper" / "c.txt").write_bytes(b"\x00binary\xff")
    (code / "sub.py").write_text("# sorts between 'sub' and 'sub/' in git's order\n")
    (code / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(code / "run.sh", 0o755)
    git(tmp_path, "add", "-A")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    monkeypatch.chdir(tmp_path)
    objects_before = sorted(p.name for p in (tmp_path / ".git" / "objects").rglob("*"))

    assert provenance.tree_id("code") == git(tmp_path, "rev-parse", "HEAD:code")
    (code / "__pycache__").mkdir()
    (code / "__pycache__" / "a.pyc").write_bytes(b"ignored")
    assert provenance.tree_id("code") == git(tmp_path, "rev-parse", "HEAD:code")  # ignored files do not count
    assert sorted(p.name for p in (tmp_path / ".git" / "objects").rglob("*")) == objects_before  # nothing written

    (code / "sub" / "b.py").write_text("y = 3\n")
    changed = provenance.tree_id("code")
    assert changed != git(tmp_path, "rev-parse", "HEAD:code")
    (code / "new.py").write_text("z = 0\n")  # an untracked, not ignored file is part of the code
    with_new = provenance.tree_id("code")
    assert with_new != changed
    git(tmp_path, "add", "-A")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "d")
    assert with_new == git(tmp_path, "rev-parse", "HEAD:code")


def test_outside_a_git_checkout_the_code_is_not_identified(tmp_path, monkeypatch):
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "a.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert provenance.code_trees(("code",)) == {"code": None}


def test_params_hash_covers_only_the_named_sections():
    params = {"seed": 0, "model": {"name": "x"}, "tracking": {"uri": "a"}}
    base = provenance.params_sha256(params, ("seed", "model"))
    assert base == provenance.params_sha256({**params, "tracking": {"uri": "b"}}, ("seed", "model"))
    assert base != provenance.params_sha256({**params, "seed": 1}, ("seed", "model"))
