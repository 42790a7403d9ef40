"""Issue 62's monitor cases, each at its cause: labels compared as values and unseen labels named; a column gone
missing flagged by name; small batches tested exactly (Monte Carlo) instead of by the chi-squared law; one row per
person in the decided-class test; the columns' own Benjamini-Hochberg family; the most drifted column first on the
page; the label-free estimate's interval saying what it covers; PSI's empty-bin convention as Evidently's; a broken
predictor.json and an empty batch as one line each."""

import numpy as np
import pandas as pd
import pytest

from mllib.drift import chi_squared_test, population_stability_index
from pipeline.core.errors import PipelineError
from pipeline.core.evaluation_records import Drift
from pipeline.core.task import Target
from pipeline.reporting.monitor_page import _drift_rows
from pipeline.steps import batch_check
from pipeline.steps.drift import compare
from pipeline.steps.monitoring import expected_headline

BINARY = Target("binary", "y", [0, 1], "two classes")
NUMERIC = [f"x{i}" for i in range(6)]
OFF = {"fdr": 0.05, "domain_classifier": "none", "max_rows": 20000}


def frame(n: int, rng) -> pd.DataFrame:
    data = {c: rng.normal(size=n) for c in NUMERIC}
    data["plan"] = rng.choice(["a", "b", "c", "d", "e"], size=n, p=[0.55, 0.3, 0.1, 0.04, 0.01])
    return pd.DataFrame(data)


def test_labels_are_compared_as_values_and_unseen_labels_are_counted_by_name():
    with_gap = pd.DataFrame({"y": [1.0, 0.0, np.nan, 1.0]})  # one missing label: pandas reads the column as float
    read = batch_check.batch_labels(with_gap, BINARY, "y")
    assert read is not None and read.rows.tolist() == [0, 1, 3] and read.unseen == {}
    for foreign, spelled in ((7, "7"), ("yes", "yes")):
        read = batch_check.batch_labels(pd.DataFrame({"y": [foreign] * 5 + [1]}), BINARY, "y")
        assert read is not None and read.rows.tolist() == [5] and read.unseen == {spelled: 5}


def test_unseen_labels_fail_the_batch_with_one_line_naming_them():
    found = Drift.from_json(compare(frame(300, np.random.default_rng(0)), frame(50, np.random.default_rng(1)),
                                    NUMERIC, ["plan"], OFF, 0, "b"), "drift", "monitor")  # fmt: skip
    lines = batch_check.failures(found, [], {"7": 120}, BINARY, "y")
    assert lines == ["target 'y' holds labels the model was not trained on: '7' (120 rows), not its classes [0, 1]"]


def test_a_column_gone_missing_fails_by_name_without_a_domain_classifier():
    rng = np.random.default_rng(2)
    reference, batch = frame(800, rng), frame(200, rng)
    batch["x3"] = np.nan
    result = compare(reference, batch, NUMERIC, ["plan"], OFF, 0, "batch")
    assert result["flagged"] == ["x3"] and "x3" not in result["not_evaluated"]
    found = Drift.from_json(result, "drift", "monitor")
    line = batch_check.failures(found, [], {}, BINARY, "y")[0]
    assert line.startswith("column 'x3' drifted (missing share 0.0% in training, 100.0% here; Fisher's exact test")


def rare_levels(n: int, rng) -> pd.DataFrame:
    """A category with ten rare levels (1.5% each) beside two numbers."""
    levels = ["common", *(f"rare{k}" for k in range(10))]
    return pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n),
                         "plan": rng.choice(levels, size=n, p=[0.85, *[0.015] * 10])})  # fmt: skip


def test_one_row_batches_drawn_like_the_reference_raise_alarms_at_the_stated_rate():
    """A rare level in one row is no drift: the chi-squared law gave p 5e-6 to one ordinary row (issue 62: 25% of
    1-row batches flagged; here every row of a rare level, 15%); the Monte-Carlo p-value of the same statistic holds
    the level."""
    reference = rare_levels(3000, np.random.default_rng(3))
    alarms = 0
    for draw in range(200):
        batch = rare_levels(1, np.random.default_rng(100 + draw))
        alarms += bool(compare(reference, batch, ["x0", "x1"], ["plan"], OFF, draw, "b")["flagged"])
    assert alarms <= 18  # binomial(200, 0.05) exceeds 18 with probability 0.008


def test_the_chi_squared_test_says_how_its_p_value_was_found():
    rare = chi_squared_test(["a"] * 990 + ["b"] * 10, ["b"], random_state=0)
    assert rare["method"] == "monte_carlo" and rare["p_value"] > 0.005  # one row of a 1% level: p about 0.01
    assert chi_squared_test(["a"] * 500 + ["b"] * 500, ["a"] * 60 + ["b"] * 40)["method"] == "asymptotic"


def _decisions_project(tmp_path, monkeypatch, batch_rows_per_person: int):
    """Test rows of 400 persons decided 70/30; a batch of 100 persons decided 64/36, each person's row repeated."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data/predictions").mkdir(parents=True, exist_ok=True)
    (tmp_path / "data/processed").mkdir(parents=True, exist_ok=True)
    said = np.repeat([1, 0], [120, 280])
    pd.DataFrame({"_row_id": range(400), "prediction": said}).to_parquet("data/predictions/test.parquet")
    pd.DataFrame({"_row_id": range(400), "person": range(400)}).to_parquet("data/processed/test.parquet")
    persons = np.repeat(np.arange(100), batch_rows_per_person)
    batch = pd.DataFrame({"person": persons})
    served = pd.DataFrame({"prediction": np.where(persons < 36, "1", "0")})

    class Predictor:
        @staticmethod
        def labels(codes):
            return np.array(["0", "1"])[np.asarray(codes)]

    return batch_check._prediction_shift(BINARY, Predictor(), batch, served, "person", 0)


def test_a_persons_repeated_rows_are_one_draw_for_the_decided_classes(tmp_path, monkeypatch):
    once = _decisions_project(tmp_path, monkeypatch, 1)
    ten_times = _decisions_project(tmp_path, monkeypatch, 10)
    assert once["p_value"] > 0.05 and ten_times["p_value"] == once["p_value"]


def test_the_columns_family_is_not_lowered_by_their_consequences():
    """x0 moved far; x1 a little (p 0.02, not beyond the columns' own bar, 2 x 0.05 / 7); tests of what follows from
    x0's move (the domain classifier, the decided classes: here four tiny p-values) held in the columns' family
    carried x1 over the line (6 x 0.05 / 11)."""
    rng = np.random.default_rng(11)
    reference, batch = frame(2000, rng), frame(400, rng)
    batch["x0"] += 1.0
    batch["x1"] += 0.17
    tiny = {f"consequence {k}": {"test": "chi_squared", "of": "decided classes", "p_value": 1e-12} for k in range(4)}
    result = compare(reference, batch, NUMERIC, ["plan"], OFF, 0, "batch", extra=tiny)
    assert 0.05 / 7 * 2 < result["columns"]["x1"]["p_value"] < 0.05 * 6 / 11  # where the two families differ
    assert result["flagged"] == ["x0"] and all(r["flagged"] for r in result["extra"].values())


def test_the_most_drifted_column_comes_first_on_the_page():
    rng = np.random.default_rng(4)
    reference, batch = frame(3000, rng), frame(3000, rng)
    batch["x4"] += 5.0  # p underflows to 0
    found = Drift.from_json(compare(reference, batch, NUMERIC, ["plan"], OFF, 0, "b"), "drift", "monitor")
    assert found.columns["x4"].adjusted_p_value == 0.0 and _drift_rows(found)[0]["column"] == "x4"


def test_the_label_free_estimate_says_its_interval_counts_label_noise_only():
    p = np.linspace(0.05, 0.95, 200)
    estimate = expected_headline(BINARY, np.column_stack([1 - p, p]), 0)
    assert "label noise only" in estimate["statement"] and "label noise only" in estimate["interval_covers"]


def test_psi_replaces_empty_shares_as_evidently_does():
    """A rare reference level (5e-5 of 20,000 rows): only empty shares are replaced; flooring every share at 1e-4
    understated the PSI (issue 62: 4.71 against Evidently's 12.32)."""
    reference, current = ["a"] * 19999 + ["b"], ["a"] * 50 + ["b"] * 50
    p, q = np.array([19999, 1]) / 20000, np.array([0.5, 0.5])
    assert population_stability_index(reference, current, categorical=True) == pytest.approx(
        float(np.sum((q - p) * np.log(q / p))), rel=1e-12
    )
    # an empty bin on a side whose smallest share is below 1e-4: a millionth of that share (Evidently); on a side
    # without one: 1e-4
    p3, q3 = np.array([19999 / 20000, 1 / 20000, 5e-5 / 1e6]), np.array([0.5, 1e-4, 0.5])
    assert population_stability_index(reference, ["a"] * 5 + ["c"] * 5, categorical=True) == pytest.approx(
        float(np.sum((q3 - p3) * np.log(q3 / p3))), rel=1e-9
    )


def _monitor_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data/processed").mkdir(parents=True)
    (tmp_path / "models").mkdir()
    BINARY.write(tmp_path / "data/processed/target.json")
    return {"data": {"categorical": [], "target": "y", "group": None}, "monitor": OFF, "seed": 0}


def test_an_invalid_predictor_json_is_one_line_naming_the_file_and_the_rebuild(tmp_path, monkeypatch):
    params = _monitor_files(tmp_path, monkeypatch)
    (tmp_path / "models/predictor.json").write_text('{"class": "DeployedPredictor", "par')
    (tmp_path / "models/predictor.npz").write_bytes(b"")
    (tmp_path / "batch.csv").write_text("x0,y\n1.0,1\n")
    with pytest.raises(PipelineError) as raised:
        batch_check.check_batch(params, "batch.csv")
    message = str(raised.value)
    assert "models/predictor.json" in message and "dvc repro --force calibrate" in message and "\n" not in message


def test_an_empty_batch_points_at_the_batch_not_data_path(tmp_path, monkeypatch):
    params = _monitor_files(tmp_path, monkeypatch)
    (tmp_path / "batch.csv").write_text("")
    with pytest.raises(PipelineError) as raised:
        batch_check.check_batch(params, "batch.csv")
    assert "batch.csv is empty" in str(raised.value) and "data.path" not in str(raised.value)
    assert "monitor.batch" in str(raised.value)
