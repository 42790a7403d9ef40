"""A missing label is information (Ames: "NA" in Pool.QC means no pool): under params.yaml's categorical imputer
(simple_imputer constant "(missing)") the rows without a label get a level of their own, `<column>=(missing)`, pooled
into `<column>=infrequent` like any level with fewer than min_frequency training rows; features.json's `missing`
and the model card's lines say which columns, how many values and which column they land in; most_frequent (the
old fill) stays available by name. The served model treats a missing label as that level."""

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
from pipeline.core.changes import feature_changes
from pipeline.core.frames import raw_matrix
from pipeline.serving.contract import ContractError, InputContract, limits_of, serve

FEATURES = yaml.safe_load((REPO / "params.yaml").read_text())["features"]


def pools(n: int = 100, missing: int = 90, seed: int = 0) -> pd.DataFrame:
    """Houses whose pool quality is missing when they have no pool (as Ames' file says "NA"), the rest Ex or Gd."""
    rng = np.random.default_rng(seed)
    quality = np.array(["Ex", "Gd"] * n, dtype=object)[:n]
    quality[:missing] = None
    area = rng.normal(100, 10, n)
    area[::7] = np.nan
    return pd.DataFrame({"area": area, "Pool.QC": quality, "y": rng.integers(0, 2, n)})


def fitted(frame: pd.DataFrame, cfg: dict = FEATURES):
    X = raw_matrix(frame, ["area"], ["Pool.QC"])
    transformer, names, counts = build.fit_features(cfg, X, frame["y"].to_numpy(), None, ["area"], ["Pool.QC"],
                                                    "the rows", 0)  # fmt: skip
    missing = build.missing_values(transformer, ["area"], ["Pool.QC"], counts)
    return X, transformer, list(names), missing


def test_a_missing_label_is_a_level_of_its_own_by_default():
    frame = pools()
    X, transformer, names, missing = fitted(frame)
    assert "Pool.QC=(missing)" in names
    Z = transformer.transform(X)
    own = Z[:, names.index("Pool.QC=(missing)")]
    assert own.tolist() == frame["Pool.QC"].isna().astype(float).tolist()  # the 90 houses without a pool, no other
    assert missing["Pool.QC"] == {
        "values": 90,
        "filled": "the constant '(missing)'",
        "indicator": None,
        "column": "Pool.QC=(missing)",
    }
    assert missing["area"] == {"values": 15, "filled": missing["area"]["filled"], "indicator": "area_missing"}
    assert missing["area"]["filled"].startswith("the median ")


def test_the_card_lines_say_what_features_json_says():
    _, _, _, missing = fitted(pools())
    lines = [c.change for c in feature_changes(missing, {}, 100, FEATURES)]
    area = missing["area"]["filled"]
    assert lines[0].endswith(f"of the 100 training rows: area 15 with {area}, indicator area_missing")
    assert lines[1] == (
        "missing values of categorical columns filled by simple_imputer (strategy 'constant' fill_value '(missing)'), "
        "fitted on the training rows of each split; of the 100 training rows: Pool.QC 90 with the constant "
        "'(missing)' -> column Pool.QC=(missing)"
    )


def test_a_rare_missing_level_is_pooled_like_any_rare_level():
    _, _, names, missing = fitted(pools(missing=3))  # 3 rows, below min_frequency 10
    assert "Pool.QC=(missing)" not in names and "Pool.QC=infrequent" in names
    assert missing["Pool.QC"]["column"] == "Pool.QC=infrequent"
    # the one pooled level is (missing): Ex and Gd hold 48 and 49 rows
    assert build.pooled_levels(fitted(pools(missing=3))[1], ["Pool.QC"]) == {"Pool.QC": {"levels": 3, "pooled": 1}}


def test_most_frequent_stays_available_and_says_where_the_values_went():
    cfg = {**FEATURES, "categorical_imputer": {"name": "simple_imputer", "params": {"strategy": "most_frequent"}}}
    _, _, names, missing = fitted(pools(), cfg)
    assert "Pool.QC=(missing)" not in names
    assert missing["Pool.QC"] == {"values": 90, "filled": "the most_frequent 'Ex'", "indicator": None,
                                  "column": "Pool.QC=Ex"}  # fmt: skip


def served(frame: pd.DataFrame, unseen: str = "ignore"):
    X, transformer, _, _ = fitted(frame)
    y = frame["y"].to_numpy()
    model = LogisticRegression().fit(transformer.transform(X), y)
    calibrator = PlattScaling().fit(decision_scores(model, transformer.transform(X)), y)
    predictor = DeployedPredictor(transformer, model, calibrator, classes=[0, 1]).fit()
    contract = InputContract.of(
        frame,
        ["area"],
        ["Pool.QC"],
        [],
        {"missing_sensitive": "group", "on_invalid": "fail"},
        {"handle_unknown": unseen},
        {"area": limits_of(frame["area"], None)},
        FEATURES["categorical_imputer"],
    )
    return predictor, contract


def test_the_served_model_scores_a_missing_label_as_its_level():
    frame = pools()
    predictor, contract = served(frame)
    assert contract.missing_level == "(missing)" and "(missing)" in contract.levels["Pool.QC"]
    rows = pd.DataFrame({"area": [100.0, 100.0], "Pool.QC": [None, "Ex"]})
    out, _ = serve(predictor, contract, rows)
    assert out["flags"].tolist() == ["Pool.QC missing (the level (missing))", ""]
    trained = predictor.predict_proba(raw_matrix(frame.iloc[:1].assign(area=100.0), ["area"], ["Pool.QC"]))
    assert out["probability_1"].iloc[0] == pytest.approx(trained[0, 1])  # as the training rows without a pool


def test_a_missing_label_the_training_rows_never_held_is_an_unseen_level():
    complete = pools(missing=0)
    rows = pd.DataFrame({"area": [100.0], "Pool.QC": [None]})
    predictor, contract = served(complete)
    out, _ = serve(predictor, contract, rows)
    assert out["flags"].tolist() == ["Pool.QC missing (the level (missing), unseen in training: no level's column)"]
    predictor, contract = served(complete, unseen="error")
    with pytest.raises(ContractError, match="column Pool.QC holds a missing label, which the training rows never"):
        serve(predictor, contract, rows)
