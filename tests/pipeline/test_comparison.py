"""model.candidates: models compared on the same folds (the selection rules, the corrected t-test on the fold
scores of each model's best configuration), the runner-up compared on test, and a name that is not a model."""

from __future__ import annotations

import json

import pytest
from conftest import MODEL_STAGES, SHARED_STAGES, make_project, run_stages

from mllib.comparison import corrected_resampled_t_test
from pipeline.core import paths
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError
from pipeline.steps.comparison import compare


def result(scores, params=None):
    import numpy as np

    return {
        "valid_scores": scores,
        "mean_valid_score": float(np.mean(scores)),
        "std_valid_score": float(np.std(scores)),
        "params": params or {},
    }


BEST = {
    "simple": result([0.747, 0.757, 0.737, 0.767, 0.747]),
    "complex": result([0.75, 0.76, 0.74, 0.77, 0.75]),
    "weak": result([0.60, 0.62, 0.61, 0.59, 0.60]),
}


def test_best_rule_and_one_standard_error_rule():
    chosen, report = compare(BEST, True, 800, 200, "best")
    assert chosen == "complex" and report.runner_up == "simple"
    assert [m.rank for m in report.models] == [2, 1, 3]
    simple = report.models[0].versus_best
    assert simple == corrected_resampled_t_test(
        BEST["complex"]["valid_scores"], BEST["simple"]["valid_scores"], 800, 200
    )
    chosen, report = compare(BEST, True, 800, 200, "one_se")  # simple is 0.003 below: within one SE (0.01 / sqrt 5)
    assert chosen == "simple" and report.runner_up == "complex" and report.best == "complex"
    assert compare(BEST, False, 800, 200, "best")[0] == "weak"  # a loss: lower is better


def test_the_corrected_t_test_gets_the_fractional_mean_split_sizes():
    """Grouped splits differ in size: the comparison passes the mean training and validation sizes as they are
    (638.4 / 159.6 here), not their integer parts, to the corrected resampled t-test."""
    import numpy as np

    from pipeline.steps.comparison import choose_model

    sizes = [(638, 160), (639, 159), (638, 160), (639, 159), (638, 160)]
    splits = [(np.arange(n_fit), np.arange(n_fit, n_fit + n_valid)) for n_fit, n_valid in sizes]
    searched = {name: ([r], 0) for name, r in BEST.items()}
    scorer = type("Scorer", (), {"greater_is_better": True, "name": "roc_auc"})()
    _, report = choose_model(searched, splits, scorer, "best")
    assert (report.n_train, report.n_test) == (638.4, 159.6)
    expected = corrected_resampled_t_test(BEST["complex"]["valid_scores"], BEST["simple"]["valid_scores"], 638.4, 159.6)
    assert report.models[0].versus_best == expected


def test_candidates_through_the_pipeline(tmp_path, sample_csv, monkeypatch):
    root = make_project(
        tmp_path,
        sample_csv,
        **{
            "model.candidates": ["logistic_regression", "naive_bayes"],
            "split.n_splits": 3,
            "assess.learning_curve": False,
        },
    )
    run_stages(root, monkeypatch, SHARED_STAGES + MODEL_STAGES[:4])
    train = json.loads((root / paths.TRAIN_METRICS).read_text())
    c = train["comparison"]
    assert [m["model"] for m in c["models"]] == ["logistic_regression", "naive_bayes"]
    assert train["model"] == c["chosen"] == max(c["models"], key=lambda m: m["mean"])["model"]
    assert all(len(m["valid_scores"]) == 3 for m in c["models"])
    test = json.loads((root / paths.TEST_METRICS).read_text())["comparison"]
    assert test["chosen"] == c["chosen"] and test["runner_up"] != c["chosen"] and 0 <= test["p_value"] <= 1


def test_an_unknown_model_among_the_candidates(tmp_path, sample_csv, monkeypatch):
    root = make_project(tmp_path, sample_csv, **{"model.candidates": ["logistic_regression", "deep_forest"]})
    monkeypatch.chdir(root)
    with pytest.raises(PipelineError, match=r"model.candidates.*a list of distinct registry model names"):
        load_params()
