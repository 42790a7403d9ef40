"""What the calibrate, evaluate, fairness and report stages write, checked on one run of the pipeline on the
sample (default params) and one rerun of the decision stages with a cost matrix, isotonic calibration,
quantile bins and no mitigation: per-group calibration, risk-coverage curve, fairness intervals and criteria,
mitigation fitted on out-of-fold rows, reweighing, and the report showing all of it."""
from __future__ import annotations

import importlib
import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import make_project
from mllib import io as mlio
from mllib.fairness import criterion_gap
from pipeline import paths

UPSTREAM = ["validate", "clean", "split", "features", "train"]
DECISION_STAGES = ["calibrate", "evaluate", "fairness", "report"]


def run_stages(root, stages):
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        for stage in stages:
            importlib.import_module(f"pipeline.stages.{stage}").main()


def read(root, path):
    return json.loads((root / path).read_text())


@pytest.fixture(scope="module")
def default_run(tmp_path_factory, sample_csv):
    root = make_project(tmp_path_factory.mktemp("outputs"), sample_csv, **{"search.grid": {}, "split.n_splits": 3})
    run_stages(root, UPSTREAM + DECISION_STAGES[:3])
    return root


@pytest.fixture(scope="module")
def cost_run(default_run, tmp_path_factory):
    root = tmp_path_factory.mktemp("cost") / "project"
    shutil.copytree(default_run, root)
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["evaluate"]["cost_matrix"] = [[0, 1], [3, 0]]  # a false positive costs three false negatives
    params["calibration"].update(method="isotonic", binning="quantile")
    params["fairness"]["mitigation"]["criterion"] = "none"
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run_stages(root, DECISION_STAGES[:3])
    return root


def test_calibration_reports_before_after_overall_and_per_group(default_run):
    cal = read(default_run, paths.CALIBRATION_METRICS)
    assert cal["binning"]["n_bins"] == 10 and cal["binning"]["strategy"] == "uniform"
    for part in ("oof_before", "oof_after_crossfitted"):
        q = cal[part]
        d = q["brier_decomposition"]
        assert d["reliability"] - d["resolution"] + d["uncertainty"] + d["within_bin"] == pytest.approx(q["brier"], abs=1e-12)
        assert q["n"] == cal["n_rows"] and q["n_bins_used"] == 10
    assert set(cal["groups"]) == {"female", "black", "female & black"}
    oof = pd.read_parquet(default_run / paths.OOF_PREDICTIONS)
    for grouping in cal["groups"].values():
        assert sum(g["n"] for g in grouping.values()) == cal["n_rows"] == int((oof["fold"] >= 0).sum())
        assert all(g["before"]["ece"] >= 0 and g["after"]["ece"] >= 0 for g in grouping.values())
    rows = read(default_run, paths.RELIABILITY_OOF)
    assert [r["calibration"] for r in rows] == ["before"] * 10 + ["after"] * 10
    assert sum(r["count"] for r in rows if r["calibration"] == "after") == cal["n_rows"]
    assert all((r["count"] == 0) == (r["mean_predicted"] is None) for r in rows)  # empty bins explicit, null means


def test_risk_coverage_curve_ends_at_the_overall_error(default_run):
    test = read(default_run, paths.TEST_METRICS)
    curve = read(default_run, paths.RISK_COVERAGE)
    assert curve[-1]["coverage"] == 1.0 and curve[-1]["risk"] == pytest.approx(1 - test["accuracy"])
    coverage = [p["coverage"] for p in curve]
    assert coverage == sorted(coverage) and len(set(coverage)) == len(coverage)
    sel = test["selective"]
    assert sel["error_rate"] == pytest.approx(1 - test["accuracy"]) and sel["e_aurc"] == pytest.approx(sel["aurc"] - sel["optimal_aurc"])
    predictions = pd.read_parquet(default_run / paths.TEST_PREDICTIONS)
    p = predictions["proba"].to_numpy()
    np.testing.assert_array_equal(predictions["accepted"], np.maximum(p, 1 - p) >= 0.6)
    assert sel["reject_option"]["coverage"] == pytest.approx(predictions["accepted"].mean())
    assert test["decision"] == {"rule": "threshold", "threshold": 0.5, "cost_matrix": None}


def test_fairness_groups_intervals_criteria_and_compatibility(default_run):
    f = read(default_run, paths.FAIRNESS_METRICS)
    assert set(f["attributes"]) == {"female", "black", "female & black"}
    assert f["bootstrap"] == {"n_boot": 200, "confidence_level": 0.95, "seed": 42, "cluster": "zper"}
    for result in f["attributes"].values():
        assert result["bootstrap"]["unit"] == "cluster"
        for g, m in result["groups"].items():
            assert m["small"] == (m["n"] < 30) and (g in result["small_groups"]) == m["small"]
            for k in ("selection_rate", "tpr", "fpr", "precision", "accuracy", "calibration_error", "base_rate"):
                lo, hi = m["intervals"][k]
                assert m[k] is None or lo is None or lo - 1e-12 <= m[k] <= hi + 1e-12 or m["small"], (g, k)
        assert set(result["criteria"]) == {"demographic_parity", "equal_opportunity", "equalized_odds", "predictive_parity"}
        assert "statement" in result["compatibility"]
    plot = pd.read_csv(default_run / paths.FAIRNESS_PLOT)
    assert set(plot.columns) == {"attribute", "group", "metric", "value", "ci_low", "ci_high", "small"}
    assert len(plot) == 4 * sum(len(r["groups"]) for r in f["attributes"].values())


def test_mitigation_fitted_on_out_of_fold_rows_reduces_their_gap(default_run):
    f = read(default_run, paths.FAIRNESS_METRICS)
    mitigation = f["mitigation"]
    assert mitigation["criterion"] == "equal_opportunity" and set(mitigation["attributes"]) == {"female", "black"}
    oof = pd.read_parquet(default_run / paths.OOF_PREDICTIONS)
    train = pd.read_parquet(default_run / paths.TRAIN)
    rows = oof[oof["fold"] >= 0].merge(train[[paths.ROW_ID, "female", "black"]], on=paths.ROW_ID)
    p = mlio.load(default_run / paths.CALIBRATOR).transform(rows["score"].to_numpy())
    y = rows["y"].to_numpy()
    for attribute, m in mitigation["attributes"].items():
        assert m["applied"]
        groups = rows[attribute].astype(int).astype(str).to_numpy()
        fit = m["fitted_oof"]
        assert fit["gap_before"] == pytest.approx(criterion_gap(y, (p >= 0.5).astype(int), groups, "equal_opportunity"))
        tau = np.array([m["thresholds"][g] for g in groups])
        assert fit["gap_after"] == pytest.approx(criterion_gap(y, (p >= tau).astype(int), groups, "equal_opportunity"))
        assert fit["gap_after"] < fit["gap_before"] or fit["gap_before"] <= mitigation["tolerance"], attribute
        t = m["test"]
        assert t["accuracy_cost"] == pytest.approx(t["accuracy_before"] - t["accuracy_after"])
        every = m["test_every_criterion"]
        assert set(every) == {"demographic_parity", "equal_opportunity", "equalized_odds", "predictive_parity"}
        assert every["equal_opportunity"] == pytest.approx({"gap_before": t["gap_before"], "gap_after": t["gap_after"]})
    for attribute, table in f["reweighing"].items():
        labels = oof.merge(train[[paths.ROW_ID, attribute]], on=paths.ROW_ID)  # every training row
        weights = labels.apply(lambda r: table[str(int(r[attribute]))][str(int(r["y"]))], axis=1)
        assert weights.sum() == pytest.approx(len(labels))  # reweighing keeps the total weight


def test_cost_matrix_isotonic_quantile_and_no_mitigation(cost_run):
    test = read(cost_run, paths.TEST_METRICS)
    d = test["decision"]
    assert d["rule"] == "cost_matrix" and d["threshold"] == pytest.approx(0.75) == test["threshold"]
    predictions = pd.read_parquet(cost_run / paths.TEST_PREDICTIONS)
    np.testing.assert_array_equal(predictions["prediction"], (predictions["proba"] > 0.75).astype(int))
    y, pred = predictions["y"].to_numpy(), predictions["prediction"].to_numpy()
    cost = np.array([[0, 1], [3, 0]])
    assert d["realised_cost"] == pytest.approx(cost[pred, y].mean())
    cal = read(cost_run, paths.CALIBRATION_METRICS)
    assert cal["method"] == "isotonic" and cal["binning"]["strategy"] == "quantile"
    assert mlio.load(cost_run / paths.CALIBRATOR).__class__.__name__ == "IsotonicCalibration"
    f = read(cost_run, paths.FAIRNESS_METRICS)
    assert f["mitigation"] == {"criterion": "none"} and f["decision_threshold"] == pytest.approx(0.75)


def test_report_shows_decisions_fairness_and_mitigation(default_run, cost_run):
    for root in (default_run, cost_run):
        run_stages(root, ["explain", "report"])
        page = (root / paths.REPORT_HTML).read_text()
        for text in ("Per sensitive group", "the reject option", "E-AURC", "Which criteria can hold together",
                     "Reweighing", "percentile bootstrap"):
            assert text in page, text
        figures = {p.name for p in (root / paths.FIGURES_DIR).iterdir()}
        assert {"risk_coverage.png", "reliability_oof.png", "fairness_0.png"} <= figures
    assert "Mitigation: per-group thresholds for equal_opportunity" in (default_run / paths.REPORT_HTML).read_text()
    assert "realised cost per row" in (cost_run / paths.REPORT_HTML).read_text()
    assert not math.isnan(read(cost_run, paths.TEST_METRICS)["decision"]["expected_cost_posterior"])
