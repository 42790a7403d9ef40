"""The real-data corpus (tests/real_data.py): twenty-three files (twenty-one public datasets, two asked twice: a
question each, or a market file run as if unordered and with data.time) of the shapes users bring, each run through
every stage to the MLflow run by editing only the `data` section of params.yaml. Checked for each: the task validate
infers, the split strategy that follows from the group column, that the rows the model saw are the rows the data
kept (no step removed rows the model card does not list; identical rows of a file without an id are kept), the
served model's output equals the evaluate stage's on the raw test rows, no version becomes champion on decisions
that name one class or on a headline whose interval reaches below the bound, and a second `dvc repro` has nothing
to do.
The headline metrics beside a linear model, HistGradientBoosting and LightGBM on the same rows are
benchmarks/bench_real_data.py's (benchmarks/results/real_data.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO
from dvc_project import assert_served_equals_evaluate, git_repo, sh, tracked
from real_data import CORPUS, export

from mllib.conformal import quantile_bins

pytestmark = pytest.mark.slow


def make_real_data_project(root: Path, dataset) -> Path:
    """params.yaml is the repository's with the `data` section for the file; the file under data/raw/."""
    export(root / "data/raw", [dataset.name])
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["data"] = dataset.data_section(f"data/raw/{dataset.name}.csv")
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return git_repo(root)


@pytest.fixture(scope="module", params=CORPUS, ids=[d.name for d in CORPUS])
def project(request, tmp_path_factory):
    dataset = request.param
    root = make_real_data_project(tmp_path_factory.mktemp(dataset.name), dataset)
    result = sh(root, "dvc", "repro")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return dataset, root, result.stdout + result.stderr


def read(root: Path, path: str) -> dict:
    return json.loads((root / path).read_text())


def test_task_and_split_follow_the_data(project):
    dataset, root, _ = project
    assert read(root, "reports/validation.json")["task"] == dataset.task
    strategy = read(root, "reports/split.json")["strategy"]
    if dataset.time:
        assert strategy == "forward_chaining"
    elif dataset.group:
        assert strategy in ("group", "stratified_group")
    else:
        assert strategy in ("kfold", "stratified")
    assert read(root, "reports/metrics/test.json")["task"] == dataset.task


def test_rows_the_model_saw_are_the_rows_kept(project):
    dataset, root, _ = project
    validation, cleaning = read(root, "reports/validation.json"), read(root, "reports/cleaning.json")
    split = read(root, "reports/split.json")
    left_out = split["time"]["rows_in_gap"] + split["time"]["rows_purged"] if split["time"] else 0
    assert split["rows"]["train"] + split["rows"]["test"] + left_out == cleaning["rows_out"]
    removed = cleaning["rows_in"] - cleaning["rows_out"]
    assert removed == sum(c["rows"] for c in cleaning["changes"])  # every removal is a record for the card
    if not dataset.group:  # no id column: identical rows may be different people, so none is removed by default
        assert removed == 0 and cleaning["duplicate_rows"]["action"] == "kept"
    assert validation["rows_in"] == len(pd.read_csv(root / f"data/raw/{dataset.name}.csv"))
    html = (root / "reports/report.html").read_text()
    assert "Data changes" in html and "rows the model saw" in html


def test_time_order_is_named_or_kept(project):
    """The market file as a new user runs it: validate names Year and says a random split can flatter; with data.time
    every split fits on years before its validation year, the test set is the last year, and the card carries the
    temporal leakage estimate with its interval."""
    dataset, root, _ = project
    if not dataset.name.startswith("smarket"):
        pytest.skip("not a time-ordered file")
    time, split = read(root, "reports/validation.json")["time"], read(root, "reports/split.json")
    temporal = read(root, "reports/assessment.json")["temporal_leakage"]
    html = (root / "reports/report.html").read_text()
    calibration = read(root, "reports/metrics/calibration.json")
    if dataset.time is None:
        assert time["looks_like"][0]["column"] == "Year" and "set data.time: Year" in time["note"]
        assert split["time"] is None and temporal["statement"] == "not estimated: data.time is null"
        assert "rows_only_fitted" not in calibration
        return
    # each year's calibration map is fitted on the earlier years only: the first validated year's rows only fit maps
    fold = pd.read_parquet(root / "data/predictions/oof.parquet")["fold"]
    first = fold[fold >= 0].min()
    scored = pd.read_parquet(root / "data/predictions/oof_calibrated.parquet")
    assert calibration["rows_only_fitted"] == int((fold == first).sum()) > 0
    assert calibration["n_rows"] == int((fold > first).sum()) == len(scored) and (scored["fold"] > first).all()
    assert "map is fitted on the earlier periods only" in html  # the page escapes the apostrophe
    assert time["column"] == "Year" and time["distinct"] == 5
    assert split["time"]["cut"] == "2005" and split["time"]["train_span"] == ["2001", "2004"]
    assert all(s["last_fit"] < s["first_valid"] - split["time"]["gap"] for s in split["time"]["splits"])
    assert len(split["time"]["splits"]) == 3  # four training years: three forward-chaining splits, said in the run
    low, high = temporal["interval"]
    assert low <= temporal["inflation"] <= high and temporal["n_splits"] == 3
    assert "Temporal leakage" in html and "the latest period: Year from 2005 on" in html


def test_sensitive_attributes_are_audited(project):
    dataset, root, _ = project
    fairness = read(root, "reports/metrics/fairness.json")
    for attribute in dataset.sensitive:
        assert attribute in fairness["attributes"]
    features = read(root, "reports/features.json")
    for attribute in set(dataset.sensitive) & set(dataset.drop):  # audited, never a feature
        assert attribute not in features["numeric"] + features["categorical"]
    missing = read(root, "reports/validation.json")["missing_sensitive"]
    frame = pd.read_csv(root / f"data/raw/{dataset.name}.csv")
    assert missing == {
        a: {"rows": int(frame[a].isna().sum()), "action": "group"} for a in dataset.sensitive if frame[a].isna().any()
    }


def test_unlabelled_rows_are_quarantined_and_listed(project):
    dataset, root, _ = project
    validation = read(root, "reports/validation.json")
    unlabelled = int(pd.read_csv(root / f"data/raw/{dataset.name}.csv")[dataset.target].isna().sum())
    assert validation["rows_quarantined"] == unlabelled
    assert validation["missing_target"] == ({dataset.target: {"rows": unlabelled, "action": "quarantine"}}
                                            if unlabelled else {})  # fmt: skip
    if unlabelled:
        (change,) = validation["changes"]
        assert change["rows"] == unlabelled and "target_before" in change


def test_served_model_equals_evaluate(project):
    dataset, root, _ = project
    not_features = ["_row_id", dataset.target, *(c for c in (dataset.group, dataset.time) if c), *dataset.drop]
    assert_served_equals_evaluate(root, [c for c in not_features if c])
    assert tracked(root)["run_id"]


def test_the_champion_is_earned_with_its_uncertainty(project):
    """No file's version becomes champion on decisions of one class (the 6%-positive file's rule said "No" to every
    row and was champion) or on a headline whose interval reaches below min_headline (17 test rows at AUC 1.000
    were); when the gate refuses, the version's description names the failed checks."""
    dataset, root, _ = project
    test, version = read(root, "reports/metrics/test.json"), tracked(root)["version"]
    champion = version.tags["promotion.decision"] == "champion"
    figures = test["bootstrap"]["figures"]
    headline = {"binary": "roc_auc", "multiclass": "roc_auc_ovr", "regression": "r2"}[dataset.task]
    bound = yaml.safe_load((root / "params.yaml").read_text())["tracking"]["promotion"]["min_headline"][dataset.task]
    if champion:
        assert figures[headline]["interval"][0] >= bound
        assert test["task"] == "regression" or test["decision"]["against_no_skill"]["classes_decided"] >= 2
    else:
        assert "FAILS" in version.description and version.tags["promotion.failed"] != "none"
    if dataset.name in ("caravan", "khan"):  # the two cases
        assert not champion
        failed = version.tags["promotion.failed"]
        assert ("gain over the no-skill rule" in failed) if dataset.name == "caravan" else ("min_headline" in failed)


def test_second_repro_does_nothing(project):
    _, root, _ = project
    result = sh(root, "dvc", "repro")
    assert result.returncode == 0 and "Running stage" not in result.stdout


# a right-skewed, non-negative price (regression targets on a multiplicative scale): ggplot2's diamonds (53,940 stones,
# prices 326 to 18,823 dollars, the whole file). The issue measured on it a ridge predicting 773 of 10,788 test prices
# below 0 (the lowest -3,522) and intervals of one width, the prediction -/+ 1,531, holding 0.90 of the test rows but
# 0.66 in the top fifth of predicted prices (gradient boosting: 0.66 too). Checked: no predicted price and no interval
# end below 0, and the deployed intervals hold at least 0.85 of the test rows in every fifth of the predicted prices at
# calibration.interval_coverage 0.9, in test.json, the test predictions and the model card.
SKEWED_PRICE = "diamonds"


def skewed_price(project) -> Path:
    dataset, root, _ = project
    if dataset.name != SKEWED_PRICE:
        pytest.skip("the skewed-price checks are the diamonds file's")
    return root


def test_no_price_is_predicted_below_zero(project):
    root = skewed_price(project)
    predictions = pd.read_parquet(root / "data/predictions/test.parquet")
    test = read(root, "reports/metrics/test.json")
    assert len(predictions) == test["n"] == 10788
    assert (predictions["prediction"] >= 0).all() and (predictions["lower"] >= 0).all()
    deployed = test["target_transform"]
    assert deployed["floor"] == 0.0 and deployed["clipped"] == int((predictions["prediction"] == 0).sum())


def test_intervals_hold_in_every_fifth_of_the_predicted_prices(project):
    root = skewed_price(project)
    test = read(root, "reports/metrics/test.json")
    fifths = test["intervals"]["by_fifth"]
    assert [f["bin"] for f in fifths] == [1, 2, 3, 4, 5] and sum(f["n"] for f in fifths) == test["n"]
    assert min(f["coverage"] for f in fifths) >= 0.85, fifths
    predictions = pd.read_parquet(root / "data/predictions/test.parquet")
    y, lower, upper = (predictions[c].to_numpy() for c in ("y", "lower", "upper"))
    fifth = quantile_bins(predictions["prediction"].to_numpy())
    covered = (lower <= y) & (y <= upper)
    assert [float(covered[fifth == k].mean()) for k in range(5)] == [f["coverage"] for f in fifths]
    width = upper - lower
    assert width[fifth == 4].mean() > 2 * width[fifth == 0].mean()  # the width follows the price
    low = min(test["bootstrap"]["figures"][f"coverage_fifth_{k}"]["interval"][0] for k in range(1, 6))
    assert low >= 0.85 - 0.05  # the gate's reading: the worst fifth's lower end within max_coverage_shortfall


def test_the_card_says_the_scale_the_floor_and_each_fifth(project):
    root = skewed_price(project)
    train = read(root, "reports/metrics/train.json")["target_transform"]
    assert train["setting"] == "auto" and train["chosen"] in ("log", "none") and "comparison" in train
    html = (root / "reports/report.html").read_text()
    assert "Target scale" in html and "test predictions raised to 0" in html
    assert "by fifth of the test predictions" in html and train["fitted_on"] in html
    scale = read(root, "reports/metrics/test.json")["target_transform"]
    assert np.isfinite(scale["lowest_unclipped"]) and scale["attributions_add_up_on"]
