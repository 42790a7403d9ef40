"""data.time_feature: the time as a model feature under forward chaining (off by default). On prices that drift
upward (tests/conftest.trend_frame) the time must be among the features and the test score must beat the model
without it; it reaches the served contract (date text, a row without a readable time refused, a later time flagged),
the drift tests leave it out, and the model card says what the model does beyond the training times."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, TREND_DATA, set_dotted, trend_frame
from partial_records import typed

from pipeline.core import build
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError
from pipeline.core.frames import feature_columns, raw_matrix, time_input
from pipeline.core.task import Target
from pipeline.reporting import card
from pipeline.serving.contract import ContractError, InputContract, limits_of, serve
from pipeline.steps import drift

PARAMS = yaml.safe_load((REPO / "params.yaml").read_text())
FIRST_TEST_MONTH = "2018-12-01"  # the last 13 of 60 months held out, as the latest share of time


def with_data(**changes) -> dict:
    params = copy.deepcopy(PARAMS)
    params["data"] = {**TREND_DATA, **changes}
    return params


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"time": None, "time_feature": "elapsed"}, "data.time_feature is 'elapsed' but data.time is null"),
        ({"time_feature": "days"}, "data.time_feature must be one of ['none', 'elapsed', 'index'], got 'days'"),
    ],
)
def test_the_key_is_validated_by_name(tmp_path, changes, message):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(with_data(**changes)))
    with pytest.raises(PipelineError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_params(path)


def test_the_time_is_the_last_numeric_input_only_when_asked():
    columns = ["month", "size", "region", "price"]
    assert feature_columns(columns, {**TREND_DATA, "time_feature": "none"}) == (["size"], ["region"])
    assert feature_columns(columns, {**TREND_DATA, "time_feature": "elapsed"}) == (["size", "month"], ["region"])


def held_out(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    return frame[frame["month"] < FIRST_TEST_MONTH], frame[frame["month"] >= FIRST_TEST_MONTH]


def test_score(kind: str) -> tuple[list, float]:
    """Test R^2 of params.yaml's ridge on the trend's features fitted on the earlier months (time feature `kind`)."""
    data = {**TREND_DATA, "time_feature": kind}
    train, test = held_out(trend_frame())
    numeric, categorical = feature_columns(train.columns, data)
    X_train, X_test = raw_matrix(train, numeric, categorical), raw_matrix(test, numeric, categorical)
    y_train, y_test = train["price"].to_numpy(), test["price"].to_numpy()
    features, names, _ = build.fit_features(PARAMS["features"], X_train, y_train, None, numeric, categorical,
                                            "the training rows", 0, time_input(data))  # fmt: skip
    model = build.model("ridge", {"params": {}}, 0, lam=1.0).fit(features.transform(X_train), y_train)
    residual = y_test - model.predict(features.transform(X_test))
    return names, 1 - residual @ residual / ((y_test - y_test.mean()) ** 2).sum()


test_score.__test__ = False  # a helper, not a test


def test_the_time_feature_is_a_feature_and_beats_the_model_without_it():
    names, with_time = test_score("elapsed")
    without_names, without = test_score("none")
    assert "month" in names and "month" not in without_names
    assert without < 0 < 0.7 < with_time  # the level the later months reached: unknown without the time
    assert test_score("index")[1] == pytest.approx(with_time, abs=0.02)  # monthly steps: nearly the same feature


def served_contract(frame: pd.DataFrame) -> InputContract:
    return InputContract.of(
        frame,
        ["size", "month"],
        ["region"],
        [],
        {"missing_sensitive": "group", "on_invalid": "fail"},
        {"handle_unknown": "ignore"},
        {"size": limits_of(frame["size"], 1e10), "month": [16801.0, 17836.0, None]},  # 2016-01-01 .. 2018-11-01
        PARAMS["features"]["categorical_imputer"],
        ("month", "days"),
    )


class Echo:
    """A regressor that returns its raw time input: what the contract hands the model."""

    def predict(self, X):
        return X.numeric[:, 1]

    def predict_interval(self, X):
        return self.predict(X), self.predict(X)


def test_the_served_model_takes_dates_and_flags_a_time_after_the_training_times():
    contract = served_contract(trend_frame())
    assert contract.kind("month") == "text" and contract.kind("size") == "number"
    rows = pd.DataFrame({"size": [100.0, 90.0], "month": ["2018-11-01", "2019-03-01"], "region": ["north", "south"]})
    out, _ = serve(Echo(), contract, rows)
    assert out["prediction"].tolist() == [17836.0, 17956.0]  # days since 1970-01-01, as raw_matrix reads the file
    assert out["flags"].tolist() == ["", "month=2019-03-01 after the last training time 2018-11-01 (extrapolated)"]
    assert contract.typed(rows)["month"].tolist() == ["2018-11-01", "2019-03-01"]
    with pytest.raises(ContractError, match=r"column month \(data.time, a model feature\) holds 'soon', not a time"):
        serve(Echo(), contract, rows.assign(month=["2018-11-01", "soon"]))
    with pytest.raises(ContractError, match="holds a missing value, not a time; send a date"):
        serve(Echo(), contract, rows.assign(month=["2018-11-01", None]))


def test_the_drift_tests_leave_the_time_out_and_say_so():
    train, test = held_out(trend_frame())
    cfg = {"max_rows": None, "fdr": 0.05, "domain_classifier": "none"}
    found = drift.compare(train, test, ["size", "month"], ["region"], cfg, 0, "test rows", time="month")
    assert found["columns"]["month"] == {"test": "none", "p_value": None, "statement": drift.TIME_NOT_TESTED}
    assert found["not_evaluated"] == ["month"] and "month" not in found["flagged"]


@pytest.mark.parametrize(
    ("model", "behaviour"),
    [
        ("ridge", "ridge is linear in the feature: it extends the trend it learned beyond the last training time"),
        ("gradient_boosting_regressor", "gradient_boosting_regressor is a tree model: beyond the last training time it "
                                        "predicts what it predicts at the last training period (a level, no trend)"),
    ],
)  # fmt: skip
def test_the_card_states_the_feature_and_the_extrapolation(model, behaviour):
    time = {"column": "month", "kind": "elapsed", "unit": "days", "first": "2015-01-01", "last": "2018-11-01",
            "step": 31.0, "feature": "days since the first training time 2015-01-01"}  # fmt: skip
    r = typed({
        "features": {"time": time},
        "split": {"time": {"test_span": ["2018-12-01", "2019-12-01"]}},
        "train": {"model": model},
        "target": Target("regression", "price", None, "set by data.task"),
    })  # fmt: skip
    assert card.time_feature(r) == {
        "Time as a feature": "month (data.time_feature elapsed): days since the first training time 2015-01-01, "
        "fitted on each split's training times. The test period (2018-12-01 to 2019-12-01) lies beyond every training "
        "time (the last 2018-11-01), so the model extrapolates there, as it will for every row it scores when "
        f"deployed: {behaviour}"
    }
    assert card.time_feature(typed({"features": {"numeric": ["size"]}})) == {}


def test_without_the_key_nothing_changes():
    params = copy.deepcopy(PARAMS)
    set_dotted(params, "data.time", "month")
    assert time_input(params["data"]) is None  # data.time_feature: none, the default
    assert np.array_equal(raw_matrix(trend_frame().head(), ["size"], ["region"]).numeric, [[v] for v in
                          trend_frame().head()["size"]])  # fmt: skip
