"""Compare the output md5s of two dvc.lock files, every stage's (track's record names the pipeline state, not this
machine's MLflow run, so it is the same on every clone too).

Usage: python .ci/compare_lock.py BEFORE AFTER   (exit 1 on a difference, listing the outputs that differ)
"""

from __future__ import annotations

import sys

import yaml


def output_md5s(lock: dict) -> dict[str, str]:
    return {
        f"{stage}: {out['path']}": out.get("md5", "")
        for stage, entry in (lock.get("stages") or {}).items()
        for out in entry.get("outs", [])
    }


def differences(before: dict, after: dict) -> list[str]:
    a, b = output_md5s(before), output_md5s(after)
    return [f"{key}: {a.get(key)} -> {b.get(key)}" for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]


def main(argv: list[str]) -> int:
    before_path, after_path = argv
    with open(before_path) as f, open(after_path) as g:
        diffs = differences(yaml.safe_load(f) or {}, yaml.safe_load(g) or {})
    if not diffs:
        print(f"identical output md5s: {before_path} and {after_path}")
        return 0
    print(f"error: {len(diffs)} output md5s differ between {before_path} and {after_path}:")
    print("\n".join(f"  {d}" for d in diffs))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
