"""The assess stage end to end on a small project: nested CV (its outer scores from the search's refitted best on
each split's validation part, the optimism = inner best minus outer), the validation curve (one row per value, the
chosen configuration's value reproducing the search's score), and the bad settings each stopped with one message."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import SHARED_STAGES, make_project, run_stages

from pipeline import paths
from pipeline.config import load_params
from pipeline.errors import PipelineError

FAST = {"split.n_splits": 3, "assess.learning_curve": False, "assess.leakage": False}


@pytest.fixture(scope="module")
def assessed(tmp_path_factory, sample_csv):
    root = make_project(
        tmp_path_factory.mktemp("assess"),
        sample_csv,
        **FAST,
        **{"assess.validation_curve": {"logistic_regression": {"lam": [0.1, 1.0, 1000.0]}}},
    )
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, SHARED_STAGES + ["train", "assess"])
    return root


def test_nested_cv_reports_outer_scores_and_the_search_optimism(assessed):
    report = json.loads((assessed / paths.ASSESSMENT).read_text())
    nested = report["nested"]
    assert len(nested["outer_scores"]) == 3 and len(nested["chosen_params"]) == 3
    assert nested["outer_mean"] == pytest.approx(np.mean(nested["outer_scores"]))
    assert nested["optimism"] == pytest.approx(np.mean(nested["inner_best_scores"]) - np.mean(nested["outer_scores"]))
    assert 0.5 < nested["outer_mean"] < 1


def test_validation_curve_sweeps_the_listed_values(assessed):
    rows = json.loads((assessed / paths.SWEEP_CURVE).read_text())
    search = json.loads((assessed / paths.SEARCH_REPORT).read_text())
    assert [r["value"] for r in rows] == [0.1, 1.0, 1000.0] and {r["parameter"] for r in rows} == {"lam"}
    by_value = {c["params"]["lam"]: c["mean_valid_score"] for c in search["candidates"]}
    for row in rows:
        if row["value"] in by_value:  # the same configuration on the same folds gives the search's score
            assert row["valid"] == pytest.approx(by_value[row["value"]], abs=1e-12)


def test_above_max_refit_rows_nested_cv_and_the_validation_curve_say_why_they_did_not_run(
    assessed, tmp_path, monkeypatch, capsys
):
    root = tmp_path / "p"
    shutil.copytree(assessed, root)
    params = yaml.safe_load((root / "params.yaml").read_text())
    n_train = len(pd.read_parquet(root / paths.TRAIN))
    params["assess"]["max_refit_rows"] = n_train - 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run_stages(root, monkeypatch, ["assess"])
    report = json.loads((root / paths.ASSESSMENT).read_text())
    why = f"skipped: {n_train:,} training rows exceed assess.max_refit_rows ({n_train - 1:,})"
    assert report["nested"]["statement"].startswith(why)
    assert report["validation_curve"]["statement"].startswith(why)
    assert json.loads((root / paths.SWEEP_CURVE).read_text()) == []
    assert why in capsys.readouterr().out
    params["assess"]["max_refit_rows"] = n_train  # at the limit both run
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run_stages(root, monkeypatch, ["assess"])
    report = json.loads((root / paths.ASSESSMENT).read_text())
    assert "outer_scores" in report["nested"] and "parameter" in report["validation_curve"]


def test_a_validation_curve_parameter_the_model_lacks_is_named(assessed, tmp_path, monkeypatch):
    root = tmp_path / "p"
    shutil.copytree(assessed, root)
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["assess"]["validation_curve"] = {"logistic_regression": {"depth": [1, 2]}}
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    with pytest.raises(
        PipelineError,
        match=r"assess.validation_curve.logistic_regression.depth: logistic_regression "
        r"has no hyperparameter 'depth'",
    ):
        run_stages(root, monkeypatch, ["assess"])


@pytest.mark.parametrize(
    "value",
    [
        {"logistic_regression": {"lam": [1.0]}},
        {"logistic_regression": {"lam": [1.0, 2.0], "tol": [1, 2]}},
        {"deep_forest": {"depth": [1, 2]}},
    ],
)
def test_a_malformed_validation_curve_is_refused_when_params_load(tmp_path, sample_csv, monkeypatch, value):
    root = make_project(tmp_path, sample_csv, **{"assess.validation_curve": value})
    monkeypatch.chdir(root)
    with pytest.raises(
        PipelineError,
        match=r"assess.validation_curve must be a mapping \{model name: \{one "
        r"hyperparameter",
    ):
        load_params()


def test_a_selection_that_keeps_no_feature_stops_the_features_stage(tmp_path, sample_csv, monkeypatch):
    root = make_project(
        tmp_path,
        sample_csv,
        **{"split.n_splits": 2, "features.selection": {"name": "variance_threshold", "params": {"threshold": 1.0e6}}},
    )
    run_stages(root, monkeypatch, ["validate", "clean", "split"])
    with pytest.raises(
        PipelineError,
        match=r"features: fitting the features \(.*selection=variance_threshold\) on the "
        r"training part of split 0 failed: VarianceThreshold would keep zero",
    ):
        run_stages(root, monkeypatch, ["features"])
