"""Steps take values and return values; the stages read, call, write and print (issue 44). This finds the calls
that read or write a file or print in each module of pipeline/steps/ and holds the modules that make none to it; the
modules that still do are listed by name, so one that becomes pure leaves the list, and none joins it unseen.
feature_blocks.py is where the rows are (in memory or on the cluster's parts): reading them is its job."""

from __future__ import annotations

import ast

from conftest import REPO

DATA_ACCESS = {"feature_blocks.py"}
NOT_YET_PURE = {  # what they still read, write or print: the next modules to turn into values in, values out
    "assessment.py",  # reads the fold rows, progress lines
    "batch_check.py",  # the monitor stage's batch and the test rows
    "explanations.py",  # the rows explained, progress lines
    "nested_cv.py",  # progress lines, its result printed
    "feature_fits.py",  # writes each split's matrix as it fits
    "partitioned_cleaning.py",  # writes each clean part where it is
    "row_outputs.py",  # reads the test rows (in memory or on the parts)
    "training.py",  # progress lines of the search
    "validation.py",  # writes each validated part where it is
}


def io_calls(source: str) -> list[str]:
    """`line: call` of every print, read_* / write_*, mllib.io load / save, Progress or open in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        on_mlio = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "mlio"
        if name in ("print", "open", "Progress", "dask_client") or name.startswith(("read_", "write_")) or on_mlio:
            found.append(f"{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_the_counter_finds_each_kind_of_io():
    source = """
print("x")
frame = read_parquet(path, "split")
write_json(report, path)
model = mlio.load(path)
progress = Progress("assess")
with open(path) as f: pass
value = compute(frame)
"""
    assert [line.split(":")[0] for line in io_calls(source)] == ["2", "3", "4", "5", "6", "7"]


def test_steps_make_no_io_but_the_listed_ones():
    steps = sorted((REPO / "pipeline" / "steps").glob("*.py"))
    doing_io = {path.name: io_calls(path.read_text()) for path in steps}
    impure = {name for name, calls in doing_io.items() if calls}
    assert impure - DATA_ACCESS - NOT_YET_PURE == set(), {n: doing_io[n] for n in impure - DATA_ACCESS - NOT_YET_PURE}
    assert NOT_YET_PURE - impure == set(), f"now pure, take them off NOT_YET_PURE: {sorted(NOT_YET_PURE - impure)}"
