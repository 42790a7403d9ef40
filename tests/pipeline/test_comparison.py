"""Models compared on the same folds (model.name auto's default set, or model.candidates): the selection rules (one_se
reads the standard error of the paired, corrected fold-score difference), the gain over the simplest and the cost of
the next simpler model with their intervals, the gains on test, the card's sentence, and a name that is not a
model."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import MODEL_STAGES, SHARED_STAGES, make_project, run_stages

from mllib.comparison import corrected_resampled_t_test
from pipeline.core import paths
from pipeline.core.config import load_params
from pipeline.core.errors import PipelineError
from pipeline.core.evaluation_records import ComparisonOnTest, GainOnTest
from pipeline.core.records import PairedFoldTest
from pipeline.steps.comparison import compare


def result(scores, params=None):
    import numpy as np

    return {
        "valid_scores": scores,
        "mean_valid_score": float(np.mean(scores)),
        "std_valid_score": float(np.std(scores)),
        "params": params or {},
    }


BEST = {  # simplest first
    "simple": result([0.740, 0.757, 0.737, 0.772, 0.745]),
    "complex": result([0.75, 0.76, 0.74, 0.77, 0.75]),
    "weak": result([0.60, 0.62, 0.61, 0.59, 0.60]),
}


def test_best_rule_and_one_standard_error_rule():
    chosen, report = compare(BEST, True, 800, 200, "best")
    assert chosen == "complex" and report.runner_up == "simple" and report.simplest == "simple"
    assert [m.rank for m in report.models] == [2, 1, 3]
    simple = report.models[0].versus_best
    assert simple == PairedFoldTest(
        **corrected_resampled_t_test(BEST["complex"]["valid_scores"], BEST["simple"]["valid_scores"], 800, 200)
    )
    # one_se: simple is 0.0038 below complex, and the standard error of their paired difference by hand is 0.0029:
    # d = (0.010, 0.003, 0.003, -0.002, 0.005), s = 0.004324, sqrt((1/5 + 200/800) s^2) = 0.002901 -> beyond one
    # standard error, so complex; the classic rule (the best's fold std / sqrt(5) = 0.0046) would have kept simple
    d = np.array(BEST["complex"]["valid_scores"]) - np.array(BEST["simple"]["valid_scores"])
    se = math.sqrt((1 / 5 + 200 / 800) * d.var(ddof=1))
    assert simple.standard_error == pytest.approx(se) and d.mean() > se
    chosen, report = compare(BEST, True, 800, 200, "one_se")
    assert chosen == "complex" and report.best == "complex"
    # what complex gains over the simplest, and (here the same model) what the next simpler would cost
    gain = report.gain_over_simplest
    assert gain.model == "simple" and gain.gain == pytest.approx(d.mean()) and gain.standard_error == pytest.approx(se)
    assert gain.interval == pytest.approx(simple.interval)
    assert report.next_simpler == gain
    # noisier differences of the same mean: within one standard error, the simpler model stays
    noisy = {
        **BEST,
        "simple": result(list(np.array(BEST["complex"]["valid_scores"]) - [0.02, -0.01, 0.01, -0.008, 0.006])),
    }
    chosen, report = compare(noisy, True, 800, 200, "one_se")
    assert chosen == "simple" and report.best == "complex" and report.runner_up == "complex"
    assert report.gain_over_simplest is None and report.next_simpler is None
    assert compare(BEST, False, 800, 200, "best")[0] == "weak"  # a loss: lower is better


def test_a_loss_gain_is_signed_so_that_positive_is_better():
    """rmse: the chosen model's mean is LOWER; its gain over the simplest is positive, the interval's ends flipped."""
    losses = {"simple": result([1.20, 1.25, 1.22, 1.30, 1.21]), "complex": result([1.00, 1.02, 1.01, 1.05, 0.99])}
    chosen, report = compare(losses, False, 800, 200, "one_se")
    assert chosen == "complex"
    gain = report.gain_over_simplest
    assert gain.gain == pytest.approx(0.222) and gain.interval[0] < gain.gain < gain.interval[1]
    assert gain.interval[0] > 0


def test_one_split_has_no_standard_error_and_keeps_the_simplest_model():
    """The nested CV's inner selection inside the first forward-chaining split of a file of five years has one earlier
    year to validate on: one score per model, no standard error (the t-test needs two). The comparison says so (NaN)
    and the one-SE rule keeps the simplest model however large the single difference; `best` takes the larger."""
    one_split = {"simple": result([0.51]), "complex": result([0.58])}
    chosen, report = compare(one_split, True, 200, 250, "one_se")
    assert chosen == "simple" and report.best == "complex"
    test = report.models[0].versus_best
    assert test.mean_difference == pytest.approx(0.07) and math.isnan(test.standard_error) and test.df == 0
    assert compare(one_split, True, 200, 250, "best")[0] == "complex"


def test_the_card_says_what_the_choice_gained_and_what_the_next_simpler_model_would_cost():
    from types import SimpleNamespace

    from pipeline.reporting.headline import model_choice

    three = {
        "linear": BEST["simple"],
        "additive": result([0.747, 0.757, 0.739, 0.769, 0.748]),
        "trees": BEST["complex"],
    }
    chosen, report = compare(three, True, 800, 200, "one_se")
    assert chosen == "trees" and report.next_simpler.model == "additive"
    train = SimpleNamespace(comparison=report, scoring="roc_auc", model=chosen)
    gains = {
        "linear": {"gain": 0.01, "interval": [-0.002, 0.021]},
        "additive": {"gain": 0.004, "interval": [-0.01, 0.02]},
    }
    on_test = ComparisonOnTest(
        "trees", "roc_auc", "percentile bootstrap", {n: GainOnTest(**g) for n, g in gains.items()}
    )
    line = model_choice(train, SimpleNamespace(comparison=on_test))
    assert line.startswith("trees of linear, additive, trees (simplest first) on the same folds: the best, by more")
    assert f"gain over the simplest, linear: roc_auc {report.gain_over_simplest.gain:.4f} [" in line
    assert "0.0100 [-0.0020, 0.0210] on test" in line
    assert "choosing the next simpler model would cost the additive: roc_auc" in line
    assert "0.0040 [-0.0100, 0.0200] on test" in line


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
    expected = PairedFoldTest(
        **corrected_resampled_t_test(BEST["complex"]["valid_scores"], BEST["simple"]["valid_scores"], 638.4, 159.6)
    )
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
    other = next(m["model"] for m in c["models"] if m["model"] != c["chosen"])
    assert test["chosen"] == c["chosen"] and list(test["gains"]) == [other]
    low, high = test["gains"][other]["interval"]
    assert low <= test["gains"][other]["gain"] <= high


def test_an_unknown_model_among_the_candidates(tmp_path, sample_csv, monkeypatch):
    root = make_project(tmp_path, sample_csv, **{"model.candidates": ["logistic_regression", "deep_forest"]})
    monkeypatch.chdir(root)
    with pytest.raises(PipelineError, match=r"model.candidates.*a list of distinct registry model names"):
        load_params()
