"""Shared fixtures: a small sample of the default data in a scratch copy of the project's inputs."""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy loads: see pipeline/__init__.py
    os.environ.setdefault(_var, "1")

import importlib  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402
from hypothesis import settings  # noqa: E402

# Property tests draw the same examples on every run, so CI cannot fail at random; explore new examples
# with HYPOTHESIS_PROFILE=explore (any failure found there becomes a fixed example or a fix).
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parents[1]
SAMPLE_EVERY = 15  # every 15th person (~390 persons, ~1,350 person-years, all six sites): stages run in seconds


def sample_frame(every: int = SAMPLE_EVERY) -> pd.DataFrame:
    raw = pd.read_csv(REPO / "data/raw/randhie.csv.gz")
    persons = sorted(raw["zper"].unique())[::every]
    return raw[raw["zper"].isin(persons)].reset_index(drop=True)


@pytest.fixture(scope="session")
def sample_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sample") / "sample.csv"
    sample_frame().to_csv(path, index=False)
    return path


def make_project(root: Path, sample_csv: Path, **overrides) -> Path:
    """params.yaml, the schema and a sample CSV under `root`; overrides are dotted params keys."""
    (root / "data/raw").mkdir(parents=True, exist_ok=True)
    shutil.copy(sample_csv, root / "data/raw/sample.csv")
    shutil.copy(REPO / "data/raw/randhie.schema.yaml", root / "data/raw/randhie.schema.yaml")
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["data"]["path"] = "data/raw/sample.csv"
    for key, value in overrides.items():
        *parents, leaf = key.split(".")
        node = params
        for p in parents:
            node = node[p]
        node[leaf] = value
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


SHARED_STAGES = ["validate", "clean", "split", "features"]
MODEL_STAGES = ["train", "calibrate", "evaluate", "fairness", "explain"]


def run_stages(root: Path, monkeypatch, stages: list[str]) -> None:
    """Run stages in-process, in order, inside the project at `root`."""
    monkeypatch.chdir(root)
    for stage in stages:
        importlib.import_module(f"pipeline.stages.{stage}").main()
