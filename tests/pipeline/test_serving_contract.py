"""The served model's input contract (pipeline/serving/contract.py) on a small fitted predictor: one line naming the
column and the type for a wrong type, a missing column and an empty request; extra columns ignored and named;
missing values and unseen categories scored as in training and flagged per row; a missing sensitive value by
validate.missing_sensitive (group: scored, quarantine: not scored, fail: refused)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from mllib.calibration import PlattScaling, decision_scores
from mllib.deploy import DeployedPredictor
from mllib.linear import LogisticRegression
from pipeline.core import build
from pipeline.core.frames import raw_matrix, served_predictions
from pipeline.serving.contract import ContractError, InputContract, limits_of, request_frame, serve

NUMERIC, CATEGORICAL = ["income", "female"], ["plan"]


def train_frame(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "income": rng.normal(10, 2, n),
            "female": rng.integers(0, 2, n),
            "plan": rng.choice(["a", "b", "c"], n),
            "y": rng.integers(0, 2, n),
        }
    )


@pytest.fixture(scope="module")
def predictor():
    """The default params' feature transformer, logistic regression and Platt scaling on a small frame."""
    train = train_frame()
    X = raw_matrix(train, NUMERIC, CATEGORICAL)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    features = build.feature_transformer(params["features"], NUMERIC, CATEGORICAL, seed=0).fit(X)
    y = train["y"].to_numpy()
    model = LogisticRegression().fit(features.transform(X), y)
    calibrator = PlattScaling().fit(decision_scores(model, features.transform(X)), y)
    return DeployedPredictor(features, model, calibrator, classes=[0, 1]).fit()


def contract(policy: str = "group", unseen: str = "ignore", on_invalid: str = "fail") -> InputContract:
    params = {
        "data": {"sensitive": ["female", "race"]},  # race is not a feature: not in the contract
        "validate": {"missing_sensitive": policy, "on_invalid": on_invalid, "extreme_factor": 1e10},
        "features": {"encoder": {"params": {"handle_unknown": unseen}}},
    }
    train = train_frame()
    return InputContract.of(
        train,
        NUMERIC,
        CATEGORICAL,
        params["data"]["sensitive"],
        params["validate"],
        params["features"]["encoder"]["params"],
        {c: limits_of(train[c], params["validate"]["extreme_factor"]) for c in NUMERIC},
    )


def rows() -> pd.DataFrame:
    return train_frame(5, seed=1).drop(columns="y")


def test_the_contract_lists_the_columns_levels_and_policies_and_survives_json():
    c = contract()
    assert c.columns == ["income", "female", "plan"] and c.sensitive == ["female"]
    assert c.levels == {"plan": ["a", "b", "c"]}
    assert InputContract.from_json(c.to_json()) == c


def test_clean_rows_are_the_predictors_answer_with_empty_flags(predictor):
    out, ignored = serve(predictor, contract(), rows())
    expected = served_predictions(predictor, rows(), NUMERIC, CATEGORICAL)
    pd.testing.assert_frame_equal(out.drop(columns="flags"), expected)
    assert out["flags"].tolist() == [""] * 5 and ignored == []


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda f: f.assign(income=["lots", 1, 2, 3, 4]),
            "wrong type in column(s) income (expected number, got 'lots')",
        ),
        (lambda f: f.drop(columns=["income", "plan"]), "missing column(s) income (number), plan (text)"),
        (lambda f: f.iloc[:0], "the request holds no rows"),
        (
            lambda f: f.assign(plan=[["a"], "b", "c", "a", "b"]),
            "wrong type in column(s) plan (expected text, got ['a'])",
        ),
        # the cases: a boolean is not a number; inf and 1e308 are not measurements (validate refuses both);
        # a repeated name and unnamed columns are one line, echoing neither the rows nor the schema
        (lambda f: f.assign(income=True), "wrong type in column(s) income (expected number, got True)"),
        (lambda f: f.assign(income=[1, True, 2, 3, 4]), "wrong type in column(s) income (expected number, got True)"),
        (lambda f: f.assign(income=[1, np.inf, 2, 3, 4]), "column income holds inf; send finite numbers"),
        (lambda f: f.assign(income=[1, "-Infinity", 2, 3, 4]), "column income holds -inf; send finite numbers"),
        (lambda f: f.assign(income=[1, 1e308, 2, 3, 4]), "column income holds 1e+308, a machine limit, an overflow or"),
        (lambda f: f.assign(income=[1, 2**63 - 1, 2, 3, 4]), "column income holds 9.223e+18, a machine limit"),
        (lambda f: f.assign(income=[1, 10**400, 2, 3, 4]), "wrong type in column(s) income (expected number, got 1000"),
        (lambda f: f.set_axis(["income", "income", "plan"], axis=1), "column name(s) income given more than once"),
        (lambda f: f.set_axis([0, 1, 2], axis=1), "the request names none of the model's 3 feature columns"),
    ],
)
def test_a_request_outside_the_contract_is_one_line_naming_the_column(predictor, edit, expected):
    with pytest.raises(ContractError) as info:
        serve(predictor, contract(), edit(rows()))
    message = str(info.value)
    assert message.startswith(expected) and "\n" not in message and len(message) < 300, message
    assert "0.5" not in message, "the request's values are not echoed"


def test_extra_columns_are_ignored_and_named(predictor):
    out, ignored = serve(predictor, contract(), rows().assign(y=1, zper=7))
    assert ignored == ["y", "zper"]
    pd.testing.assert_frame_equal(out, serve(predictor, contract(), rows())[0])


def test_missing_values_and_unseen_categories_are_scored_as_in_training_and_flagged(predictor):
    edited = rows().astype({"income": object, "plan": object})
    edited.loc[1, "income"] = None
    edited.loc[2, "plan"] = "zzz"
    out, _ = serve(predictor, contract(), edited)
    assert out["flags"].tolist()[:3] == [
        "",
        "income missing (imputed)",
        "plan='zzz' unseen in training (no level's column)",
    ]
    # the same numbers as the predictor's own answer: imputed like a training row, the unseen level encoded as none
    expected = served_predictions(predictor, edited, NUMERIC, CATEGORICAL)
    pd.testing.assert_frame_equal(out.drop(columns="flags"), expected)
    with pytest.raises(ContractError, match="plan holds 'zzz', a category the training rows never held"):
        serve(predictor, contract(unseen="error"), edited)


@pytest.mark.parametrize("policy", ["group", "quarantine", "fail"])
def test_a_missing_sensitive_value_follows_validates_policy(predictor, policy):
    edited = rows().astype({"female": object})
    edited.loc[3, "female"] = None
    if policy == "fail":
        with pytest.raises(ContractError, match=r"missing value in sensitive column\(s\) \['female'\]"):
            serve(predictor, contract(policy), edited)
        return
    out, _ = serve(predictor, contract(policy), edited)
    scored = out["prediction"].notna().tolist()
    assert scored == [True, True, True, policy == "group", True]
    assert "female missing" in out["flags"][3] and out["flags"][0] == ""


def test_numbers_as_text_are_numbers_and_booleans_are_not(predictor):
    """A text/csv request's cells arrive as text: text that reads as a number is that number, an empty cell missing."""
    as_text = rows().astype({"income": str, "female": str}).astype(object)
    as_text.loc[2, "income"] = " "
    out, _ = serve(predictor, contract(), as_text)
    expected = rows().astype({"income": float})
    expected.loc[2, "income"] = np.nan
    pd.testing.assert_frame_equal(out, serve(predictor, contract(), expected)[0])
    assert out["flags"][2] == "income missing (imputed)"


def test_a_number_beyond_the_training_range_is_scored_and_flagged(predictor):
    train = train_frame()
    far = rows().assign(income=[1.0, train["income"].max() + 100, train["income"].min() - 100, 10.0, 10.0])
    out, _ = serve(predictor, contract(), far)
    expected = served_predictions(predictor, far, NUMERIC, CATEGORICAL)
    pd.testing.assert_frame_equal(out.drop(columns="flags"), expected)
    assert "beyond the training range" in out["flags"][1] and "(extrapolated)" in out["flags"][2]
    assert out["flags"][3] == "" and "beyond the training range" in out["flags"][0]


def test_an_extreme_number_under_quarantine_is_not_scored_but_flagged(predictor):
    """validate.on_invalid quarantine: the row is set aside as validate would have done, the others answered."""
    extreme = rows().assign(income=[10.0, 1e308, -1e308, 10.0, 10.0])
    out, _ = serve(predictor, contract(on_invalid="quarantine"), extreme)
    assert out["prediction"].notna().tolist() == [True, False, False, True, True]
    assert out["flags"][1].startswith("income=1e+308 extreme") and "(not scored)" in out["flags"][2]


def test_every_shape_mlflow_hands_over_is_the_same_rows(predictor):
    """Without an input schema MLflow passes a DataFrame, a mapping of column arrays (instances) or records of 0-d
    arrays (inputs as records); each is read as the same rows, and a single record of scalars is one line."""
    frame = rows()
    expected = serve(predictor, contract(), frame)[0]
    records = [{k: np.array(v) for k, v in r.items()} for r in frame.to_dict(orient="records")]
    columns = {c: frame[c].to_numpy() for c in frame.columns}
    for shape in (records, columns):
        pd.testing.assert_frame_equal(serve(predictor, contract(), request_frame(shape))[0], expected)
    with pytest.raises(ContractError, match="cannot be read as rows of named columns"):
        request_frame({"income": 1.0, "female": 0, "plan": "a"})
