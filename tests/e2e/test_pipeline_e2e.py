"""The whole pipeline through DVC and MLflow, in scratch git repositories, for three files a user might bring:
a sample of the default data (binary, grouped by person), a generated three-class file with text labels and a
generated regression file (tests/conftest.py: multiclass_frame, regression_frame), the last two brought by editing
only the `data` section of params.yaml. (Binary files without a group column are the real-data corpus's: titanic,
churn, caravan, breast_cancer, smarket, test_real_data.py; the group-less monitor is test_monitor_issue62.py's.)
`dvc repro` runs every stage to the report and the MLflow run; a second run has nothing to do; a params change
invalidates exactly the stages after the one that reads it; MLflow holds one parent run with a child per search
candidate and a pyfunc model whose output is the deployed predictor's: with a cost matrix and a reject threshold
set, the served decisions equal the evaluate stage's on
every test row."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, make_multiclass_project, make_project, make_regression_project
from dvc_project import assert_served_equals_evaluate, git_repo, sh, tracked

pytestmark = pytest.mark.slow

# name -> (how the project is made, the columns that are not features, a cost matrix for its classes)
SCENARIOS = {
    "binary_grouped": ({}, ["_row_id", "binexp", "zper"], [[0, 5], [1, 0]]),
    "multiclass": ({}, ["_row_id", "grade", "pid"], [[0, 4, 1], [4, 0, 1], [2, 2, 0]]),
    "regression": ({}, ["_row_id", "spend", "pid"], None),
}


def downstream(stage: str) -> set[str]:
    """`stage` and every stage that depends on its outputs, directly or not (from dvc.yaml)."""
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    outs = {
        s: [o if isinstance(o, str) else next(iter(o)) for k in ("outs", "metrics", "plots") for o in spec.get(k, [])]
        for s, spec in stages.items()
    }
    found, frontier = {stage}, [stage]
    while frontier:
        current = frontier.pop()
        for s, spec in stages.items():
            if s not in found and any(
                d == o or d.startswith(o + "/") or o.startswith(d + "/")
                for d in spec.get("deps", [])
                for o in outs[current]
            ):
                found.add(s)
                frontier.append(s)
    return found


def data_section_only(root: Path) -> None:
    """The project's params.yaml differs from the repository's in the data section only (and compute.n_workers, which
    the tests' projects pin to 1: conftest.make_project; the results do not depend on it)."""
    ours, theirs = (yaml.safe_load(p.read_text()) for p in (root / "params.yaml", REPO / "params.yaml"))
    ours["compute"]["n_workers"] = theirs["compute"]["n_workers"]
    assert {k: v for k, v in ours.items() if k != "data"} == {k: v for k, v in theirs.items() if k != "data"}


@pytest.fixture(scope="module", params=list(SCENARIOS))
def scenario(request, tmp_path_factory, sample_csv, multiclass_csv, regression_csv):
    name = request.param
    overrides, not_features, cost = SCENARIOS[name]
    root = tmp_path_factory.mktemp(name)
    if name == "multiclass":
        make_multiclass_project(root, multiclass_csv)
    elif name == "regression":
        make_regression_project(root, regression_csv)
    else:
        make_project(root, sample_csv, **overrides)
    if name != "binary_grouped":
        data_section_only(root)
    git_repo(root)
    result = sh(root, "dvc", "repro")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return name, root, not_features, cost


def status(root: Path) -> set[str]:
    result = sh(root, "dvc", "status", "--json")
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout or "{}"))


def read(root: Path, path: str) -> dict:
    return json.loads((root / path).read_text())


def test_repro_produces_every_report(scenario):
    name, root, _, _ = scenario
    validation, test = read(root, "reports/validation.json"), read(root, "reports/metrics/test.json")
    split = read(root, "reports/split.json")
    if name == "multiclass":
        assert validation["task"] == test["task"] == "multiclass" and "3 classes" in validation["task_reason"]
        assert test["classes"] == ["high", "low", "mid"] and 0.6 < test["roc_auc_ovr"] <= 1
        assert len(test["confusion"]["matrix"]) == 3 and set(test["per_class"]) == {"high", "low", "mid"}
        assert read(root, "reports/metrics/fairness.json")["mitigation"]["applied"] is False
        assert read(root, "reports/attributions.json")["shapley"]["per_class"]
    elif name == "regression":
        assert validation["task"] == test["task"] == "regression" and "non-integer" in validation["task_reason"]
        assert test["r2"] > 0.8 and test["intervals"]["deployed"] == "cv_plus"
        assert test["intervals"]["cv_plus"]["coverage"] > 0.8 and test["intervals"]["split"]["coverage"] > 0.8
        fairness = read(root, "reports/metrics/fairness.json")
        assert fairness["mitigation"]["applied"] is False and "mae" in fairness["attributes"]["sex"]["gaps"]
        assert read(root, "reports/attributions.json")["shapley"]["output"] == "prediction"
        shown = test["residual_plot"]
        assert shown["rows"] == len(read(root, "reports/plots/residuals.json")) == shown["of"] == test["n"]
        assert f"The figures show every test row ({test['n']})." in (root / "reports/report.html").read_text()
    else:
        assert validation["task"] == test["task"] == "binary" and 0.6 < test["roc_auc"] <= 1
    strategy = {"regression": "group"}.get(name, "stratified_group")
    assert split["strategy"] == strategy and split["strategy_setting"] == "auto"
    trained = read(root, "reports/metrics/train.json")  # model.name auto: the task's default set compared
    from pipeline.core.task import KINDS

    default = list(KINDS[validation["task"]].default_models)
    assert [m["model"] for m in trained["comparison"]["models"]] == default and trained["model"] in default
    if name != "regression":
        assert test["conformal"]["coverage"] > 0.8
    assert (root / "reports/report.html").read_text().startswith("<!DOCTYPE html>")
    assert tracked(root)["run_id"]
    assert status(root) == set()


def test_second_repro_does_nothing(scenario):
    _, root, _, _ = scenario
    result = sh(root, "dvc", "repro")
    assert result.returncode == 0
    assert "Running stage" not in result.stdout
    assert "up to date" in result.stdout


@pytest.mark.parametrize(
    "key, value, first_stage",
    [
        ("search.grid.logistic_regression.lam", [0.5, 5.0], "train"),
        ("model.params", {"logistic_regression": {"max_iter": 50}}, "train"),
        ("calibration.method", "none", "calibrate"),
        ("calibration.n_bins", 15, "calibrate"),
        ("decision.reject_threshold", 0.7, "calibrate"),
    ],
)
def test_params_change_invalidates_only_later_stages(scenario, key, value, first_stage):
    _, root, _, _ = scenario
    original = (root / "params.yaml").read_text()
    params = yaml.safe_load(original)
    *parents, leaf = key.split(".")
    node = params
    for p in parents:
        node = node[p]
    node[leaf] = value
    try:
        (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        changed = status(root)
    finally:
        (root / "params.yaml").write_text(original)
    assert first_stage in changed
    assert changed <= downstream(first_stage), f"{key} also invalidates {sorted(changed - downstream(first_stage))}"


def test_mlflow_parent_run_children_and_model(scenario):
    _, root, not_features, _ = scenario
    record = tracked(root)
    client, parent = record["client"], record["run"]
    test = read(root, "reports/metrics/test.json")
    assert parent.data.tags["pipeline.role"] == "parent" and parent.data.tags["task"] == test["task"]
    assert parent.data.params["split.n_splits"] == "5"
    headline = {"binary": "roc_auc", "multiclass": "roc_auc_ovr", "regression": "r2"}[test["task"]]
    assert parent.data.metrics[f"test.{headline}"] == pytest.approx(test[headline])
    children = client.search_runs(
        [record["experiment_id"]], filter_string=f"tags.`mlflow.parentRunId` = '{record['run_id']}'"
    )
    search, compared = read(root, "reports/search.json"), read(root, "reports/metrics/train.json")["comparison"]
    # the chosen model's candidates, and one run per model compared (model.name auto)
    assert len(children) == len(search["candidates"]) + len(compared["models"])
    assert all(len(client.get_metric_history(c.info.run_id, f"valid_{headline}")) == 5 for c in children)
    assert len(client.search_logged_models(experiment_ids=[record["experiment_id"]])) == 1
    assert_served_equals_evaluate(root, not_features)


def test_tracking_the_same_state_again_reuses_the_run(scenario):
    _, root, _, _ = scenario
    before = tracked(root)["run_id"]
    result = sh(root, "dvc", "repro", "-f", "-s", "track")
    assert result.returncode == 0, result.stderr
    assert "already recorded" in result.stdout and tracked(root)["run_id"] == before


def test_served_decisions_equal_evaluate_with_a_cost_matrix_and_reject_option(scenario):
    """Last in the module: it changes the decision section (regression: the interval method) and reruns the
    pipeline from calibrate on."""
    name, root, not_features, cost = scenario
    if name == "regression":
        params = yaml.safe_load((root / "params.yaml").read_text())
        params["calibration"]["interval_method"] = "split"
        (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        result = sh(root, "dvc", "repro")
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        intervals = read(root, "reports/metrics/test.json")["intervals"]
        assert intervals["deployed"] == "split"
        predictions = pd.read_parquet(root / "data/predictions/test.parquet")
        width = (predictions["upper"] - predictions["lower"]).to_numpy()
        np.testing.assert_allclose(width, width[0])  # split conformal: one width for every row
        assert_served_equals_evaluate(root, not_features)
        return
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["decision"].update(cost_matrix=cost, reject_threshold=0.6)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    result = sh(root, "dvc", "repro")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Stage 'train' didn't change" in result.stdout and "Running stage 'calibrate'" in result.stdout
    test = read(root, "reports/metrics/test.json")
    assert test["decision"]["rule"] == "cost_matrix" and test["decision"]["cost_matrix"] == cost
    predictions = pd.read_parquet(root / "data/predictions/test.parquet")
    P = predictions[[c for c in predictions if c.startswith("proba_")]].to_numpy()
    expected_cost = P @ np.asarray(cost, dtype=float).T  # R(a | x) = sum_j cost[a, j] p_j
    decision = predictions["prediction"].to_numpy()
    if name == "multiclass":
        np.testing.assert_array_equal(decision, np.argmin(expected_cost, axis=1))
    else:  # p >= t, with t the Bayes threshold: the minimum-cost decision, ties to the positive class
        assert (expected_cost[np.arange(len(P)), decision] <= expected_cost.min(axis=1) + 1e-12).all()
    accepted = predictions["accepted"].to_numpy()
    np.testing.assert_array_equal(accepted, P.max(axis=1) >= 0.6)
    assert 0 < accepted.mean() < 1  # both kinds of rows are compared below
    assert_served_equals_evaluate(root, not_features)


def test_monitor_passes_test_rows_and_fails_a_shifted_batch(scenario):
    """The monitor end to end: the test rows as a labelled batch pass every check and log a run tagged with the
    registered version; the same rows with one numeric column moved by two standard deviations (unlabelled) exit 1
    with one line naming the column, and carry the label-free estimate (classification). (Half of the multiclass
    file's test groups, 73 rows, raised one drift flag at adjusted p 0.045: the 5% family-wise rate at work, which
    tests/pipeline/test_drift_checks.py measures over many batches.)"""
    name, root, not_features, _ = scenario
    batch = pd.read_parquet(root / "data/processed/test.parquet").drop(columns=["_row_id"])
    test = batch
    (root / "data/new").mkdir(exist_ok=True)
    batch.to_csv(root / "data/new/ok.csv", index=False)
    result = sh(root, "python", "-m", "pipeline.stages.monitor", "data/new/ok.csv")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    record = read(root, "reports/monitor.json")
    assert record["failures"] == [] and record["labels"]["rows"] == len(batch)
    assert {c["passed"] for c in record["checks"]} == {True} and len(record["checks"]) >= 2
    assert record["mlflow"]["version"] == str(tracked(root)["version"].version)
    assert "Verdict" in (root / "reports/monitor.html").read_text()

    column = read(root, "reports/features.json")["numeric"][0]
    shifted = batch.drop(columns=[not_features[1]]).copy()
    shifted[column] = shifted[column] + 2 * test[column].std()
    shifted.to_csv(root / "data/new/shifted.csv", index=False)
    result = sh(root, "python", "-m", "pipeline.stages.monitor", "data/new/shifted.csv")
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 1 and len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0].startswith("error: monitor: data/new/shifted.csv FAILS: ") and repr(column) in lines[0]
    record = read(root, "reports/monitor.json")
    assert record["labels"] is None and column in record["drift"]["flagged"]
    if name != "regression":
        low, high = record["estimate"]["interval"]
        assert low <= record["estimate"]["estimate"] <= high
