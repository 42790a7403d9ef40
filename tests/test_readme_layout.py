"""The README's layout is complete and true: every path it names exists, and every pipeline module is named."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def layout_paths() -> set[str]:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Layout\n\n```\n(.*?)```", readme, re.S).group(1)
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
    assert len(named) > 30
    missing = sorted(n for n in named if "<" not in n and not (ROOT / n).exists())
    assert not missing, f"README layout names files that do not exist: {missing}"


def test_every_pipeline_module_is_in_the_layout():
    named = layout_paths()
    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "pipeline").rglob("*.py") if p.name != "__init__.py"} - {
        str(p.relative_to(ROOT)) for p in (ROOT / "pipeline" / "stages").glob("*.py")
    }
    assert "pipeline/stages/<stage>.py" in named
    assert not sorted(modules - named), f"README layout omits {sorted(modules - named)}"
