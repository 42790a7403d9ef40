"""The two ways a user's file carries information the defaults used to throw away, each through `dvc repro` in a
scratch project edited in its `data` section only: a categorical column that is mostly missing (Ames' "NA" for no
pool) keeps its missing rows as a level of their own, and the model card says exactly what features.json says; a
price that drifts with time is predicted from the time when data.time_feature asks for it, beating the same pipeline
without it, and the served model (dates as text through MLflow's signature) answers as evaluate did."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest
from conftest import REGRESSION_DATA, TREND_DATA, edit_params, make_multiclass_project, regression_frame, trend_frame
from dvc_project import assert_served_equals_evaluate, git_repo, repro

pytestmark = pytest.mark.slow


def read(root, path: str) -> dict:
    return json.loads((root / path).read_text())


def card_line(root, name: str) -> str:
    page = (root / "reports/report.html").read_text()
    return html.unescape(re.search(rf"<tr><td>{name}</td><td>(.*?)</td></tr>", page).group(1))


def test_a_mostly_missing_label_is_its_own_level_and_the_card_says_so(tmp_path):
    frame = regression_frame()
    has_pool = np.random.default_rng(5).random(len(frame)) < 0.1
    frame["pool"] = np.where(has_pool, np.where(frame["x1"] > 0, "Ex", "Gd"), None)  # missing: no pool
    frame.loc[has_pool, "spend"] += 3.0  # a pool says something about the target
    csv = tmp_path / "spend.csv"
    frame.to_csv(csv, index=False, na_rep="NA")  # R's write.csv spelling, which pandas reads as missing
    data = {**REGRESSION_DATA, "categorical": ["region", "pool"]}
    root = git_repo(make_multiclass_project(tmp_path / "project", csv, data))
    repro(root, "report")
    features = read(root, "reports/features.json")
    n_train = features["final"]["n_fit_rows"]
    pool = features["missing"]["pool"]
    assert pool["column"] == "pool=(missing)" and "pool=(missing)" in features["final"]["features"]
    assert n_train * 0.85 < pool["values"] < n_train * 0.95  # counted in the training rows, not the file's
    lines = card_line(root, "Data changes")
    for change in features["changes"]:
        assert f"features: {change['change']}" in lines
    assert f"pool {pool['values']} with the constant '(missing)' -> column pool=(missing)" in lines


def test_the_time_as_a_feature_beats_the_pipeline_without_it_and_is_served(tmp_path):
    csv = tmp_path / "prices.csv"
    trend_frame().to_csv(csv, index=False)
    root = git_repo(make_multiclass_project(tmp_path / "project", csv, TREND_DATA))
    repro(root, "evaluate")
    without = read(root, "reports/metrics/test.json")["r2"]
    edit_params(root, "data.time_feature", "elapsed")
    repro(root)
    features = read(root, "reports/features.json")
    assert "month" in features["numeric"] and "month" in features["final"]["features"]
    assert features["time"]["feature"] == "days since the first training time 2015-01-01"
    test = read(root, "reports/metrics/test.json")
    assert without < 0 < 0.7 < test["r2"], (without, test["r2"])
    assert test["drift"]["columns"]["month"]["test"] == "none"  # new rows lie later by design: not a drift test
    assert "ridge is linear in the feature: it extends the trend" in card_line(root, "Time as a feature")
    assert_served_equals_evaluate(root, ["price"])
