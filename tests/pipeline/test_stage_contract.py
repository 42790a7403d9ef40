"""The stage contract (docs/architecture.md section 2), checked by running every compute stage in-process on a small
sample: each stage reads exactly the params keys the stage table (pipeline/stages/table/, dvc.yaml's source) declares
for it, writes exactly its declared outputs and nothing else, and gives byte-identical outputs when run again on the
same inputs."""

from __future__ import annotations

import ast
import hashlib
import importlib
from pathlib import Path

import pytest
import yaml
from conftest import REPO, make_project

from mllib.registry import FEATURE_STEPS
from pipeline.core import config
from pipeline.stages import table

STAGES = table.compute_stages()  # all but track and monitor (MLflow)
DVC = table.by_name()


# read when data.path is a directory of parts on the dask backend (pipeline/core/partitions.py)
PARTITIONED = {"compute.backend", "compute.n_workers", "compute.scheduler"}
# keys a stage reads only in some configurations; declaring them keeps DVC correct in all of them
CONDITIONAL = {
    "validate": PARTITIONED,
    "clean": PARTITIONED,
    "train": {"search.n_iter", "model.selection", "compute.scheduler"},  # random search / model.candidates / dask
    "split": {"split.valid_size"},  # read by the shuffle strategies
    "features": {
        *PARTITIONED,
        "features.expansion.params",
        "features.projection.params",  # read unless name: none
        "features.selection.params",
    },
    "assess": {
        "features.expansion.params",
        "features.projection.params",
        "features.selection.params",
        "search.n_iter",  # random search
        "model.selection",  # nested CV with model.candidates
    },
    "fairness": {
        "fairness.mitigation.tolerance",  # read unless fairness.mitigation.criterion is none
        "compute.n_workers",  # the reweighed refit's threads, for a model with threads of its own
    },
    # regression targets
    "calibrate": {"calibration.interval_coverage", "calibration.interval_method", "calibration.interval_score"},
    "evaluate": {"seed", "model.params"},  # the runner-up's refit, with model.candidates
    # the gate's checks of the task (binary here) are read; the others and the champion's tolerance
    # belong to the same policy, declared as one section
    "report": {
        "tracking.promotion.max_coverage_shortfall",
        "tracking.promotion.min_headline.multiclass",
        "tracking.promotion.min_headline.regression",
        "tracking.promotion.tolerance",
        "tracking.promotion.fail_not_evaluated",  # read when a check cannot be computed
        "tracking.promotion.allow_contract_change",  # read by track's comparison with the champion
    },
}
# user-supplied mappings are consumed whole, so each counts as one leaf
OPAQUE = {
    "model.params",
    "search.grid",
    "assess.validation_curve",
    "calibration.params",
    "clean.valid_ranges",
    "clean.outliers.bounds",
    *(f"features.{step}.params" for step in FEATURE_STEPS),
}


class Recorder(dict):
    """A params dict that records the dotted key of every leaf value read (iterating a section reads it all)."""

    def __init__(self, data: dict, seen: set, prefix: str = ""):
        super().__init__(data)
        self.seen, self.prefix = seen, prefix

    def _wrap(self, key, value):
        dotted = f"{self.prefix}{key}"
        if isinstance(value, dict) and dotted not in OPAQUE:
            return Recorder(value, self.seen, f"{dotted}.")
        self.seen.add(dotted)
        return value

    def __getitem__(self, key):
        return self._wrap(key, super().__getitem__(key))

    def get(self, key, default=None):
        return self[key] if key in self else default

    def items(self):
        return [(k, self[k]) for k in super().keys()]

    def values(self):
        return [self[k] for k in super().keys()]


def leaves(node, prefix: str = "") -> set[str]:
    if isinstance(node, dict) and prefix.rstrip(".") not in OPAQUE:
        return set().union(*(leaves(v, f"{prefix}{k}.") for k, v in node.items())) if node else set()
    return {prefix.rstrip(".")}


def declared(stage: str) -> set[str]:
    """The params leaves a stage declares (a section stands for all its leaves)."""
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    entries = DVC[stage].param_keys()
    return {leaf for leaf in leaves(params) if any(leaf == e or leaf.startswith(e + ".") for e in entries)}


def declared_outputs(stage: str) -> set[str]:
    return set(DVC[stage].output_paths())


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.md5(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()}


def run_pipeline(root: Path, monkeypatch) -> tuple[dict, dict]:
    """Run the compute stages in order; return {stage: params keys read} and {stage: files written or changed}."""
    monkeypatch.chdir(root)
    reads, writes = {}, {}
    for stage in STAGES:
        module = importlib.import_module(f"pipeline.stages.{stage}")
        seen: set = set()
        monkeypatch.setattr(module, "load_params", lambda seen=seen: Recorder(config.load_params(), seen))
        before = snapshot(root)
        module.main()
        after = snapshot(root)
        reads[stage] = seen
        writes[stage] = {f for f in after if before.get(f) != after[f]}
    return reads, writes


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory, sample_csv):
    results = []
    for i in range(2):
        mp = pytest.MonkeyPatch()
        root = make_project(tmp_path_factory.mktemp(f"run{i}"), sample_csv)
        try:
            reads, writes = run_pipeline(root, mp)
        finally:
            mp.undo()
        results.append((root, reads, writes))
    return results


@pytest.mark.parametrize("stage", STAGES)
def test_stage_reads_exactly_its_declared_params(two_runs, stage):
    _, reads, _ = two_runs[0]
    keys, expected = reads[stage], declared(stage)
    undeclared, unread = sorted(keys - expected), sorted(expected - keys - CONDITIONAL.get(stage, set()))
    assert not undeclared, f"{stage} reads params the stage table does not declare: {undeclared}"
    assert not unread, f"the stage table declares params that {stage} never reads: {unread}"


@pytest.mark.parametrize("stage", STAGES)
def test_stage_writes_exactly_its_declared_outputs(two_runs, stage):
    _, _, writes = two_runs[0]
    outs = declared_outputs(stage)
    written = writes[stage]
    stray = sorted(f for f in written if not any(f == o or f.startswith(o + "/") for o in outs))
    missing = sorted(o for o in outs if not any(f == o or f.startswith(o + "/") for f in written))
    assert not stray, f"{stage} writes files the stage table does not declare: {stray}"
    assert not missing, f"{stage} does not write declared outputs: {missing}"


def test_outputs_are_byte_identical_across_runs(two_runs):
    (root_a, _, writes), (root_b, _, _) = two_runs
    a, b = snapshot(root_a), snapshot(root_b)
    produced = sorted(set().union(*writes.values()))
    assert produced
    differing = [f for f in produced if a[f] != b.get(f)]
    assert not differing, f"outputs differ between two identical runs: {differing}"


def test_every_stage_module_is_a_dependency_of_its_stage():
    for stage, spec in DVC.items():
        assert (REPO / spec.module_file).is_file() and spec.cmd == f"python -m pipeline.stages.{stage}"
        assert spec.module_file in spec.dep_paths(), f"{stage} does not depend on its own module"
        # the numerical environment the stage computes in (pinned CPU code paths: byte-identical outputs)
        assert stage == "track" or covered("pipeline/__init__.py", spec.dep_paths()), stage


def covered(path: str, deps: list[str]) -> bool:
    """path is a dep, or inside a directory that is one."""
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in (d.split()[0] for d in deps))


def docstring_only(path: str) -> bool:
    """A module holding nothing but its docstring (a package's table of contents): no edit of it can change an
    output, so it is no stage's dep (each dep costs every stage's rewrite of dvc.lock; benchmarks/results/pipeline.md).
    Code added to it makes it a dep again."""
    body = ast.parse((REPO / path).read_text()).body
    return len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)


def test_docstring_only_modules_are_not_deps():
    """Listing one would rerun stages for an edit of prose; the packages' tables of contents are these."""
    inits = [str(p.relative_to(REPO)) for p in (REPO / "pipeline").glob("*/__init__.py")]
    assert {"pipeline/stages/__init__.py", "pipeline/steps/__init__.py"} <= {p for p in inits if docstring_only(p)}
    listed = [d for spec in DVC.values() for d in spec.dep_paths() if d in inits and docstring_only(d)]
    assert not listed, listed


def test_every_pipeline_module_a_stage_imports_is_a_dependency():
    """A change in any pipeline module a stage imports (directly or not) reruns that stage, and only those."""
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    from test_imports import loaded_files

    for stage, spec in DVC.items():
        files = {f for f in loaded_files(f"pipeline.stages.{stage}") if not docstring_only(f)}
        missing = sorted(f for f in files if not covered(f, spec.dep_paths()))
        assert not missing, f"{stage} imports {missing} but the stage table does not list them as deps"
