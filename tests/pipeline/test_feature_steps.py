"""Every features step of params.yaml selects its transformer by registry name: each accepted name (default
params) runs the features stage on a small sample and gives finite matrices of one width for every split;
an unknown name or parameter stops with a message naming the key. Parametrised over the names the pipeline
accepts that are registered, so a newly registered transformer is covered at once."""
from __future__ import annotations

import importlib
import json
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import make_project
from pipeline import paths
from pipeline.build import FEATURE_STEPS, feature_step_names
from pipeline.config import load_params
from pipeline.errors import PipelineError

CASES = [(step, name) for step in FEATURE_STEPS for name in feature_step_names(step)]
# exact whitening of one-hot columns is singular; the stage's message says to regularise (tested below)
PARAMS = {"cholesky_whitening": {"reg": 1e-6}}


def run_stages(root, monkeypatch, *stages):
    monkeypatch.chdir(root)
    for stage in stages:
        importlib.import_module(f"pipeline.stages.{stage}").main()


@pytest.fixture(scope="module")
def split_project(tmp_path_factory, sample_csv):
    root = make_project(tmp_path_factory.mktemp("steps"), sample_csv, **{"split.n_splits": 2})
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, "validate", "clean", "split")
    return root


def with_step(split_project, tmp_path, step, name, params=None):
    root = tmp_path / "p"
    shutil.copytree(split_project, root)
    cfg = yaml.safe_load((root / "params.yaml").read_text())
    cfg["features"][step] = {"name": name, "params": {} if params is None else params}
    (root / "params.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return root


@pytest.mark.parametrize("step,name", CASES, ids=[f"{s}={n}" for s, n in CASES])
def test_every_step_choice_runs_the_features_stage(step, name, split_project, tmp_path, monkeypatch):
    root = with_step(split_project, tmp_path, step, name, PARAMS.get(name))
    run_stages(root, monkeypatch, "features")
    widths = set()
    for path in sorted((root / paths.FEATURES_DIR).glob("*.parquet")):
        Z = pd.read_parquet(path).drop(columns=[paths.ROW_ID]).to_numpy()
        assert np.isfinite(Z).all(), path.name
        widths.add(Z.shape[1])
    report = json.loads((root / paths.FEATURES_REPORT).read_text())
    assert len(report["final"]["features"]) in widths
    if name == "lda":
        assert widths == {1}  # at most K - 1 discriminant directions for a binary target


def test_unknown_step_name_names_the_key(split_project, tmp_path, monkeypatch):
    root = with_step(split_project, tmp_path, "scaler", "zscore")
    monkeypatch.chdir(root)
    with pytest.raises(PipelineError, match=r"features.scaler.name must be one of \[.*standard_scaler"):
        load_params()


def test_unknown_step_parameter_names_the_key(split_project, tmp_path, monkeypatch):
    root = with_step(split_project, tmp_path, "numeric_imputer", "simple_imputer", {"strategy": "median", "k": 3})
    monkeypatch.chdir(root)
    with pytest.raises(PipelineError, match=r"features.numeric_imputer.params.k: simple_imputer has no parameter 'k'"):
        load_params()


def test_bad_step_value_stops_the_stage_naming_the_features_section(split_project, tmp_path, monkeypatch):
    root = with_step(split_project, tmp_path, "numeric_imputer", "simple_imputer", {"strategy": "mode"})
    with pytest.raises(PipelineError, match=r"features: fitting the features \(numeric_imputer=simple_imputer.*mode.*features\.\*"):
        run_stages(root, monkeypatch, "features")


def test_exact_whitening_of_one_hot_columns_asks_for_regularisation(split_project, tmp_path, monkeypatch):
    root = with_step(split_project, tmp_path, "projection", "cholesky_whitening")
    with pytest.raises(PipelineError, match=r"projection=cholesky_whitening.*singular.*reg"):
        run_stages(root, monkeypatch, "features")


def test_group_imputer_takes_its_group_column_by_name(split_project, tmp_path, monkeypatch):
    """Impute each gappy numeric column with the median within groups of another numeric column, named in params."""
    params = {"group_column": "xage", "strategy": "median"}
    root = with_step(split_project, tmp_path, "numeric_imputer", "group_imputer", params)
    run_stages(root, monkeypatch, "features")
    root_bad = with_step(split_project, tmp_path / "bad", "numeric_imputer", "group_imputer", {"group_column": "zip"})
    with pytest.raises(PipelineError, match=r"group_column 'zip' is not a numeric feature column"):
        run_stages(root_bad, monkeypatch, "features")
