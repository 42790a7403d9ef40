"""Where independent tasks run (params.yaml `compute`): here one by one, in local worker processes, or on Dask.

A task runner has the signature mllib.model_selection.evaluate_candidates expects: run(fn, shared, tasks, progress)
returns [fn(shared[k], arg) for (k, arg) in tasks] in task order. `shared` is the splits' data (tasks come split
by split): local workers get it once at their start (a pipeline.steps.training.FoldData: the paths, each worker
reading a split's matrix when it reaches it), a Dask cluster gets each split's arrays while its tasks run; what crosses
a process boundary is arrays and estimator specifications (registry classes and their hyperparameters), never a
model file. Results do not depend on the backend or the number of workers: every task is
seeded by its own estimator's random_state, and results are gathered in task order. Worker processes inherit the
numerical environment pinned by pipeline/__init__.py (one BLAS thread, the x86-64-v3 code paths).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from .errors import PipelineError
from .json_types import JSON
from .progress import Progress

if TYPE_CHECKING:
    from distributed import Client, Future

    from mllib.base import BaseEstimator

T = TypeVar("T")  # an item, or a task's argument
S = TypeVar("S")  # a split's shared data
R = TypeVar("R")  # a task's result
M = TypeVar("M", bound="BaseEstimator")

DetailedProgress = Callable[[int, int, Any], object]  # progress(done, total, the task's argument)


class TaskRunner(Protocol):
    """run(fn, shared, tasks, progress) -> [fn(shared[k], arg) for (k, arg) in tasks], in task order."""

    def __call__(
        self,
        fn: Callable[[S, T], R],
        shared: Sequence[S],
        tasks: list[tuple[int, T]],
        progress: DetailedProgress | None = None,
    ) -> list[R]: ...


_SHARED: Sequence[Any] = []  # a local worker's shared data (its initializer sets it)


def workers(cfg: JSON) -> int:
    """compute.n_workers, or the machine's cores when null."""
    return cfg["n_workers"] or os.cpu_count() or 1


@contextmanager
def task_runner(cfg: JSON) -> Iterator[TaskRunner | None]:
    """The runner of params.yaml `compute` (backend local | dask), opened for a stage and closed after it."""
    n = workers(cfg)
    if cfg["backend"] == "dask":
        with dask_client(cfg) as client:
            yield lambda fn, shared, tasks, progress=None: _run_dask(client, fn, shared, tasks, progress)
    elif n == 1:
        yield None  # evaluate_candidates runs the tasks one by one in this process
    else:
        yield lambda fn, shared, tasks, progress=None: _run_local(n, fn, shared, tasks, progress)


def plan_workers(cfg: JSON) -> int:
    """How many worker processes of this machine run a stage's plans (run_plans): compute.n_workers (null: the
    cores) when compute.backend is local and the platform forks (the plans' work may then be closures over this
    process's data: forked workers inherit it, nothing but the items and results is pickled), else 1 (one by one
    here)."""
    return workers(cfg) if cfg["backend"] == "local" and _start_method() == "fork" else 1


@dataclass(frozen=True)
class Work:
    """Independent per-split work a step asks for: fn(item) for each item, the results in item order; `what` names
    it in the progress line."""

    fn: Callable[[Any], Any]
    items: list[Any]
    what: str


# A step written as a generator: it yields the Work it needs, receives the results and goes on to return its own.
# The stage runs several steps' plans together (run_plans), so that one step's last split overlaps the next step's
# first (one pool per step left a worker idle at each step's end: 5 splits on 2 workers).
Plan = Generator[Work, list[Any], T]


def run_plans(plans: Sequence[Plan[Any]], n_workers: int = 1, what: str = "") -> list[Any]:
    """Each plan's result, in order: every plan advanced to the work it asks for, all that work run in one pool of
    n_workers forked processes (one task per item, in the plans' order; 1: one by one here), the results sent back,
    until every plan has returned; `what` titles the progress line (empty: none). The results do not depend on
    n_workers: each item's does not depend on where it runs."""
    returned: dict[int, Any] = {}
    asked: dict[int, Work] = {}

    def advance(i: int, results: list[Any] | None) -> None:
        try:
            asked[i] = plans[i].send(results)  # type: ignore[arg-type]  # None starts a generator
        except StopIteration as done:
            returned[i] = done.value

    for i in range(len(plans)):
        advance(i, None)
    while asked:
        round_, fns = list(asked.items()), [work.fn for _, work in asked.items()]
        asked.clear()
        tasks = [(k, item) for k, (_, work) in enumerate(round_) for item in work.items]
        names = [work.what for _, work in round_]
        line = Progress(what) if what else None

        def progress(done: int, total: int, _item: object = None) -> None:  # each line names the step of its fit
            if line is not None:
                line(done, total, names[tasks[done - 1][0]])

        if n_workers < 2 or len(tasks) < 2:
            outputs = []
            for done, (k, item) in enumerate(tasks, start=1):
                outputs.append(fns[k](item))
                progress(done, len(tasks))
        else:
            outputs = _run_local(n_workers, _apply, fns, tasks, progress)
        start = 0
        for i, work in round_:
            advance(i, outputs[start : start + len(work.items)])
            start += len(work.items)
    return [returned[i] for i in range(len(plans))]


def run_plan(plan: Plan[T]) -> T:
    """One plan's result, its work one by one here (a step used outside a stage, and its tests)."""
    result: T = run_plans([plan])[0]
    return result


@contextmanager
def own_threads(model: M, cfg: JSON) -> Iterator[M]:
    """For a fit in the stage's own process while no worker runs (train's refit, fairness's reweighed refit): a model
    with threads of its own (n_jobs, its own or a wrapped model's: the additive model's bags side by side, the same
    model for any count) gets compute.n_workers of them, set back after the fit so that the saved model does not
    depend on the machine's cores."""
    before = {
        k: v for k, v in model.get_params().items() if k == "n_jobs" or (k.endswith("__n_jobs") and k.count("__") == 1)
    }
    if cfg["backend"] != "local" or not before:
        yield model
        return
    model.set_params(**{k: workers(cfg) for k in before})
    try:
        yield model
    finally:
        model.set_params(**before)
        for key, value in before.items():  # a wrapper's fitted copy of its inner model too (StandardizedTarget's)
            fitted = getattr(model, key.split("__")[0] + "_", None) if key != "n_jobs" else None
            if fitted is not None:
                fitted.set_params(n_jobs=value)


def _apply(fn: Callable[[T], R], item: T) -> R:
    return fn(item)


def _start_method() -> str:
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def _init_worker(shared: Sequence[Any]) -> None:
    global _SHARED
    _SHARED = shared


def _call(task: tuple[Callable[[Any, Any], R], int, Any]) -> R:
    fn, k, arg = task
    return fn(_SHARED[k], arg)


def _run_local(
    n: int, fn: Callable[[S, T], R], shared: Sequence[S], tasks: list[tuple[int, T]], progress: DetailedProgress | None
) -> list[R]:
    # fork where the platform has it: a worker starts in ~0.1 s with this process's modules, compiled numba code and
    # the fold matrices already in memory (spawn re-imports everything, ~1 s per worker). Safe here: the stage holds
    # no threads of its own (one BLAS thread, numba without parallel loops), so no lock is forked mid-flight.
    context = multiprocessing.get_context(_start_method())
    with ProcessPoolExecutor(
        max_workers=min(n, len(tasks)), mp_context=context, initializer=_init_worker, initargs=(shared,)
    ) as pool:
        out: list[R] = []
        for done, result in enumerate(pool.map(_call, [(fn, k, arg) for k, arg in tasks]), start=1):
            out.append(result)
            if progress is not None:
                progress(done, len(tasks), tasks[done - 1][1])
    return out


# A local cluster shares the machine's cores with the tasks it runs, so whatever it does besides them is taken from
# the tasks (measured: its scheduler, in this process, used ~1 s of CPU during a 15 s search, slowing the search by
# ~15% against the local backend's workers). Its workers are forked (as the local backend's: they start with this
# process's modules); the statistical profiler (a stack sample every 10 ms in every worker), the memory monitor
# (memory_limit=0), work stealing and the active memory manager (pointless for independent tasks queued on the
# scheduler) are off, and the event loops' health checks run every second instead of every 20 ms.
_LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.multiprocessing-method": _start_method(),
    "distributed.worker.profile.enabled": False,
    "distributed.scheduler.work-stealing": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.scheduler.active-memory-manager.start": False,
}


@contextmanager
def dask_client(cfg: JSON) -> Iterator[Client]:
    """A Dask client on compute.scheduler, or on a LocalCluster of compute.n_workers processes (one thread each),
    closed when the block ends; one clear message when dask is missing or the scheduler cannot be reached."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise PipelineError(
            "params.yaml: compute.backend is dask, but dask.distributed is not installed; "
            "pip install 'dask[distributed]' or use compute.backend: local"
        ) from None
    if cfg["scheduler"]:
        try:
            client = Client(cfg["scheduler"], timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise PipelineError(
                f"params.yaml: compute.scheduler {cfg['scheduler']!r} cannot be reached "
                f"({type(exc).__name__}: {exc}); start the Dask scheduler or set compute.scheduler: "
                "null for a local cluster"
            ) from None
        with client:
            yield client
        return
    import dask

    with (
        dask.config.set(_LOCAL_CLUSTER_CONFIG),
        LocalCluster(
            n_workers=workers(cfg),
            threads_per_worker=1,
            processes=True,
            memory_limit=0,
            dashboard_address=None,
            # CRITICAL: a worker's heartbeat racing the scheduler's close is logged as an ERROR; a task's own error
            # reaches the stage through its result
            silence_logs=50,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


_SPLITS_ON_CLUSTER = 2  # one split's tasks running while the next split's arrays arrive


def _run_dask(
    client: Client,
    fn: Callable[[S, T], R],
    shared: Sequence[S],
    tasks: list[tuple[int, T]],
    progress: DetailedProgress | None,
) -> list[R]:
    """Each split's arrays are scattered to the workers when its first task is submitted and released when its last
    result is in; at most _SPLITS_ON_CLUSTER splits are on the cluster at a time, so its memory does not grow with the
    number of splits (tasks come split by split: mllib.model_selection.evaluate_candidates)."""
    last_task = {k: i for i, (k, _) in enumerate(tasks)}
    scattered: dict[int, Any] = {}  # split -> the future of its arrays on the cluster
    futures: list[Future[R] | None] = []  # a task's future until its result is in
    submitted = 0

    def submit_more() -> None:
        nonlocal submitted
        while submitted < len(tasks) and (tasks[submitted][0] in scattered or len(scattered) < _SPLITS_ON_CLUSTER):
            k, arg = tasks[submitted]
            if k not in scattered:
                scattered[k] = client.scatter([shared[k]], broadcast=True)[0]  # one future for the split
            # priorities in task order: the tasks run first-come first-served, so the progress lines move
            futures.append(client.submit(fn, scattered[k], arg, pure=False, priority=-submitted))
            submitted += 1

    out: list[R] = []
    submit_more()
    for done in range(1, len(tasks) + 1):
        out.append(cast("Future[R]", futures[done - 1]).result())  # submitted by now: tasks are submitted in order
        futures[done - 1] = None
        k = tasks[done - 1][0]
        if last_task[k] == done - 1:
            del scattered[k]  # the split's data leaves the cluster once nothing needs it
            submit_more()
        if progress is not None:
            progress(done, len(tasks), tasks[done - 1][1])
    return out
