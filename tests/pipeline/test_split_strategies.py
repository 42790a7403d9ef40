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
