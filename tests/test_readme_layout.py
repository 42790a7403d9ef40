"""The docs' statements about the code are complete and true (they moved from the README to docs/): every path the
layout names exists, every pipeline module is named, the tutorial's experiments are valid params changes, the stage
graph is dvc.yaml's, and mllib's page names its numba kernels and each task's default models."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DVC_STAGES = set(yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"])


def layout_paths() -> set[str]:
    page = (DOCS / "explanation" / "conventions.md").read_text()
    block = re.search(r"## Where things live\n\n```\n(.*?)```", page, re.S).group(1)
    names = set()
    for line in block.splitlines():
        if not line.strip() or line.startswith(" " * 10):  # a wrapped description
            continue
        prefix = "pipeline/" if line.startswith("  ") else ""
        for token in re.split(r"\s{2,}", line.strip())[0].split():
            names.add(prefix + token.rstrip(","))
    return names


def test_every_path_the_layout_names_exists():
    named = layout_paths()
    assert len(named) > 15
    missing = sorted(n for n in named if "<" not in n and not (ROOT / n).exists())
    assert not missing, f"docs/explanation/conventions.md: the layout names files that do not exist: {missing}"


def test_every_pipeline_package_is_in_the_layout_and_lists_its_modules():
    """The layout names each package of pipeline/; each package's __init__ docstring names each of its modules, so
    the folders, not a long docs block, show where a concept lives."""
    named = layout_paths()
    packages = [p.parent for p in (ROOT / "pipeline").glob("*/__init__.py")]
    assert not sorted(str(p.relative_to(ROOT)) + "/" for p in packages if str(p.relative_to(ROOT)) + "/" not in named)
    assert "pipeline/stages/<stage>.py" in named
    for package in packages:
        listed = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        stages = DVC_STAGES if package.name == "stages" else set()
        modules = {p.name for p in package.glob("*.py") if p.name != "__init__.py" and p.stem not in stages}
        missing = sorted(m for m in modules if not re.search(rf"\b{re.escape(m)}\b", listed))
        assert not missing, f"{package.relative_to(ROOT)}/__init__.py does not list {missing}"


def test_pipeline_shows_its_roles_at_the_top_and_no_two_modules_share_a_name():
    top = sorted(p.name for p in (ROOT / "pipeline").iterdir() if p.name != "__pycache__")
    assert len(top) <= 8, top
    stems = [p.stem for p in (ROOT / "pipeline").rglob("*.py") if p.name != "__init__.py"]
    stems += [p.name for p in (ROOT / "pipeline").rglob("*") if p.is_dir() and p.name != "__pycache__"]
    assert not sorted({s for s in stems if stems.count(s) > 1}), "modules or packages sharing a name"


def test_every_experiment_in_the_tutorial_is_a_valid_change_of_the_committed_params(tmp_path):
    """Each `dvc exp run --queue -S key=value ...` line of the tutorial's experiment page, applied alone to the
    committed params.yaml by DVC's own `-S` code (Hydra overrides: a new key in an empty mapping needs `+`), passes
    the params check and changes only the keys it names: a renamed key, a value out of range or an override DVC
    refuses fails here, not in a user's queue."""
    import shlex

    from dvc.utils.hydra import apply_overrides

    from pipeline.core.config import flatten, load_params

    page = (DOCS / "tutorial" / "experiment.md").read_text()
    block = re.search(r"## Queue experiments\n.*?```bash\n(.*?)```", page, re.S).group(1).replace("\\\n", " ")
    commands = [shlex.split(line.split("#")[0]) for line in block.splitlines() if "dvc exp run --queue" in line]
    assert len(commands) >= 10
    baseline = flatten(yaml.safe_load((ROOT / "params.yaml").read_text()))
    for command in commands:
        overrides = [command[i + 1] for i, word in enumerate(command) if word == "-S"]
        path = tmp_path / "params.yaml"
        path.write_text((ROOT / "params.yaml").read_text())
        apply_overrides(path, overrides)
        params = load_params(path)  # raises PipelineError naming the key
        keys = [o.partition("=")[0].lstrip("+") for o in overrides]
        changed = {k for k, v in flatten(params).items() if baseline.get(k) != v} | (
            set(baseline) - set(flatten(params))
        )
        related = [
            k for k in changed if any(k == key or k.startswith(key + ".") or key.startswith(k + ".") for key in keys)
        ]
        assert sorted(related) == sorted(changed), (command, changed)


def test_the_stage_pages_graph_is_dvc_yamls():
    """The stages reference page's mermaid graph is dvc.yaml's: an arrow where a stage depends on another's output,
    without the arrows other paths imply (a transitive reduction)."""
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    producer = {
        next(iter(out)) if isinstance(out, dict) else out: name
        for name, spec in stages.items()
        for out in spec.get("outs", []) + spec.get("metrics", []) + spec.get("plots", [])
    }
    edges = {
        (source, name)
        for name, spec in stages.items()
        for dep in (d.split()[0] for d in spec.get("deps", []))
        for path, source in producer.items()
        if source != name and (dep == path or dep.startswith(path.rstrip("/") + "/"))
    }

    def reachable(start, end, without):
        frontier, seen = [start], set()
        while frontier:
            node = frontier.pop()
            for u, v in edges - {without}:
                if u == node and v not in seen:
                    seen.add(v)
                    frontier.append(v)
        return end in seen

    reduced = {e for e in edges if not reachable(*e, e)}
    block = re.search(
        r"```mermaid\nflowchart LR\n(.*?)```", (DOCS / "reference" / "stages.md").read_text(), re.S
    ).group(1)
    assert set(re.findall(r"(\w+) --> (\w+)", block)) == reduced


def test_the_lecture_references_page_is_current():
    """docs/references.md maps every citing module to its family's topic and a textbook section: a module citing
    the notes in a family the page does not know fails here (KeyError), and so does a page not rewritten by
    `python scripts/references.py` after a change."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("references", ROOT / "scripts" / "references.py")
    references = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(references)
    assert (ROOT / "docs" / "references.md").read_text() == references.page()
    assert len(references.citing_modules()) > 100


def test_every_lecture_citation_falls_in_a_section_of_the_notes():
    """Each `D<k>:<lines>` / `seed <k>, lines <lines>` in the code is on docs/references.md with the notes' section
    it falls in (docs/notes_headings.tsv) and a textbook section; a citation before the notes' first heading or past
    their end would be a wrong line number."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("references", ROOT / "scripts" / "references.py")
    references = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(references)
    found = references.citations()
    assert len(found) > 150
    rows = [line for line in (ROOT / "docs" / "references.md").read_text().splitlines() if line.startswith("| D")]
    assert len(rows) == len(found)
    assert not [row for row in rows if "(before the first heading)" in row]
    lengths = {"000": 4640, "001": 931, "002": 4404, "003": 577, "004": 2129}  # the notes' line counts
    beyond = [(seed, last) for (seed, _, last) in found if last > lengths[seed]]
    assert not beyond, f"citations past the end of the notes: {beyond}"


def test_the_numba_kernels_the_mllib_page_lists_are_the_ones_mllib_compiles():
    """Every mllib module that compiles a function with numba is named in the mllib page's paragraph on numba, and
    every module named there compiles one."""
    page = (DOCS / "reference" / "mllib" / "index.md").read_text()
    paragraph = re.search(r"plus numba for the hot loops(.*?)and nothing is pickled", page, re.S).group(1)
    named = set(re.findall(r"`(mllib/[\w/]+\.py)`", paragraph))
    compiled = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "mllib").rglob("*.py")
        if re.search(r"@(numba\.)?n?jit\b|\bnjit\(", path.read_text())
    }
    assert named == compiled, (
        f"docs/reference/mllib/index.md: {sorted(named - compiled)} without numba, {sorted(compiled - named)} missing"
    )


def test_the_mllib_page_states_each_tasks_default_model():
    from pipeline.core.task import KINDS

    page = " ".join((DOCS / "reference" / "mllib" / "index.md").read_text().split())
    sentence = re.search(r"`model\.name` takes any registered model of the task \(default `auto`: (.*?)\)", page)
    assert sentence, "docs/reference/mllib/index.md: the sentence on model.name's default"
    for task, words in (("binary", "binary"), ("multiclass", "multiclass"), ("regression", "regression")):
        *simpler, last = (f"`{name}`" for name in KINDS[task].default_models)
        defaults = f"{', '.join(simpler)} and {last}"
        assert f"{defaults} compared for a" in sentence.group(1) and words in sentence.group(1), (task, defaults)
