"""pipeline.core.compute: the search's (candidate, fold) tasks give the same results one by one, on 2 local worker
processes and on a 2-worker Dask LocalCluster; an unreachable scheduler is one message naming compute.scheduler."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.gradient_boosting import GradientBoostingClassifier
from mllib.metrics import get_scorer
from mllib.model_selection import evaluate_candidates
from pipeline.core.compute import own_threads, task_runner
from pipeline.core.errors import PipelineError


def folds(seed=0, n=300, k=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=n) > 1).astype(int)
    part = np.arange(n) % k
    return [(X[part != j], y[part != j], X[part == j], y[part == j]) for j in range(k)]


def search(cfg):
    grid = [{"max_leaf_nodes": m, "subsample": s} for m in (4, 8) for s in (0.7, 1.0)]
    with task_runner(cfg) as run:
        results = evaluate_candidates(
            GradientBoostingClassifier(max_iter=15, random_state=3), grid, folds(), get_scorer("roc_auc"), run_tasks=run
        )
    return [
        (r["valid_scores"].tolist(), r["train_scores"].tolist(), [v.tolist() for v in r["oof_values"]]) for r in results
    ]


def test_results_are_identical_for_every_backend_and_worker_count():
    one = search({"backend": "local", "n_workers": 1, "scheduler": None})
    assert search({"backend": "local", "n_workers": 2, "scheduler": None}) == one
    assert search({"backend": "dask", "n_workers": 2, "scheduler": None}) == one


def test_an_unreachable_scheduler_names_the_key():
    with pytest.raises(PipelineError, match=r"compute.scheduler 'tcp://127.0.0.1:9' cannot be reached"):
        with task_runner({"backend": "dask", "n_workers": 1, "scheduler": "tcp://127.0.0.1:9"}):
            pass


def test_plans_run_together_give_each_its_serial_results_in_order_from_forked_workers():
    """assess's steps as plans (a closure over this process's arrays as each one's work; one of them asking twice):
    run together on 2 forked workers, each plan gets the results it gets alone one by one, in item order."""
    from pipeline.core.compute import Work, plan_workers, run_plan, run_plans

    X = np.random.default_rng(0).normal(size=(200, 3))

    def one_split(k: int) -> tuple:  # a closure: never pickled, inherited by the forked workers
        return k, float(X[k::5].sum()), X[k::5, 0].copy()

    def sums(n):
        found = yield Work(one_split, list(range(n)), "sums")
        return [(k, s) for k, s, _ in found]

    def twice():  # asks again with what its first work returned
        first = yield Work(lambda k: k * k, [1, 2, 3], "squares")
        second = yield Work(lambda k: -k, first, "negated")
        return second

    def nothing():  # returns before asking for any work
        return "done"
        yield

    alone = [run_plan(sums(5)), run_plan(twice()), run_plan(nothing())]
    together = run_plans([sums(5), twice(), nothing()], n_workers=2, what="test")
    assert together == alone == [[(k, float(X[k::5].sum())) for k in range(5)], [-1, -4, -9], "done"]
    assert plan_workers({"backend": "local", "n_workers": 3, "scheduler": None}) == 3
    assert plan_workers({"backend": "dask", "n_workers": 3, "scheduler": None}) == 1


def test_own_threads_fits_on_every_worker_and_leaves_the_saved_model_as_it_was():
    """A lone fit in the stage's process gets compute.n_workers threads (the additive model's n_jobs, inside the
    regression wrapper too), set back on the model and on the wrapper's fitted copy: model.json must not depend on
    the machine's cores. Not on Dask, and a model without threads is untouched."""
    from mllib.additive import ExplainableBoostingRegressor
    from mllib.regression import StandardizedTarget

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.normal(size=200)
    model = StandardizedTarget(ExplainableBoostingRegressor(outer_bags=2, max_rounds=5, interactions=0))
    with own_threads(model, {"backend": "local", "n_workers": 2}):
        assert model.get_params()["regressor__n_jobs"] == 2
        model.fit(X, y)
        assert model.regressor_.n_jobs == 2
    assert model.regressor.n_jobs == 1 and model.regressor_.n_jobs == 1
    with own_threads(model, {"backend": "dask", "n_workers": 2}):
        assert model.get_params()["regressor__n_jobs"] == 1
    plain = GradientBoostingClassifier(max_iter=5)
    with own_threads(plain, {"backend": "local", "n_workers": 2}):
        assert plain.get_params() == GradientBoostingClassifier(max_iter=5).get_params()
