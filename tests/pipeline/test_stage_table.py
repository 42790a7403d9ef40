"""The stage table (pipeline/stages/table/) is where a stage is declared: dvc.yaml and the stages' reference page
are generated from it, and a stage added to it reaches both."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path, PurePath

import pytest
import yaml
from conftest import REPO

from pipeline.core import paths
from pipeline.stages import table
from pipeline.stages.table import STAGES, Entry, stage, why


def test_dvc_yaml_is_the_tables():
    assert (REPO / "dvc.yaml").read_text() == table.dvc_yaml(), "dvc.yaml: run python -m pipeline.stages.table"


def test_the_check_names_the_difference_and_the_fix(tmp_path):
    generated = table.dvc_yaml()
    assert table.difference(generated, generated) is None
    spec = yaml.safe_load(generated)
    spec["stages"]["train"]["params"].remove("search")
    assert table.difference(yaml.safe_dump(spec, sort_keys=False), generated) == (
        "dvc.yaml: stage train's params differ from the table's"
    )
    del spec["stages"]["monitor"]
    assert table.difference(yaml.safe_dump(spec, sort_keys=False), generated) == "dvc.yaml: stage monitor is missing"
    edited = generated.replace("  # the numerical environment", "  # the numerics", 1)
    assert table.difference(edited, generated).startswith(
        "dvc.yaml: comments or layout differ from the table's at line"
    )

    (tmp_path / "dvc.yaml").write_text(edited)
    assert table.main(["--check"], root=tmp_path) == 1
    assert table.main([], root=tmp_path) == 0 and (tmp_path / "dvc.yaml").read_text() == generated
    assert table.main(["--check"], root=tmp_path) == 0


def test_the_command_line_checks_the_repository():
    done = subprocess.run([sys.executable, "-m", "pipeline.stages.table", "--check"], cwd=REPO, capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "dvc.yaml is the stage table's\n"


TOY_MODULE = '''"""The toy stage: counts the test rows. Nothing else reads it.

A second paragraph, not on the page's table."""
'''


def toy_stage() -> table.Stage:
    return stage(
        "toy",
        why="a stage added in a test",
        inputs=(paths.TEST, why(paths.TARGET, "the classes")),
        code=(table.INIT, table.CORE, "pipeline/steps/toy_counts.py"),
        params=("seed", why("toy.rows", "how many rows to count")),
        outs=(Path("reports/toy.json"),),
        metrics=(table.uncached("reports/metrics/toy.json"),),
    )


def test_a_stage_added_to_the_table_is_in_dvc_yaml_and_on_the_page(tmp_path):
    stages = (*STAGES, toy_stage())
    text = table.dvc_yaml(stages)
    spec = yaml.safe_load(text)["stages"]
    assert list(spec) == [s.name for s in stages]
    assert spec["toy"] == {
        "cmd": "python -m pipeline.stages.toy",
        "deps": [
            "data/processed/test.parquet",
            "data/processed/target.json",
            "pipeline/stages/toy.py",
            "pipeline/__init__.py",
            "pipeline/core",
            "pipeline/steps/toy_counts.py",
        ],
        "params": ["seed", "toy.rows"],
        "outs": ["reports/toy.json"],
        "metrics": [{"reports/metrics/toy.json": {"cache": False}}],
    }
    assert "  # a stage added in a test\n  toy:\n" in text and "- toy.rows  # how many rows to count\n" in text
    assert {k: v for k, v in spec.items() if k != "toy"} == yaml.safe_load(table.dvc_yaml())["stages"]

    (tmp_path / "pipeline/stages").mkdir(parents=True)
    for s in STAGES:
        (tmp_path / s.module_file).write_text((REPO / s.module_file).read_text())
    (tmp_path / "pipeline/stages/toy.py").write_text(TOY_MODULE)
    page = table.stages_markdown(stages, root=tmp_path)
    assert "| [toy](#toy) | Counts the test rows. |" in page
    section = page.split("\n## toy\n")[1]
    for expected in (
        "Counts the test rows. Nothing else reads it.",
        "A stage added in a test.",
        "Command: `python -m pipeline.stages.toy`",
        "- `data/processed/target.json`: the classes",
        "- `pipeline/steps/toy_counts.py`",
        "- `toy.rows`: how many rows to count",
        "- `reports/toy.json`",
        "- `reports/metrics/toy.json`: not in DVC's cache",
    ):
        assert expected in section, expected
    assert "second paragraph" not in page


def test_the_page_names_every_stage_with_its_docstring():
    page = table.stages_markdown()
    assert page.startswith("# Stages\n")
    assert [line[3:] for line in page.splitlines() if line.startswith("## ")] == [s.name for s in STAGES]
    assert "| [validate](#validate) | The raw data against its schema. |" in page
    done = subprocess.run([sys.executable, "-m", "pipeline.stages.table", "--markdown"], cwd=REPO,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0 and done.stdout == page
    inside = table.stages_markdown(level=2)
    assert inside.startswith("## Stages\n") and "\n### validate\n" in inside and "\n## validate\n" not in inside


def test_every_stage_module_is_in_the_table():
    modules = {p.stem for p in (REPO / "pipeline/stages").glob("*.py")} - {"__init__"}
    assert modules == {s.name for s in STAGES}


def test_data_flows_one_way():
    """A stage's inputs are the user's files or earlier stages' outputs (a directory input: every writer earlier)."""
    seen: list[str] = []
    for s in STAGES:
        for e in s.inputs:
            writers = {w.name for w in STAGES for o in w.output_paths() if o == e.path or o.startswith(e.path + "/")}
            assert writers <= set(seen), f"{s.name} reads {e.path}, written by {sorted(writers - set(seen))} later"
        seen.append(s.name)


def test_each_output_has_one_writer_and_every_paths_constant_is_written():
    outs = [o for s in STAGES for o in s.output_paths()]
    assert len(outs) == len(set(outs)), sorted(o for o in outs if outs.count(o) > 1)
    constants = {name: v for name, v in vars(paths).items() if isinstance(v, PurePath)}
    for name, path in constants.items():
        if name in ("FEATURE_TRANSFORMER", "MODEL", "PREDICTOR"):  # mllib.io's .json + .npz
            path = path.with_suffix(".json")
        assert table.writer_of(path), name
    with pytest.raises(KeyError, match="no stage writes data/raw/x.csv"):
        table.writer_of("data/raw/x.csv")
    from pipeline.core.schema import SCHEMAS  # the one input path paths.py does not hold

    assert table.SCHEMAS.path == SCHEMAS.as_posix()


def test_the_report_files_writers_are_the_tables():
    """The records and paths.REPORT_INPUTS name the stage that writes a file (in messages: the stage to rerun)."""
    from pipeline.core import (
        assessment_records,
        evaluation_records,
        explanation_records,
        fairness_records,
        monitor_records,
        records,
    )

    for name, (path, writer) in paths.REPORT_INPUTS.items():
        assert table.writer_of(path) == writer, name
    modules = (records, assessment_records, evaluation_records, explanation_records, fairness_records, monitor_records)
    classes = [c for m in modules for _, c in inspect.getmembers(m, inspect.isclass) if c.__module__ == m.__name__]
    written = [c for c in classes if issubclass(c, records.Record) and "json_file" in vars(c)]
    assert len(written) >= 10
    for record in written:
        assert table.writer_of(record.json_file) == record.written_by, record.__name__


def test_the_report_hashes_the_sections_it_declares():
    from pipeline.stages import report

    assert report.OUTPUT_SECTIONS is table.OUTPUT_SECTIONS
    declared = table.by_name()["report"].param_keys()
    assert declared == [*table.OUTPUT_SECTIONS, "tracking.promotion"]


def test_entries_render_as_yaml_reads_them():
    """A path or title that plain YAML would read otherwise (a colon, a hash, a bool) is quoted."""
    odd = stage("odd", params=("a: b", "no", "x #y"), outs=(Entry("out dir"),))
    spec = yaml.safe_load(table.dvc_yaml([odd], []))["stages"]["odd"]
    assert spec["params"] == ["a: b", "no", "x #y"] and spec["outs"] == ["out dir"]
    assert dataclasses.replace(odd, name="odd").cmd == "python -m pipeline.stages.odd"


def test_the_docs_stages_page_takes_a_stage_added_to_the_table(monkeypatch):
    """docs/hooks/stages_page.py renders the table that is current when the site is built: a stage added to it is on
    the page (and the page's marker is replaced, so the declarations cannot silently go missing)."""
    spec = importlib.util.spec_from_file_location("stages_page", REPO / "docs/hooks/stages_page.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    monkeypatch.setattr(table, "STAGES", (*STAGES, toy_stage()), raising=True)
    from pipeline.stages.table import reference_page

    monkeypatch.setattr(reference_page, "summary", lambda name, root=REPO: f"{name} summary", raising=True)
    monkeypatch.setattr(reference_page, "description", lambda name, root=REPO: f"{name} description", raising=True)
    page_file = type("File", (), {"src_uri": hook.PAGE})
    source = (REPO / "docs" / hook.PAGE).read_text()
    page = hook.on_page_markdown(source, page=type("Page", (), {"file": page_file}))
    assert hook.MARKER in source and hook.MARKER not in page
    assert "## What each stage does" in page and "| [toy](#toy) | toy summary |" in page
    assert "\n### toy\n" in page and "Command: `python -m pipeline.stages.toy`" in page
    assert all(f"\n### {s.name}\n" in page for s in STAGES)
