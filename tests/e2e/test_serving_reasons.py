"""Reasons in every answer, for the additive model and a tree ensemble as for the linear one (test_serving.py):
through MLflow's scoring server, each row's reasons are its largest Shapley values per raw column, equal to the
explain stage's attributions for the same rows (1e-9: one computation, pipeline/steps/shapley_values.py), and those
add up, with the expected value, to the model's log-odds (TreeSHAP: the additive model's terms and the trees)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import SAMPLE_POLICY, make_project
from dvc_project import git_repo, repro, scoring_server, tracked
from test_serving import NAME, post

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["explainable_boosting", "gradient_boosting"])
def served(request, tmp_path_factory, sample_csv):
    """A project whose model.name is the parameter: its attributions, the explained raw rows and the served URL."""
    import mlflow

    root = tmp_path_factory.mktemp(request.param)
    git_repo(make_project(root, sample_csv, **SAMPLE_POLICY, **{"model.name": request.param}))
    repro(root)
    attributions = json.loads((root / "reports/attributions.json").read_text())
    raw = pd.read_csv(root / "data/raw/sample.csv")
    test = pd.read_parquet(root / "data/processed/test.parquet")
    rows = raw.loc[test["_row_id"]].reset_index(drop=True).iloc[attributions["rows"]]
    mlflow.set_tracking_uri(tracked(root)["tracking_uri"])
    with scoring_server(mlflow.pyfunc.load_model(f"models:/{NAME}@candidate")) as url:
        yield attributions, rows.drop(columns=["binexp", "zper"]), url


def test_the_reasons_equal_the_explain_stages_exact_values(served):
    attributions, rows, url = served
    shap = attributions["shapley"]
    assert shap["method"] == "tree", shap["method"]  # exact: the additive model's terms and the trees are trees
    assert shap["additivity_error_max_relative"] < 1e-9, shap["additivity_error_max_relative"]
    status, answer = post(url, rows)
    assert status == 200, answer
    values, columns = np.asarray(shap["values"]), attributions["columns"]
    for i, reasons in enumerate(pd.DataFrame(answer["predictions"])["reasons"]):
        assert [r["feature"] for r in reasons] == [
            columns[j] for j in np.argsort(-np.abs(values[i]), kind="stable")[:3]
        ]
        for r in reasons:
            assert r["contribution"] == pytest.approx(values[i][columns.index(r["feature"])], rel=0, abs=1e-9)
            raw = rows.iloc[i][r["feature"]]
            assert (r["value"] is None and pd.isna(raw)) or str(r["value"]) == str(raw) or r["value"] == float(raw)
