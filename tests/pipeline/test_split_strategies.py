"""Every split.strategy of params.yaml runs split -> features -> train -> calibrate on a small sample: the folds
file describes each split (fitting multiplicity, validation rows), no group straddles a split, every validated
row gets an out-of-fold score averaged over the splits that validate it, and the calibrator fits on those."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import make_project, run_stages

from pipeline.core import paths
from pipeline.core.errors import PipelineError
from pipeline.steps import folds

# strategy -> (data.group set?, split overrides)
CASES = {
    "kfold": (False, {"n_splits": 3}),
    "stratified": (False, {"n_splits": 3, "n_repeats": 2}),
    "group": (True, {"n_splits": 3, "n_repeats": 2}),
    "stratified_group": (True, {"n_splits": 3, "n_repeats": 2}),
    "shuffle": (False, {"n_splits": 3, "valid_size": 0.25}),
    "group_shuffle": (True, {"n_splits": 3, "valid_size": 0.25}),
    "bootstrap": (False, {"n_splits": 3}),
    "group_bootstrap": (True, {"n_splits": 3}),
}


@pytest.fixture(scope="module")
def cleaned(tmp_path_factory, sample_csv):
    root = make_project(tmp_path_factory.mktemp("strategies"), sample_csv, **{"search.grid": {}})
    with pytest.MonkeyPatch.context() as mp:
        run_stages(root, mp, ["validate", "clean"])
    return root


def project(cleaned, tmp_path, **overrides):
    root = tmp_path / "p"
    shutil.copytree(cleaned, root)
    params = yaml.safe_load((root / "params.yaml").read_text())
    for key, value in overrides.items():
        *parents, leaf = key.split(".")
        node = params
        for p in parents:
            node = node[p]
        node[leaf] = value
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


@pytest.mark.parametrize("strategy", sorted(CASES))
def test_strategy_runs_through_calibration(strategy, cleaned, tmp_path, monkeypatch):
    grouped, split = CASES[strategy]
    overrides = {"split.strategy": strategy, **{f"split.{k}": v for k, v in split.items()}}
    if not grouped:
        overrides["data.group"] = None
    root = project(cleaned, tmp_path, **overrides)
    run_stages(root, monkeypatch, ["split", "features", "train", "calibrate"])

    train = pd.read_parquet(root / paths.TRAIN)
    membership = pd.read_parquet(root / paths.FOLDS)
    splits = folds.splits_of(membership)
    expected = split["n_splits"] * split.get("n_repeats", 1)
    assert len(splits) == expected
    assert len(list((root / paths.FEATURES_DIR).glob("fold_*.npy"))) == expected
    groups = train["zper"].to_numpy()
    for fit, valid in splits:
        assert len(valid) and len(fit)
        assert not np.intersect1d(fit, valid).size  # a row is never fitted and validated in one split
        if grouped:
            assert not set(groups[fit]) & set(groups[valid])
    multiplicity = membership[[c for c in membership if c.startswith("train_")]].to_numpy()
    if strategy.endswith("bootstrap"):
        assert multiplicity.max() > 1  # drawn with replacement
        assert all(len(fit) == len(train) for fit, _ in splits) or grouped
    else:
        assert multiplicity.max() == 1

    oof = pd.read_parquet(root / paths.OOF_PREDICTIONS)
    validated = np.zeros(len(train), dtype=bool)
    for _, valid in splits:
        validated[valid] = True
    assert np.array_equal(oof["fold"].to_numpy() >= 0, validated)
    assert np.isfinite(oof["score"].to_numpy()[validated]).all() and np.isnan(oof["score"].to_numpy()[~validated]).all()
    if strategy in ("kfold", "group_shuffle"):  # partitions and non-partitions both honour the first-split rule
        fold = oof["fold"].to_numpy()
        for k, (_, valid) in enumerate(splits):
            assert (fold[valid] <= k).all()
    assert (root / paths.PREDICTOR.with_suffix(".json")).exists()


def test_repeated_kfold_scores_average_over_the_repeats(cleaned, tmp_path, monkeypatch):
    """With 2 repeats every row is validated twice; its out-of-fold score is the mean of the two."""
    root = project(cleaned, tmp_path, **{"split.n_splits": 3, "split.n_repeats": 2})
    run_stages(root, monkeypatch, ["split", "features", "train"])
    from mllib import registry
    from mllib.calibration import decision_scores
    from pipeline.core.task import Target

    train = pd.read_parquet(root / paths.TRAIN)
    y = Target.read(root / paths.TARGET).encode(train["binexp"])
    splits = folds.splits_of(pd.read_parquet(root / paths.FOLDS))
    total = np.zeros(len(y))
    for k, (fit, valid) in enumerate(splits):
        X = np.load(root / paths.fold_features(k))
        total[valid] += decision_scores(registry.get("logistic_regression")().fit(X[fit], y[fit]), X[valid])
    np.testing.assert_allclose(pd.read_parquet(root / paths.OOF_PREDICTIONS)["score"], total / 2, rtol=1e-12)


@pytest.mark.parametrize("strategy,group", [("leave_one_group_out", "zper"), ("leave_one_out", None)])
def test_leave_out_strategies_with_too_many_splits_stop_with_a_clear_message(
    strategy, group, cleaned, tmp_path, monkeypatch
):
    root = project(cleaned, tmp_path, **{"split.strategy": strategy, "data.group": group})
    with pytest.raises(
        PipelineError, match=rf"split.strategy '{strategy}' makes \d+ splits .* more than {folds.MAX_SPLITS}"
    ):
        run_stages(root, monkeypatch, ["split"])


def test_leave_one_group_out_on_few_groups(cleaned, tmp_path, monkeypatch):
    """Leave-one-group-out with a coarse group column (site: 6 groups) gives one split per site."""
    root = project(
        cleaned,
        tmp_path,
        **{"split.strategy": "leave_one_group_out", "data.group": "site", "data.categorical": ["plan"]},
    )
    run_stages(root, monkeypatch, ["split"])
    train = pd.read_parquet(root / paths.TRAIN)
    splits = folds.splits_of(pd.read_parquet(root / paths.FOLDS))
    assert len(splits) == train["site"].nunique()
    assert sorted(np.unique(train["site"].to_numpy()[valid]).size for _, valid in splits) == [1] * len(splits)


def test_time_ordered_split_and_folds_with_groups(cleaned, tmp_path, monkeypatch):
    """data.time with data.group (person-years by study year): the test set is the latest years, every split fits on
    years more than split.gap before its validation years, no person straddles a split or the hold-out, the rows in
    neither part are counted, and assess estimates the temporal leakage on the same splits shuffled."""
    gap = 0
    # a panel of the same persons over five years leaves few rows to fit the early splits (the run warns): the
    # learning curve and nested CV, which cut them further, are off here
    overrides = {"split.n_splits": 3, "split.gap": gap, "assess.learning_curve": False, "assess.nested": False}
    root = project(cleaned, tmp_path, **{"data.time": "year", **overrides})
    run_stages(root, monkeypatch, ["split", "features", "train", "assess"])
    train, test = pd.read_parquet(root / paths.TRAIN), pd.read_parquet(root / paths.TEST)
    report = yaml.safe_load((root / paths.SPLIT_REPORT).read_text())
    assert report["strategy"] == "forward_chaining"
    assert train["year"].max() < test["year"].min() - gap  # the hold-out: later years only, with the gap
    assert not set(train["zper"]) & set(test["zper"])
    clean_rows = len(pd.read_parquet(root / paths.CLEAN))
    time = report["time"]
    assert len(train) + len(test) + time["rows_in_gap"] + time["rows_purged"] == clean_rows
    splits = folds.splits_of(pd.read_parquet(root / paths.FOLDS))
    year, person = train["year"].to_numpy(), train["zper"].to_numpy()
    assert len(splits) >= 2
    for (fit, valid), recorded in zip(splits, time["splits"]):
        assert year[fit].max() < year[valid].min() - gap
        assert not set(person[fit]) & set(person[valid])
        assert (recorded["last_fit"], recorded["first_valid"], recorded["rows_fitted"]) == (
            year[fit].max(),
            year[valid].min(),
            len(fit),
        )
    temporal = yaml.safe_load((root / paths.ASSESSMENT).read_text())["temporal_leakage"]
    assert temporal["n_splits"] == len(splits) and len(temporal["random_scores"]) == len(splits)
    low, high = temporal["interval"]
    assert low <= temporal["inflation"] <= high and temporal["statement"].startswith("roc_auc: ")


def test_time_ordered_split_with_too_few_times_names_the_keys(cleaned, tmp_path, monkeypatch):
    """Five study years, the last in the test set and a gap of one year: no split fits on years before another's."""
    root = project(cleaned, tmp_path, **{"data.time": "year", "split.n_splits": 3, "split.gap": 1})
    with pytest.raises(PipelineError, match=r"0 forward-chaining split\(s\).*lower split.gap or split.test_size"):
        run_stages(root, monkeypatch, ["split"])


def test_split_rows_with_dates_and_a_gap_in_days():
    """Date strings as data.time with split.gap: 7 days: the hold-out starts at a date, the week before it is in
    neither part, and every split's last fitting date is more than 7 days before its first validation date (split.json's
    record agrees with the rows)."""
    rng = np.random.default_rng(0)
    days = pd.date_range("2020-01-01", periods=400, freq="D")
    frame = pd.DataFrame(
        {
            paths.ROW_ID: np.arange(400),
            "y": rng.integers(0, 2, 400),
            "when": rng.permutation(days.strftime("%Y-%m-%d")),  # rows out of time order
        }
    )
    data = {"target": "y", "task": "auto", "positive_label": None, "group": None, "time": "when"}
    cfg = {"test_size": 0.2, "strategy": "auto", "n_splits": 4, "n_repeats": 1, "valid_size": 0.2, "shuffle": True,
           "gap": 7}  # fmt: skip
    made = folds.split_rows(frame, data, cfg, seed=0)
    when = pd.to_datetime(frame["when"]).to_numpy()
    train_days, test_days = when[made.train], when[made.test]
    assert made.report.strategy == "forward_chaining" and len(made.test) == 80
    assert (test_days.min() - train_days.max()) / np.timedelta64(1, "D") == 8  # the 7 days between are in the gap
    time = made.report.time
    assert time.rows_in_gap == 7 and time.cut == str(pd.Timestamp(test_days.min()).date())
    for (fit, valid), recorded in zip(made.splits, time.splits):
        assert (train_days[valid].min() - train_days[fit].max()) / np.timedelta64(1, "D") > 7
        assert recorded["first_valid"] - recorded["last_fit"] > 7
