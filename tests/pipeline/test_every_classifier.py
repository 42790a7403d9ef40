"""The pipeline runs once per registered classifier on a small sample: `model.name` selects it from params.yaml,
the default hyperparameters are used (search.grid: {}), and train -> calibrate -> evaluate -> fairness ->
explain all complete with a cross-validated AUC clearly above chance (the 267 test rows are too few for a tight
bound: the RBF SVM scores 0.67 across folds and 0.55 on test, exactly as scikit-learn's SVC does on these
features). Parametrised over mllib.registry.CLASSIFIERS, so a newly registered classifier is covered without
editing this file."""
from __future__ import annotations

import json
import shutil

import pytest
import yaml

from conftest import MODEL_STAGES, SHARED_STAGES, make_project, run_stages
from mllib.registry import CLASSIFIERS
from pipeline import paths


@pytest.fixture(scope="module")
def featurised(tmp_path_factory, sample_csv):
    root = make_project(tmp_path_factory.mktemp("classifiers"), sample_csv,
                        **{"search.grid": {}, "explain.n_repeats": 1, "split.n_splits": 3})
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, SHARED_STAGES)
    return root


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_pipeline_runs_with_every_classifier(name, featurised, tmp_path, monkeypatch):
    root = tmp_path / name
    shutil.copytree(featurised, root)
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["model"]["name"] = name
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run_stages(root, monkeypatch, MODEL_STAGES)

    train = json.loads((root / paths.TRAIN_METRICS).read_text())
    test = json.loads((root / paths.TEST_METRICS).read_text())
    assert train["model"] == name and train["n_candidates"] == 1
    assert train["cv_mean"] > 0.6, (name, train["cv_mean"])  # logistic regression gets ~0.70 on this sample
    assert test["roc_auc"] > 0.5, (name, test["roc_auc"])
    assert (root / paths.IMPORTANCE).exists() and (root / paths.FAIRNESS_METRICS).exists()
    assert json.loads((root / paths.RISK_COVERAGE).read_text())[-1]["risk"] == pytest.approx(1 - test["accuracy"])
    mitigation = json.loads((root / paths.FAIRNESS_METRICS).read_text())["mitigation"]
    assert set(mitigation["attributes"]) == {"female", "black"}, name  # fitted, or the reason it could not be
