"""pipeline/tracking/runs.py helpers (no MLflow server): the repository root under `dvc exp run --temp`, tracking-URI
precedence, stage output md5s from dvc.lock, the pipeline-state key, metric-name mapping, metric flattening."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from partial_records import partial

from pipeline.core.errors import PipelineError
from pipeline.core.evaluation_records import ClassificationCalibration, RegressionCalibration
from pipeline.core.records import TrainMetrics
from pipeline.tracking.naming import monitor_experiment, names
from pipeline.tracking.promotion import Check
from pipeline.tracking.registry import experiment_outside_workspace
from pipeline.tracking.runs import (
    metric_key,
    repo_root,
    stage_output_md5s,
    state_key,
    tracking_uri,
)

# MLflow's rule for metric and param names (mlflow.utils.validation); checked against MLflow itself below
MLFLOW_NAME = re.compile(r"^[/\w.\- :]*$")


@pytest.fixture
def clean_env(monkeypatch):
    monkeypatch.delenv("DVC_ROOT", raising=False)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    return monkeypatch


# ---- repo_root and tracking_uri -----------------------------------------------------------------------------


def test_repo_root_is_the_working_directory(clean_env, tmp_path):
    clean_env.chdir(tmp_path)
    assert repo_root() == tmp_path.resolve()


def test_repo_root_from_dvc_root(clean_env, tmp_path):
    clean_env.setenv("DVC_ROOT", str(tmp_path / "repo"))
    assert repo_root() == (tmp_path / "repo").resolve()


@pytest.mark.parametrize("inside", [".dvc/tmp/exps/standalone/tmp8a9b", ".dvc/tmp/exps/run/exp-1a2b3/sub"])
def test_repo_root_under_dvc_experiment_temp_dir(clean_env, tmp_path, inside):
    repo = tmp_path.resolve() / "repo"
    work = repo / inside
    work.mkdir(parents=True)
    clean_env.chdir(work)
    assert repo_root() == repo
    clean_env.setenv("DVC_ROOT", str(work))
    assert repo_root() == repo


def test_repo_root_ignores_lookalike_directories(clean_env, tmp_path):
    work = tmp_path.resolve() / "repo" / "dvc" / "tmp" / "exps" / "x"
    work.mkdir(parents=True)
    clean_env.chdir(work)
    assert repo_root() == work


def test_tracking_uri_default_is_sqlite_at_repo_root(clean_env, tmp_path):
    clean_env.chdir(tmp_path)
    assert tracking_uri(None) == f"sqlite:///{tmp_path.resolve() / 'mlflow.db'}"


def test_tracking_uri_default_under_experiment_temp_dir_points_at_real_repo(clean_env, tmp_path):
    repo = tmp_path.resolve()
    work = repo / ".dvc/tmp/exps/standalone/tmpx"
    work.mkdir(parents=True)
    clean_env.chdir(work)
    assert tracking_uri(None) == f"sqlite:///{repo / 'mlflow.db'}"


def test_tracking_uri_precedence_env_over_params_over_default(clean_env, tmp_path):
    clean_env.chdir(tmp_path)
    assert tracking_uri("http://params:5000") == "http://params:5000"
    clean_env.setenv("MLFLOW_TRACKING_URI", "http://env:5000")
    assert tracking_uri("http://params:5000") == "http://env:5000"
    assert tracking_uri(None) == "http://env:5000"


# ---- dvc.lock md5s and the state key ------------------------------------------------------------------------

LOCK = {
    "schema": "2.0",
    "stages": {
        "validate": {
            "cmd": "python -m pipeline.stages.validate",
            "outs": [
                {"path": "data/interim/validated.parquet", "md5": "aaa", "size": 1},
                {"path": "reports/validation.json", "md5": "bbb", "size": 2},
            ],
        },
        "features": {"outs": [{"path": "data/features", "md5": "ccc.dir", "size": 3, "nfiles": 7}]},
        "track": {"outs": [{"path": "reports/mlflow_run.json", "md5": "ddd"}]},
        "report": {"deps": [{"path": "x", "md5": "e"}]},  # no outs
    },
}


def test_stage_output_md5s(tmp_path):
    lock = tmp_path / "dvc.lock"
    lock.write_text(yaml.safe_dump(LOCK))
    assert stage_output_md5s(lock) == {
        "features:data/features": "ccc.dir",
        "validate:data/interim/validated.parquet": "aaa",
        "validate:reports/validation.json": "bbb",
    }  # track is skipped: its output names an MLflow run
    assert "track:reports/mlflow_run.json" in stage_output_md5s(lock, skip=())


def test_stage_output_md5s_missing_or_empty_lock(tmp_path):
    with pytest.raises(PipelineError, match="dvc.lock"):
        stage_output_md5s(tmp_path / "dvc.lock")
    (tmp_path / "dvc.lock").write_text("")
    assert stage_output_md5s(tmp_path / "dvc.lock") == {}


def test_state_key_is_stable_and_order_free():
    flat = {"seed": 42, "split.n_splits": 5, "data.sensitive": ["female", "black"]}
    md5s = {"validate:a": "1", "split:b": "2"}
    key = state_key(flat, md5s)
    assert re.fullmatch(r"[0-9a-f]{16}", key)
    assert state_key(dict(reversed(list(flat.items()))), dict(reversed(list(md5s.items())))) == key
    assert state_key({**flat, "split.n_splits": 4}, md5s) != key
    assert state_key(flat, {**md5s, "split:b": "3"}) != key
    assert state_key({**flat, "tracking.uri": None}, md5s) != key


# ---- metric names -------------------------------------------------------------------------------------------


def test_metric_key_maps_group_labels():
    key = metric_key("female=1,black=0")
    assert key == "female_1_black_0"
    assert MLFLOW_NAME.match(key)
    assert (
        metric_key("fairness.attributes.female & black.groups.female=1,black=0.tpr")
        == "fairness.attributes.female _ black.groups.female_1_black_0.tpr"
    )


def test_metric_key_keeps_valid_names():
    for name in ("test.roc_auc", "train.cv-mean", "a/b c", "x_1"):
        assert metric_key(name) == name


@given(st.text(max_size=40))
def test_metric_key_always_valid_characters(name):
    key = metric_key(name)
    assert len(key) == max(len(name), 1)  # an empty name is "_" (MLflow refuses "")
    assert MLFLOW_NAME.match(key) and key.isascii()


def test_metric_key_accepted_by_mlflow():
    validation = pytest.importorskip("mlflow.utils.validation")
    for raw in (
        "female=1,black=0",
        "fairness.attributes.female & black.groups.female=1,black=0.tpr",
        "gaps.selection_rate (max/min)",
        "ü=1;x",
    ):
        validation._validate_metric_name(metric_key(raw))
        assert MLFLOW_NAME.match(metric_key(raw))
    with pytest.raises(Exception):
        validation._validate_metric_name("female=1,black=0")  # the raw label is not a valid name


def test_real_lock_md5s_cover_every_stage_but_track():
    repo = Path(__file__).resolve().parents[2]
    if not (repo / "dvc.lock").exists():
        pytest.skip("no dvc.lock")
    stages = yaml.safe_load((repo / "dvc.yaml").read_text())["stages"]
    md5s = stage_output_md5s(repo / "dvc.lock")
    assert not any(k.startswith("track:") for k in md5s)
    assert {k.split(":")[0] for k in md5s} <= set(stages) - {"track"}


def test_the_run_carries_what_the_card_warns_about():
    """A named calibration map worse than none and fits stopped at their caps are tags of the MLflow run."""
    from pipeline.tracking.runs import run_warnings

    quiet = {"not_converged": {"folds": [], "refit": False, "messages": []}}
    quiet = partial(TrainMetrics, quiet)
    assert run_warnings(quiet, partial(ClassificationCalibration, {"warning": None, "not_converged": []})) == {}
    trained = {"not_converged": {"folds": [2], "refit": False, "messages": ["stopped at max_iter=10"]}}
    calibration = {"warning": "calibration.method isotonic makes the probabilities worse", "not_converged": ["platt"]}
    assert run_warnings(partial(TrainMetrics, trained), partial(ClassificationCalibration, calibration)) == {
        "warning.calibration": "calibration.method isotonic makes the probabilities worse",
        "warning.not_converged": "stopped at max_iter=10",
        "warning.calibration_not_converged": "platt",
    }
    regression = partial(RegressionCalibration, {"not_converged": []})
    assert run_warnings(quiet, regression) == {}  # a regression target's calibration report


def test_names_beyond_mlflows_limit_are_shortened_the_same_way_every_time():
    from pipeline.tracking.runs import KEY_LIMIT, fitted, metric_key

    long_key = "fairness." + "x" * 300 + ".demographic_parity"
    renamed: dict = {}
    short = metric_key(long_key, renamed)
    assert len(short) == KEY_LIMIT and short == metric_key(long_key) and renamed == {short: long_key}
    assert short.startswith("fairness.xxx") and re.fullmatch(r"[A-Za-z0-9_\-. /]+", short)  # MLflow's characters
    other = metric_key("fairness." + "x" * 300 + ".equal_opportunity")
    assert other != short  # the hash tells apart names sharing their first 241 characters
    assert fitted("lam", KEY_LIMIT, renamed) == "lam" and len(renamed) == 1


class _Version:
    def __init__(self, version: str, decision: str | None, figure: float, target: str = "y (binary)"):
        self.version = version
        self.tags = {"headline.test.roc_auc": str(figure), "contract.target": target}
        if decision:
            self.tags["promotion.decision"] = decision


class _Registry:
    def __init__(self, versions):
        self.versions = versions

    def search_model_versions(self, filter_string):
        return self.versions


def test_the_gate_compares_with_the_best_champion_so_far_not_the_current_one():
    """0.7661 -> 0.7660 -> 0.7655, each within 0.005 of the last, drifted down before; the best champion (0.7661)
    is the reference now, a version that never was champion is not, nor one of another target; one with other inputs
    is (a contract change is still compared)."""
    from pipeline.core.task import Target
    from pipeline.tracking.promotion import champion_check
    from pipeline.tracking.registry import best_champion

    registry = _Registry(
        [
            _Version("1", "former champion (replaced by version 2)", 0.7661),
            _Version("2", "champion", 0.7660),
            _Version("3", "candidate only", 0.9),
            _Version("4", "former champion (replaced by version 5)", 0.95, target="other (binary)"),
        ]
    )
    best = best_champion(registry, "m", "test.roc_auc", {"contract.target": "y (binary)"})
    assert (best.version, best.figure) == ("1", 0.7661)
    check = champion_check({"test.roc_auc": 0.7606}, Target("binary", "y", [0, 1], "set"), best, 0.005)
    assert check.passed is False and check.bound == pytest.approx(0.7611)
    assert check.note == "best champion so far: version 1"
    assert best_champion(_Registry([]), "m", "test.roc_auc", {"contract.target": "y (binary)"}) is None
    registry.versions[0].tags["contract.inputs"] = '["a:numeric"]'  # other inputs: still the best to beat
    assert best_champion(registry, "m", "test.roc_auc", {"contract.target": "y (binary)"}).version == "1"


def test_the_description_never_says_every_check_passes_when_one_was_skipped():
    """The issue's case: an attribute's gaps not evaluated (skipped with fail_not_evaluated false) and the description
    said "every check passes"."""
    from pipeline.tracking.promotion import description

    checks = [
        Check("a", 0.8, 0.7, True),
        Check("every audited attribute and intersection has its fairness gaps", None, None, None,
              "not evaluated: race.demographic_parity_gap"),
    ]  # fmt: skip
    text = description(True, checks, "run1")
    assert text.startswith("Champion: every check evaluated passes, 1 skipped")
    assert "not evaluated: race.demographic_parity_gap" in text and "every check passes" not in text
    assert description(True, checks[:1], "run1").startswith("Champion: all 1 checks pass")
    assert "\n- a: 0.8 (bound 0.7) passes" in text and "**" not in text.splitlines()[0]


def test_the_description_escapes_what_the_data_puts_in_it():
    """MLflow renders a version's description as markdown with HTML: a group or column name from the data must not
    inject markup, and a line break in it must not end its list item."""
    from pipeline.tracking.promotion import description

    note = "group <script>alert(1)</script> | a|b\nnext"
    text = description(False, [Check("gap of <b>", 0.3, 0.2, False, note)], "r")
    item = text.splitlines()[-1]
    assert "<script>" not in text and "<b>" not in text and "&lt;script&gt;" in text
    assert item.startswith("- gap of &lt;b&gt;: 0.3 (bound 0.2) FAILS") and item.endswith("next)"), item
    assert len(text.splitlines()) == 3 and text.startswith("Candidate only: 1 of 1 checks fail")


@pytest.mark.parametrize(
    "path, target, tracking, expected",
    [
        ("data/raw/randhie.csv.gz", "binexp", {}, ("randhie-binexp", "randhie-binexp")),
        ("data/raw/my churn.parquet", "churned?", {}, ("my-churn-churned", "my-churn-churned")),
        ("data/parts/", "y", {}, ("parts-y", "parts-y")),  # a directory of parts
        ("data/raw/a.csv", "y", {"experiment": "team"}, ("team", "team")),
        ("data/raw/a.csv", "y", {"experiment": "team", "registered_model": "m"}, ("team", "m")),
    ],
)
def test_one_registered_model_per_question_named_from_the_data(path, target, tracking, expected):
    """The issue: a penguin file became version 5 of the health model. Unless tracking names them, the experiment and
    the registered model are named from the file and the target, so another file or target gets its own."""
    params = {"data": {"path": path, "target": target}, "tracking": {"experiment": None, "registered_model": None}}
    params["tracking"].update(tracking)
    assert names(params) == expected
    assert monitor_experiment(expected[0]) == f"{expected[0]} monitor"


def test_a_run_in_dvc_s_experiment_folder_is_outside_the_workspace(tmp_path, monkeypatch):
    """DVC runs a queued or temporary experiment in .dvc/tmp/exps/standalone/tmp... with DVC_ROOT set to the
    workspace's root (dvc/repo/experiments/queue/base.py): the working directory tells them apart."""
    monkeypatch.delenv("DVC_EXP_NAME", raising=False)
    monkeypatch.setenv("DVC_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert experiment_outside_workspace() is None
    temp = tmp_path / ".dvc" / "tmp" / "exps" / "standalone" / "tmpab12"
    temp.mkdir(parents=True)
    monkeypatch.chdir(temp)
    assert experiment_outside_workspace() == "tmpab12" and repo_root() == tmp_path
    monkeypatch.setenv("DVC_EXP_NAME", "thresh07")
    assert experiment_outside_workspace() == "thresh07"
