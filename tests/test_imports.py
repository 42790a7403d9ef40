"""The house's structure, read from the source: no import cycle among the modules of mllib and pipeline (imports
inside functions count too), no module reaching into another mllib family's private modules, and mllib importing
none of the pipeline-level packages."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("mllib", "pipeline")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_nodes(tree: ast.AST):
    """Every node of `tree` that can run: all but the bodies of `if TYPE_CHECKING:` (type-only imports, which
    neither load a module nor make a cycle at run time)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def imports_of(path: Path) -> set[str]:
    """Absolute names of the project modules a file imports where it can run, anywhere in it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}  # `from pkg import module`
    return {m for m in found if m.split(".")[0] in PACKAGES}


def graph() -> dict[str, set[str]]:
    files = [p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py")]
    modules = {module_name(p): p for p in files}
    return {name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()}


def loaded_files(module: str, prefix: str = "pipeline") -> set[str]:
    """The files of `prefix` that importing `module` runs: the modules it imports, directly or not, and the
    __init__.py of every package on the way (importing pipeline.core.io runs pipeline/__init__.py first)."""
    edges, seen, stack = graph(), {module}, [module]
    while stack:
        for target in edges.get(stack.pop(), set()) - seen:
            seen.add(target)
            stack.append(target)
    seen = {m for m in seen if m.split(".")[0] == prefix}
    seen |= {".".join(m.split(".")[:i]) for m in seen for i in range(1, m.count(".") + 1)}
    paths = (REPO / m.replace(".", "/") for m in seen)
    return {str((p / "__init__.py" if p.is_dir() else p.with_suffix(".py")).relative_to(REPO)) for p in paths}


def test_no_import_cycles():
    edges = graph()
    # a package's __init__ importing its own submodules is how a public API is assembled, not a cycle
    edges = {
        m: {t for t in targets if not (m.startswith(t + ".") and edges.get(t, set()) >= {m})}
        for m, targets in edges.items()
    }
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node)
    real = [c for c in cycles if not all(a.startswith(b + ".") or b.startswith(a + ".") for a, b in zip(c, c[1:]))]
    assert not real, "import cycles: " + "; ".join(" -> ".join(c) for c in real[:5])


def test_no_reaching_into_another_familys_private_modules():
    offenders = []
    for name, targets in graph().items():
        if not name.startswith("mllib."):
            continue
        family = name.split(".")[1]
        for target in targets:
            parts = target.split(".")
            if (
                len(parts) >= 3
                and parts[0] == "mllib"
                and parts[1] != family
                and any(p.startswith("_") for p in parts[2:])
            ):
                offenders.append(f"{name} -> {target}")
    assert not offenders, offenders


def test_mllib_imports_no_pipeline_level_package():
    banned = ("pandas", "mlflow", "dvc", "pandera", "sklearn", "matplotlib", "pipeline")
    offenders = []
    for path in (REPO / "mllib").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            offenders += [f"{path.relative_to(REPO)}: {n}" for n in names if n.split(".")[0] in banned]
    assert not offenders, offenders


def test_only_tracking_serving_and_the_track_stage_import_mlflow():
    """docs/architecture.md section 1: the compute stages never import MLflow."""
    allowed = ("pipeline/tracking/", "pipeline/serving/", "pipeline/stages/track.py")
    offenders = []
    for path in (REPO / "pipeline").rglob("*.py"):
        rel = str(path.relative_to(REPO))
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(n.split(".")[0] == "mlflow" for n in names) and not rel.startswith(allowed):
                offenders.append(rel)
    assert not offenders, offenders
