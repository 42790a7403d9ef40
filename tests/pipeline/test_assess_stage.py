"""The assess stage end to end on a small project: nested CV (its outer scores from the search's refitted best on
each split's validation part, the optimism = inner best minus outer), the validation curve (one row per value, the
chosen configuration's value reproducing the search's score), and the bad settings each stopped with one message."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import SHARED_STAGES, make_project, run_stages

from pipeline.core import paths
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError

FAST = {"split.n_splits": 3, "assess.learning_curve": False, "assess.leakage": False}


@pytest.fixture(scope="module")
def assessed(tmp_path_factory, sample_csv):
    root = make_project(
        tmp_path_factory.mktemp("assess"),
        sample_csv,
        **FAST,
        **{"assess.validation_curve": {"logistic_regression": {"lam": [0.1, 1.0, 1000.0]}}},
    )
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, SHARED_STAGES + ["train", "assess"])
    return root


def test_nested_cv_reports_outer_scores_and_the_search_optimism(assessed):
    report = json.loads((assessed / paths.ASSESSMENT).read_text())
    nested = report["nested"]
    assert len(nested["outer_scores"]) == 3 and len(nested["chosen_params"]) == 3
    assert nested["outer_mean"] == pytest.approx(np.mean(nested["outer_scores"]))
    assert nested["optimism"] == pytest.approx(np.mean(nested["inner_best_scores"]) - np.mean(nested["outer_scores"]))
    assert 0.5 < nested["outer_mean"] < 1


def test_validation_curve_sweeps_the_listed_values(assessed):
    rows = json.loads((assessed / paths.SWEEP_CURVE).read_text())
    search = json.loads((assessed / paths.SEARCH_REPORT).read_text())
    assert [r["value"] for r in rows] == [0.1, 1.0, 1000.0] and {r["parameter"] for r in rows} == {"lam"}
    by_value = {c["params"]["lam"]: c["mean_valid_score"] for c in search["candidates"]}
    for row in rows:
        if row["value"] in by_value:  # the same configuration on the same folds gives the search's score
            assert row["valid"] == pytest.approx(by_value[row["value"]], abs=1e-12)


def test_above_max_refit_rows_nested_cv_and_the_validation_curve_say_why_they_did_not_run(
    assessed, tmp_path, monkeypatch, capsys
):
    root = tmp_path / "p"
    shutil.copytree(assessed, root)
    params = yaml.safe_load((root / "params.yaml").read_text())
    n_train = len(pd.read_parquet(root / paths.TRAIN))
    params["assess"]["max_refit_rows"] = n_train - 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run_stages(root, monkeypatch, ["assess"])
    report = json.loads((root / paths.ASSESSMENT).read_text())
    why = f"skipped: {n_train:,} training rows exceed assess.max_refit_rows ({n_train - 1:,})"
    assert report["nested"]["statement"].startswith(why)
    assert report["validation_curve"]["statement"].startswith(why)
    assert json.loads((root / paths.SWEEP_CURVE).read_text()) == []
    assert why in capsys.readouterr().out
    params["assess"]["max_refit_rows"] = n_train  # at the limit both run
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run_stages(root, monkeypatch, ["assess"])
    report = json.loads((root / paths.ASSESSMENT).read_text())
    assert "outer_scores" in report["nested"] and "parameter" in report["validation_curve"]


def test_above_max_rows_the_assessment_runs_on_whole_groups_and_says_so(assessed, tmp_path, monkeypatch, capsys):
    """assess.max_rows below the training rows: a seeded sample of whole groups (never more rows than the limit), the
    same splits restricted to it, the leakage estimate's grouped and row-level CVs both on the sample, the single
    features scored on it, and the sample stated in assessment.json and the output; nested CV skipped by the training
    rows, not the sample's; the same sample on a rerun."""
    root = tmp_path / "p"
    shutil.copytree(assessed, root)
    params = yaml.safe_load((root / "params.yaml").read_text())
    train = pd.read_parquet(root / paths.TRAIN)
    limit = len(train) // 2
    params["assess"].update(max_rows=limit, max_refit_rows=limit, leakage=True, validation_curve={})
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run_stages(root, monkeypatch, ["assess"])
    report = json.loads((root / paths.ASSESSMENT).read_text())
    said = capsys.readouterr().out
    n = int(report["sample"].split(" of the ")[0].removeprefix("on ").replace(",", ""))
    assert 0.9 * limit < n <= limit and f"{len(train):,} training rows (whole groups" in report["sample"]
    assert report["sample"] in said
    assert len(report["leakage"]["row_level_scores"]) == params["split"]["n_splits"]
    search = json.loads((root / paths.SEARCH_REPORT).read_text())
    assert report["leakage"]["grouped_scores"] != search["candidates"][search["best_index"]]["valid_scores"]
    assert report["single_feature"]["scores"]
    # the refits are held against every training row, not the sample: the selection was made on all of them
    assert report["nested"]["statement"].startswith(f"skipped: {len(train):,} training rows exceed")
    first = (root / paths.ASSESSMENT).read_bytes()
    run_stages(root, monkeypatch, ["assess"])
    assert (root / paths.ASSESSMENT).read_bytes() == first


def test_stated_sample_takes_whole_groups_up_to_the_limit():
    from pipeline.steps.feature_blocks import stated_sample, within

    groups = np.repeat(np.arange(50), np.arange(1, 51))  # groups of 1 .. 50 rows
    rows = stated_sample(len(groups), 300, seed=3, key=1, groups=groups)
    assert rows.size <= 300 and np.all(np.diff(rows) > 0)
    kept = set(groups[rows])
    assert all(np.sum(groups[rows] == g) == np.sum(groups == g) for g in kept)  # whole groups
    assert stated_sample(len(groups), 300, 3, 1, groups).tolist() == rows.tolist()
    assert stated_sample(len(groups), 300, 4, 1, groups).tolist() != rows.tolist()
    assert stated_sample(len(groups), len(groups), 3, 1, groups) is None
    fit, valid = np.array([0, 2, 2, 5, 9]), np.array([1, 3])
    assert [a.tolist() for a in within([(fit, valid)], np.array([2, 3, 9]))[0]] == [[0, 0, 2], [1]]


def test_a_validation_curve_parameter_the_model_lacks_is_named(assessed, tmp_path, monkeypatch):
    root = tmp_path / "p"
    shutil.copytree(assessed, root)
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["assess"]["validation_curve"] = {"logistic_regression": {"depth": [1, 2]}}
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    with pytest.raises(
        PipelineError,
        match=r"assess.validation_curve.logistic_regression.depth: logistic_regression "
        r"has no hyperparameter 'depth'",
    ):
        run_stages(root, monkeypatch, ["assess"])


MALFORMED_CURVE = r"assess.validation_curve must be a mapping \{model name: \{one hyperparameter"


@pytest.mark.parametrize(
    "value, message",
    [
        ({"logistic_regression": {"lam": [1.0]}}, MALFORMED_CURVE),
        ({"logistic_regression": {"lam": [1.0, 2.0], "tol": [1, 2]}}, MALFORMED_CURVE),
        ({"deep_forest": {"depth": [1, 2]}}, r"assess.validation_curve.deep_forest: not a model name; valid: \["),
    ],
)
def test_a_malformed_validation_curve_is_refused_when_params_load(tmp_path, sample_csv, monkeypatch, value, message):
    root = make_project(tmp_path, sample_csv, **{"assess.validation_curve": value})
    monkeypatch.chdir(root)
    with pytest.raises(PipelineError, match=message):
        load_params()


def test_a_selection_that_keeps_no_feature_stops_the_features_stage(tmp_path, sample_csv, monkeypatch):
    root = make_project(
        tmp_path,
        sample_csv,
        **{"split.n_splits": 2, "features.selection": {"name": "variance_threshold", "params": {"threshold": 1.0e6}}},
    )
    run_stages(root, monkeypatch, ["validate", "clean", "split"])
    with pytest.raises(
        PipelineError,
        match=r"features: fitting the features \(.*selection=variance_threshold\) on the "
        r"training part of split 0 failed: VarianceThreshold would keep zero",
    ):
        run_stages(root, monkeypatch, ["features"])


def test_nested_cv_with_candidates_nests_the_choice_of_the_model(tmp_path, sample_csv):
    """With model.candidates the whole selection runs inside each split (every model's grid on the inner folds, then
    model.selection between them), so nested CV measures the optimism of choosing the family too: its outer scores
    are those of whichever model each split chose, not the winner's grid alone (which made the nested mean equal
    the search's CV mean exactly)."""
    from mllib.base import clone, fit_with_groups
    from mllib.model_selection import GridSearch, inner_splitter, response_values
    from pipeline.core import build
    from pipeline.core.task import Target
    from pipeline.steps import folds
    from pipeline.steps.comparison import compare
    from pipeline.steps.feature_blocks import split_features

    root = make_project(
        tmp_path,
        sample_csv,
        **FAST,
        **{
            "model.candidates": ["logistic_regression", "naive_bayes"],
            "search.grid.logistic_regression": {"lam": [0.1, 100.0]},
            "assess.validation_curve": {},
        },
    )
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, SHARED_STAGES + ["train", "assess"])
        nested = json.loads((root / paths.ASSESSMENT).read_text())["nested"]
        assert nested["models"] == ["logistic_regression", "naive_bayes"]
        assert all("model" in c for c in nested["chosen_params"])
        # split 0 by hand: both grids on the inner folds, the corrected choice, the chosen one refitted and scored
        params = load_params()
        target = Target.read(paths.TARGET)
        train = pd.read_parquet(paths.TRAIN)
        y, groups = target.encode(train["binexp"]), train["zper"].to_numpy()
        fit, valid = folds.splits_of(pd.read_parquet(paths.FOLDS))[0]
        X = split_features(0)
        scorer = build.scorer("search.scoring", "auto", target)
        inner = inner_splitter(params["assess"]["inner_splits"], True, True, params["seed"])
        grids = {
            "logistic_regression": [{"lam": [0.1]}, {"lam": [100.0]}],
            "naive_bayes": [{"var_smoothing": [1e-9]}, {"var_smoothing": [1e-3]}],
        }
        searches = {
            n: GridSearch(build.model(n, params["model"], params["seed"]), g, cv=inner, scoring=scorer,
                          refit=False).fit(X[fit], y[fit], groups[fit])
            for n, g in grids.items()
        }  # fmt: skip
        sizes = [float(np.mean([len(p) for p in parts])) for parts in zip(*searches["naive_bayes"].splits_)]
        chosen, _ = compare({n: s.results_[s.best_index_] for n, s in searches.items()}, True, *sizes, "best")
        s = searches[chosen]
        model = fit_with_groups(clone(s.estimator).set_params(**s.best_params_), X[fit], y[fit], groups[fit])
        outer = scorer.score(y[valid], response_values(model, X[valid], scorer.response))
    assert nested["chosen_params"][0] == {"model": chosen, **s.best_params_}
    assert nested["outer_scores"][0] == pytest.approx(outer, abs=1e-12)
    assert nested["inner_best_scores"][0] == pytest.approx(s.best_score_, abs=1e-12)


def test_a_copy_of_the_target_is_flagged_and_blocks_the_gate(tmp_path, sample_csv):
    """The issue's case: a column equal to the target gave train and test AUC 1.0, "no measurable inflation", and
    became champion. assess flags it alone at AUC 1.0, and the gate's check fails on the headline figure."""
    from pipeline.core.task import Target
    from pipeline.reporting.headline import flat
    from pipeline.tracking.promotion import decide, threshold_checks

    frame = pd.read_csv(sample_csv)
    frame["claim_flag"] = frame["binexp"]
    data = tmp_path / "leaky.csv"
    frame.to_csv(data, index=False)
    root = make_project(tmp_path / "project", data, **FAST, **{"assess.nested": False, "assess.validation_curve": {}})
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, SHARED_STAGES + ["train", "assess"])
        report = json.loads((root / paths.ASSESSMENT).read_text())["single_feature"]
        params, target = load_params(), Target.read(paths.TARGET)
    assert report["flagged"] == ["claim_flag"] and report["scores"]["claim_flag"] == 1.0
    assert max(s for f, s in report["scores"].items() if f != "claim_flag") < 0.98
    figures = flat({"trust": {"leaky_features": len(report["flagged"])}, "test": {"roc_auc": 1.0, "roc_auc_low": 1.0},
                    "calibration": {"test_ece_after_high": 0.0},
                    "decisions": {"gain_vs_no_skill_low": 0.5, "classes_decided": 2}})  # fmt: skip
    decision = decide(threshold_checks(figures, target, params["tracking"]["promotion"]))
    assert not decision.promote and "features that alone predict the target beyond" in decision.reasons[0]
