"""Shared fixtures: a small sample of the default data in a scratch copy of the project's inputs."""

from __future__ import annotations

import importlib  # noqa: E402
import os
import shutil  # noqa: E402
from pathlib import Path

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402
from hypothesis import settings  # noqa: E402

import pipeline  # noqa: F401  (first: fixes BLAS threads and the CPU code paths before numpy loads)

# Property tests draw the same examples on every run, so CI cannot fail at random; explore new examples
# with HYPOTHESIS_PROFILE=explore (any failure found there becomes a fixed example or a fix). No deadline: speed is
# measured by benchmarks, and an example that took 330 ms on a loaded machine is not a failure of the code under test.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parents[1]


# end-to-end modules whose module fixture builds one scratch project per parameter (a corpus file, a scenario), or
# whose parametrized tests each build their own: the first part of a test's parameter id names its project
PROJECT_PER_PARAMETER = (
    "tests/e2e/test_real_data.py",
    "tests/e2e/test_pipeline_e2e.py",
    "tests/e2e/test_serving_reasons.py",
    "tests/e2e/test_partitioned_e2e.py",
)


def pytest_collection_modifyitems(config, items):
    """The modules of one project each (one scope of minutes: test_recovery.py, test_track_resume.py) run before
    the modules of PROJECT_PER_PARAMETER, whose many shorter scopes then fill in: a worker that takes a 4-minute scope
    last leaves the other idle (xdist hands the scopes out in collection order). A stable sort: the order of the tests
    inside a module, which some rely on, is kept."""
    items.sort(key=lambda item: item.nodeid.partition("::")[0] in PROJECT_PER_PARAMETER)


@pytest.hookimpl(optionalhook=True)  # xdist's hook: `pytest -p no:xdist` runs without it
def pytest_xdist_make_scheduler(config, log):
    """make test / test-slow on every core (pytest-xdist, --dist loadscope): a module's tests go to one worker, since
    they share its module fixtures (an end-to-end module's scratch project); the modules of PROJECT_PER_PARAMETER
    are split by project, so their projects spread over the workers (xdist's own loadgroup does not group under
    pytest 9: it renames a node id attribute pytest 9 no longer reads)."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ProjectScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module, _, name = nodeid.partition("::")
            if module in PROJECT_PER_PARAMETER and "[" in name:
                return f"{module}[{name.split('[', 1)[1].rstrip(']').split('-')[0]}]"
            return super()._split_scope(nodeid)

    return ProjectScheduling(config, log)


SAMPLE_EVERY = 15  # every 15th person (~390 persons, ~1,350 person-years, all six sites): stages run in seconds


def sample_frame(every: int = SAMPLE_EVERY) -> pd.DataFrame:
    raw = pd.read_csv(REPO / "data/raw/randhie.csv.gz")
    persons = sorted(raw["zper"].unique())[::every]
    return raw[raw["zper"].isin(persons)].reset_index(drop=True)


@pytest.fixture(scope="session")
def sample_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sample") / "sample.csv"
    sample_frame().to_csv(path, index=False)
    return path


def multiclass_frame(n_groups: int = 300, seed: int = 0) -> pd.DataFrame:
    """A three-class target ("low" < "mid" < "high", text labels) a new user might bring: four numeric columns (one
    with gaps, one irrelevant), a text categorical column, a 0/1 sensitive attribute and a group id (1-4 rows per
    group sharing the group's own level). Classes follow a multinomial logit of the features, so every classifier
    can beat the class prior, none perfectly."""
    import numpy as np

    rng = np.random.default_rng(seed)
    size = rng.integers(1, 5, size=n_groups)
    group = np.repeat(np.arange(1000, 1000 + n_groups), size)
    n = group.size
    level = np.repeat(rng.normal(size=n_groups), size)
    x = rng.normal(size=(n, 4))
    region = rng.choice(["north", "south", "east", "west"], size=n)
    sex = rng.integers(0, 2, size=n)
    effect = {"north": 0.0, "south": 0.8, "east": -0.5, "west": 0.3}
    u = 1.2 * x[:, 0] + 0.8 * level + np.vectorize(effect.get)(region) + 0.3 * sex
    logits = np.column_stack([-u, 0.6 * x[:, 1], u - 0.4])
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    draw = (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    frame = pd.DataFrame(
        {
            "pid": group,
            "x1": x[:, 0].round(4),
            "x2": x[:, 1].round(4),
            "x3": x[:, 2].round(4),
            "noise": x[:, 3].round(4),
            "region": region,
            "sex": sex,
            "grade": np.array(["low", "mid", "high"])[draw],
        }
    )
    frame.loc[rng.random(n) < 0.05, "x3"] = np.nan
    return frame


def regression_frame(n_groups: int = 300, seed: int = 1) -> pd.DataFrame:
    """A continuous target ("spend", non-integer amounts) with the columns of multiclass_frame: a linear signal, a
    group effect and noise that grows with x2 (intervals of constant width over-cover some rows and under-cover
    others)."""
    import numpy as np

    frame = multiclass_frame(n_groups, seed).drop(columns=["grade"])
    rng = np.random.default_rng(seed + 100)
    level = frame.groupby("pid")["x1"].transform("size").to_numpy() * 0.1
    effect = frame["region"].map({"north": 0.0, "south": 1.0, "east": -0.5, "west": 0.3}).to_numpy()
    noise = rng.normal(size=len(frame)) * (0.5 + 0.5 * np.abs(frame["x2"].to_numpy()))
    frame["spend"] = (20 + 3 * frame["x1"] - 2 * frame["x2"] + effect + level + 0.5 * frame["sex"] + noise).round(2)
    return frame


MULTICLASS_DATA = {
    "path": "data/raw/grades.csv",
    "target": "grade",
    "task": "auto",
    "positive_label": None,
    "group": "pid",
    "time": None,
    "time_feature": "none",
    "sensitive": ["sex"],
    "drop": [],
    "categorical": ["region"],
    "schema": None,
}


REGRESSION_DATA = {**MULTICLASS_DATA, "path": "data/raw/spend.csv", "target": "spend"}


def trend_frame(months: int = 60, per_month: int = 12, seed: int = 3) -> pd.DataFrame:
    """A price that drifts upward month by month (2% of the start a month, as rents and house prices do over years)
    beside what describes each sale (size, a region), in time order with the month as ISO date text: the test
    months lie above every training month's prices, which the other columns cannot tell."""
    import numpy as np

    rng = np.random.default_rng(seed)
    month = np.repeat(np.arange(months), per_month)
    size = rng.normal(100, 20, month.size).round(1)
    region = rng.choice(["north", "south", "centre"], month.size)
    effect = pd.Series(region).map({"north": 10.0, "south": -5.0, "centre": 0.0}).to_numpy()
    price = 200 + 4.0 * month + 0.8 * size + effect + rng.normal(0, 8, month.size)
    dates = pd.date_range("2015-01-01", periods=months, freq="MS").strftime("%Y-%m-%d").to_numpy()[month]
    return pd.DataFrame({"month": dates, "size": size, "region": region, "price": price.round(2)})


TREND_DATA = {
    **MULTICLASS_DATA,
    "path": "data/raw/prices.csv",
    "target": "price",
    "group": None,
    "time": "month",
    "sensitive": [],
    "categorical": ["region"],
}


@pytest.fixture(scope="session")
def regression_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("regression") / "spend.csv"
    regression_frame().to_csv(path, index=False)
    return path


@pytest.fixture(scope="session")
def multiclass_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("multiclass") / "grades.csv"
    multiclass_frame().to_csv(path, index=False)
    return path


def make_multiclass_project(root: Path, csv: Path, data: dict = MULTICLASS_DATA, **overrides) -> Path:
    """A project whose params.yaml differs from the repository's in the `data` section only (plus overrides)."""
    make_project(root, csv, **overrides)
    shutil.copy(csv, root / data["path"])
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["data"] = dict(data)
    for key, value in overrides.items():
        if key.startswith("data."):
            params["data"][key.removeprefix("data.")] = value
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def make_regression_project(root: Path, csv: Path, **overrides) -> Path:
    return make_multiclass_project(root, csv, REGRESSION_DATA, **overrides)


# the promotion policy of the sample (267 test rows in ~90 persons: AUC 0.68 with the lower end of its interval 0.57,
# test ECE's upper end 0.13, race's parity gap 0.51 with the upper end of its interval 0.82),
# so that its first state is a champion the registry tests can replace; the default policy of params.yaml is for the
# default data
SAMPLE_POLICY = {
    "tracking.promotion.min_headline.binary": 0.5,
    "tracking.promotion.max_ece": 0.2,
    "tracking.promotion.max_fairness_gap": 0.9,
}


def set_dotted(params: dict, key: str, value) -> None:
    """params[a][b][c] = value for key "a.b.c"."""
    *parents, leaf = key.split(".")
    node = params
    for p in parents:
        node = node[p]
    node[leaf] = value


def edit_params(root: Path, key: str, value) -> None:
    """Set one dotted key of the project's params.yaml."""
    params = yaml.safe_load((root / "params.yaml").read_text())
    set_dotted(params, key, value)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def make_project(root: Path, sample_csv: Path, **overrides) -> Path:
    """params.yaml, the schema and a sample CSV under `root`; overrides are dotted params keys."""
    (root / "data/raw").mkdir(parents=True, exist_ok=True)
    shutil.copy(sample_csv, root / "data/raw/sample.csv")
    shutil.copytree(REPO / "data/schemas", root / "data/schemas", dirs_exist_ok=True)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["data"]["path"] = "data/raw/sample.csv"
    # one process per stage: the tests run side by side (pytest -n auto), most stages in the test's own process, and
    # the default (null: a worker per core) would fork from it; tests/pipeline/test_compute.py checks that the
    # results do not depend on the workers, and the e2e runs (dvc repro of the repository's params) use the default
    params["compute"]["n_workers"] = 1
    for key, value in overrides.items():
        set_dotted(params, key, value)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def cost_matrix_at_a_step(probabilities) -> list[list[int]]:
    """A 2 x 2 cost matrix [[0, b - a], [a, 0]] whose Bayes threshold a / b is exactly one of the given
    probabilities (isotonic calibration's steps are fractions of counts), the one nearest 3/4: rows decided at
    p = t exactly tell the rule p >= t from p > t."""
    from fractions import Fraction

    for v in sorted({float(p) for p in probabilities}, key=lambda v: (abs(v - 0.75), v)):
        f = Fraction(v).limit_denominator(100_000)
        if 0.5 < v < 0.95 and f.numerator / f.denominator == v:
            return [[0, f.denominator - f.numerator], [f.numerator, 0]]
    raise AssertionError("no probability is a fraction a / b in (0.5, 0.95)")


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory, sample_csv) -> Path:
    """The sample project under SAMPLE_POLICY after one `dvc repro` (a git repository with its MLflow store), built
    once per test process: the end-to-end modules that start from this state each take a copy (sample_copy) instead
    of building their own (a whole pipeline run, 35-50 s each)."""
    from dvc_project import git_repo, repro  # tests/e2e: on the path once an end-to-end module asks for this

    root = git_repo(make_project(tmp_path_factory.mktemp("built_sample"), sample_csv, **SAMPLE_POLICY))
    repro(root)
    return root


def sample_copy(built: Path, parent: Path) -> Path:
    """A copy of the built sample project in `parent`, its MLflow store pointed at the copy's own artifacts as a user
    who copied a repository would (`python -m pipeline.tracking.store relocate`)."""
    from dvc_project import sh

    root = parent / "project"
    shutil.copytree(built, root, symlinks=True)
    moved = sh(root, "python", "-m", "pipeline.tracking.store", "relocate")
    assert moved.returncode == 0 and "now points at" in moved.stdout, moved.stdout + moved.stderr
    return root


SHARED_STAGES = ["validate", "clean", "split", "features"]
MODEL_STAGES = ["train", "assess", "calibrate", "evaluate", "fairness", "explain"]


def run_stages(root: Path, monkeypatch, stages: list[str]) -> None:
    """Run stages in-process, in order, inside the project at `root`."""
    monkeypatch.chdir(root)
    for stage in stages:
        importlib.import_module(f"pipeline.stages.{stage}").main()


def classification_target(n_classes: int):
    """The Target of classes 0..n_classes-1 (Binary for two, Multiclass for more), for the helpers that take one."""
    from pipeline.core.task import Target

    task = "binary" if n_classes == 2 else "multiclass"
    return Target(task=task, column="y", classes=list(range(n_classes)), reason="test")


def copy_repo(root: Path, items) -> Path:
    """This repository's `items` (directories and files) copied into `root`, caches left out."""
    for item in items:
        source, target = REPO / item, root / item
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
        else:
            shutil.copy(source, target)
    return root
