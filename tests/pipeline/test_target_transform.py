"""model.target_transform: the log target chosen by cross-fitted evidence in the target's own units (taken on a
multiplicative target, refused on an additive one, never tried with negative values, forced or switched off by name;
medians for mae), and the pipeline on a skewed price-like file: no prediction or interval end below 0, the intervals'
coverage in every fifth of the predictions in test.json, the card and the gate, the same predictions in every
consumer of the deployed regressor."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import MODEL_STAGES, REGRESSION_DATA, SHARED_STAGES, make_multiclass_project, run_stages

from mllib.metrics import get_scorer
from mllib.model_selection import FoldData, KFold
from pipeline.core import paths
from pipeline.core.errors import PipelineError
from pipeline.core.task import Target
from pipeline.steps.target_transform import choose_scale
from pipeline.steps.training import search_model

MODEL_CFG = {"params": {}}
SEARCH = {"method": "grid", "grid": {"ridge": {"lam": [0.1, 10.0]}}, "n_iter": 1}


def regression_target(column: str = "price") -> Target:
    return Target(column=column, task="regression", classes=[], reason="")


def features(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, 3))


def choice(X, y, setting="auto", scoring="r2"):
    """choose_scale on ridge's searches of y and of log(y + c) on the same five folds."""
    splits = list(KFold(n_splits=5, shuffle=True, random_state=0).split(X, y))
    fold_data, scorer = FoldData(X, y, splits), get_scorer(scoring)
    search = {**SEARCH}

    def search_on(settings=None):
        return search_model("ridge", MODEL_CFG, search, fold_data, scorer, 0, None, settings)

    return choose_scale(setting, regression_target(), y, splits, scorer, search_on(), search_on)


def test_auto_takes_log_on_a_multiplicative_target():
    X = features(1500, 0)
    y = np.exp(5 + X @ [1.0, -0.5, 0.3] + 0.4 * np.random.default_rng(1).normal(size=1500))
    record, (results, best) = choice(X, y)
    c = record.comparison
    assert record.chosen == "log" and record.fitted_on == "log(price)" and record.shift == 0.0
    assert record.back_transform == "mean" and record.floor == 0.0
    assert c.gain > c.standard_error and c.log.mean > c.plain.mean
    assert results[best]["params"] == c.log.params and "log(price) r2" in record.statement
    assert (
        "it beats price by more than one standard error" in record.statement and "Duan's smearing" in record.statement
    )


def test_auto_keeps_the_plain_target_on_an_additive_one_and_says_what_log_would_give():
    X = features(1500, 2)
    y = 40 + X @ [3.0, -2.0, 1.0] + np.random.default_rng(3).normal(size=1500)  # positive, additive noise
    record, _ = choice(X, y)
    c = record.comparison
    assert record.chosen == "none" and record.fitted_on == "price" and record.shift is None
    assert not c.gain > c.standard_error
    assert record.statement.startswith("price as it is: the log target does not beat it by more than one standard")
    assert f"log(price) r2 {c.log.mean:.4f} against price {c.plain.mean:.4f}" in record.statement


def test_settings_negative_values_and_the_median_for_mae():
    X = features(600, 4)
    y = np.exp(2 + X @ [1.0, 0.0, 0.0] + 0.3 * np.random.default_rng(5).normal(size=600))
    forced, _ = choice(X, 40 + X @ [3.0, -2.0, 1.0], setting="log")
    assert forced.chosen == "log" and "fitted as model.target_transform: log asks" in forced.statement
    off, _ = choice(X, y, setting="none")
    assert off.chosen == "none" and off.comparison is not None and "not tried" in off.statement  # ABSENT is falsy
    assert choice(X, y, scoring="mae")[0].back_transform == "median"
    with_zeros = np.where(np.arange(600) % 7 == 0, 0.0, y)
    zeros, _ = choice(X, with_zeros, setting="log")
    assert zeros.shift == float(with_zeros[with_zeros > 0].min()) and zeros.fitted_on.startswith("log(price + ")
    negative = y - 3.0
    record, _ = choice(X, negative)
    assert record.chosen == "none" and record.floor is None and "negative training values" in record.statement
    with pytest.raises(PipelineError, match="model.target_transform is 'log' but the target 'price' has"):
        choice(X, negative, setting="log")
    binary = Target(column="y", task="binary", classes=[0, 1], reason="")
    with pytest.raises(PipelineError, match="classes have no log"):
        choose_scale("log", binary, y, [], get_scorer("roc_auc"), ([], 0), None)
    assert choose_scale("auto", binary, y, [], get_scorer("roc_auc"), ([], 0), None) == (None, ([], 0))


def skewed_frame(n_groups: int = 300, seed: int = 11) -> pd.DataFrame:
    """A price-like target: exp of a linear signal with multiplicative noise (positive, right-skewed), on the columns
    of the generated regression file."""
    from conftest import regression_frame

    frame = regression_frame(n_groups, seed).drop(columns=["spend"])
    rng = np.random.default_rng(seed)
    effect = frame["region"].map({"north": 0.0, "south": 0.6, "east": -0.4, "west": 0.2}).to_numpy()
    log_price = 6 + 0.9 * frame["x1"] - 0.6 * frame["x2"] + effect + 0.45 * rng.normal(size=len(frame))
    frame["price"] = np.exp(log_price).round(2)
    return frame


@pytest.fixture(scope="module")
def skewed_run(tmp_path_factory):
    """The whole pipeline in-process on the skewed file with ridge (model.name), as a user would bring it."""
    root = tmp_path_factory.mktemp("skewed")
    csv = root / "price.csv"
    skewed_frame().to_csv(csv, index=False)
    data = {**REGRESSION_DATA, "path": "data/raw/price.csv", "target": "price"}
    fast = {"split.n_splits": 3, "assess.leakage": False, "assess.learning_curve": False, "assess.nested": False,
            "explain.n_repeats": 2, "explain.n_rows": 20, "model.name": "ridge"}  # fmt: skip
    make_multiclass_project(root, csv, data, **fast)
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, [*SHARED_STAGES, *MODEL_STAGES, "report"])
    return root


def read(root, path) -> dict:
    return json.loads((root / path).read_text())


def test_a_skewed_target_gets_no_negative_prediction_and_intervals_that_hold_in_every_fifth(skewed_run):
    root = skewed_run
    train, test = read(root, paths.TRAIN_METRICS), read(root, paths.TEST_METRICS)
    predictions = pd.read_parquet(root / paths.TEST_PREDICTIONS)
    assert (predictions["prediction"] >= 0).all() and (predictions["lower"] >= 0).all()
    assert train["target_transform"]["chosen"] == "log" and train["target_transform"]["floor"] == 0.0
    deployed = test["target_transform"]
    assert deployed["fitted_on"] == "log(price)" and deployed["predictions"].startswith("means: exp(f(x)) x ")
    assert deployed["clipped"] == 0 and deployed["lowest_unclipped"] > 0  # exp is positive: nothing to clip
    # f is held in the training range of log(price) before exp; the test predictions at its ends are counted
    low, high = np.log(pd.read_parquet(root / "data/processed/train.parquet")["price"].agg(["min", "max"]))
    held = f"f held in the training rows' range of log(price), [{low:.6g}, {high:.6g}], before exp ("
    assert held in deployed["predictions"]
    fifths = test["intervals"]["by_fifth"]
    assert [f["bin"] for f in fifths] == [1, 2, 3, 4, 5] and sum(f["n"] for f in fifths) == test["n"]
    assert test["intervals"]["computed_on"].startswith("log(price), ")
    for f in fifths:
        assert test["bootstrap"]["figures"][f"coverage_fifth_{f['bin']}"]["value"] == f["coverage"]
    assert min(f["coverage"] for f in fifths) >= 0.8  # ~60 test rows per fifth: 0.9 within about two standard errors
    widths = [f["mean_width"] for f in fifths]
    assert widths[4] > 3 * widths[0]  # the width follows the prediction
    calibration = read(root, paths.CALIBRATION_METRICS)["intervals"]
    assert calibration["scale"] == "log(price)" and calibration["score"] in ("absolute", "normalized")
    assert len(calibration["score_choice"]["fifths"]) == 5
    oof = pd.read_parquet(root / paths.OOF_CALIBRATED)
    assert (oof["prediction"] > 0).all()  # in price's units, as deployed


def test_every_consumer_reads_the_same_predictions_and_the_card_says_how(skewed_run):
    from mllib import io as mlio
    from pipeline.core.frames import feature_columns, raw_matrix, served_predictions

    root = skewed_run
    predictor = mlio.load(root / paths.PREDICTOR)
    test = pd.read_parquet(root / paths.TEST)
    numeric, categorical = feature_columns(test.columns, yaml.safe_load((root / "params.yaml").read_text())["data"])
    served = served_predictions(predictor, test, numeric, categorical)
    evaluated = pd.read_parquet(root / paths.TEST_PREDICTIONS)
    for column in ("prediction", "lower", "upper"):
        np.testing.assert_array_equal(served[column].to_numpy(), evaluated[column].to_numpy())
    np.testing.assert_array_equal(predictor.predict(raw_matrix(test, numeric, categorical)), evaluated["prediction"])
    attributions = read(root, paths.ATTRIBUTIONS)["shapley"]
    assert attributions["method"] == "linear" and attributions["output"].startswith("log(price), the model's log-scale")
    html = (root / "reports/report.html").read_text()
    assert "Target scale" in html and "log(price) r2" in html and "by fifth of the test predictions" in html
    assert "0 of " in html and "test predictions raised to 0" in html


def test_the_plain_target_is_clipped_and_counted(skewed_run, tmp_path, monkeypatch):
    """model.target_transform: none on the same file: ridge of the price itself predicts below 0 for the cheapest
    rows; the deployed regressor raises them to 0 and test.json counts them."""
    import shutil

    root = tmp_path / "plain"
    shutil.copytree(skewed_run, root)
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["model"]["target_transform"] = "none"
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run_stages(root, monkeypatch, ["train", "calibrate", "evaluate"])
    test = read(root, paths.TEST_METRICS)
    deployed = test["target_transform"]
    predictions = pd.read_parquet(root / paths.TEST_PREDICTIONS)
    assert deployed["fitted_on"] == "price" and deployed["floor"] == 0.0
    assert deployed["clipped"] > 0 and deployed["lowest_unclipped"] < 0
    assert deployed["clipped"] == int((predictions["prediction"] == 0).sum())
    assert (predictions["prediction"] >= 0).all() and (predictions["lower"] >= 0).all()
    assert test["intervals"]["computed_on"] in ("price, normalized residuals", "price, absolute residuals")
