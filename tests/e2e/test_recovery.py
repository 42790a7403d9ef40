"""A failed run loses nothing, and every fault ends in one clear message. DVC removes a stage's outputs before
running it, so each output of the last good
run must survive elsewhere: every output except track's record is in DVC's cache (metrics through the run-cache),
and after the failing input is restored `dvc repro` checks the last good outputs out of the run-cache: no stage
runs again, and dvc.lock and every output are those of the last good run. Checked for a failure in validate (a
broken data file), in train (a hyperparameter the model does not have) and in report (the process killed with
SIGKILL while it writes, after a changed calibration method has already rewritten the stages before it). Faults:
the MLflow server unreachable (only track fails), a full disk and a read-only output directory while a stage
writes (one message naming the path, the previous outputs intact), and two runs at once (DVC's lock refuses the
second)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time

import pytest
import yaml
from conftest import make_project
from dvc_project import git_repo, in_cache, output_md5s, repro, sh, user_env

from pipeline.stages.table import compute_stages

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def good(tmp_path_factory, sample_csv):
    root = git_repo(make_project(tmp_path_factory.mktemp("good"), sample_csv, **{"split.n_splits": 3}))
    repro(root)
    return root


@pytest.fixture
def project(good, tmp_path):
    root = tmp_path / "project"
    shutil.copytree(good, root, symlinks=True)
    return root


def edit_params(root, change) -> str:
    original = (root / "params.yaml").read_text()
    params = yaml.safe_load(original)
    change(params)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return original


def assert_nothing_lost(root, good_md5s: dict) -> None:
    missing = [out for out, md5 in good_md5s.items() if not in_cache(root, md5)]
    assert not missing, f"outputs of the last good run that no cache holds: {missing}"


def assert_back_without_recomputing(root, good_md5s: dict) -> None:
    result = repro(root)
    ran = [line for line in result.stdout.splitlines() if line.startswith("Running stage") and "'track'" not in line]
    assert not ran, ran
    assert output_md5s(root) == good_md5s
    for out, md5 in good_md5s.items():  # the files themselves, not only the lock
        path = root / out.split(": ", 1)[1]
        if path.is_file():
            assert sh(root, "md5sum", str(path)).stdout.split()[0] == md5, out
    status = sh(root, "dvc", "status", "--json")
    assert status.stdout.strip() in ("{}", ""), status.stdout


def test_failure_in_validate(project):
    good_md5s = output_md5s(project)
    data = project / "data/raw/sample.csv"
    original = data.read_bytes()
    data.write_bytes(original[: len(original) // 2].rsplit(b"\n", 1)[0] + b"\n1,2\n")  # a ragged last row
    result = sh(project, "dvc", "repro")
    assert result.returncode != 0 and "error: " in result.stderr + result.stdout
    assert "Running stage 'clean'" not in result.stdout
    assert_nothing_lost(project, good_md5s)
    data.write_bytes(original)
    assert_back_without_recomputing(project, good_md5s)


def test_failure_in_train(project):
    good_md5s = output_md5s(project)
    original = edit_params(project, lambda p: p["model"]["params"].update(logistic_regression={"depth": 3}))
    result = sh(project, "dvc", "repro")
    assert result.returncode != 0 and "model.params.logistic_regression.depth" in result.stderr + result.stdout
    assert_nothing_lost(project, good_md5s)
    (project / "params.yaml").write_text(original)
    assert_back_without_recomputing(project, good_md5s)


def test_failure_in_report_after_earlier_stages_reran(project):
    good_md5s = output_md5s(project)
    original = edit_params(project, lambda p: p["calibration"].update(method="isotonic"))
    run = subprocess.Popen(
        ["dvc", "repro"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=user_env()
    )
    killed = _kill_when_running(project, "pipeline.stages.report", timeout=300)
    output = run.communicate(timeout=300)[0]
    assert killed and run.returncode != 0, output[-2000:]
    assert "Running stage 'calibrate'" in output and "Running stage 'report'" in output
    assert_nothing_lost(project, good_md5s)
    (project / "params.yaml").write_text(original)
    assert_back_without_recomputing(project, good_md5s)


def test_an_unknown_top_level_key_stops_the_next_repro(project):
    """A typo that no stage reads (a new top-level key) is refused on the next `dvc repro`: track depends on the whole
    params.yaml, so any edit reruns it, and it checks every key before anything else (0.4 s). After the fix, nothing
    but track reruns, and it finds the state recorded."""
    good_md5s = output_md5s(project)
    original = edit_params(project, lambda p: p.update(splt={"test_size": 0.3}))
    result = sh(project, "dvc", "repro")
    assert result.returncode != 0 and "params.yaml: unknown key splt" in result.stderr, result.stderr[-2000:]
    assert [line for line in result.stdout.splitlines() if line.startswith("Running stage")] == [
        "Running stage 'track':"
    ]
    (project / "params.yaml").write_text(original)
    assert_back_without_recomputing(project, good_md5s)


STAGES = compute_stages()  # all but track and monitor (MLflow)


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_killed_at_two_points_is_recomputed_alone_and_reproduces(good, tmp_path, stage):
    """The kill corpus: SIGKILL inside each stage as soon as its process starts, and halfway through its uninterrupted
    run time (reading, fitting or writing); then `dvc repro` reruns that stage alone (or checks its outputs out of
    the run cache) and dvc.lock's outputs are those of the uninterrupted run."""
    root = tmp_path / "project"
    shutil.copytree(good, root, symlinks=True)
    good_md5s = output_md5s(root)
    started = time.monotonic()  # the stage's own process, uninterrupted: it rewrites the same bytes
    assert sh(root, "python", "-m", f"pipeline.stages.{stage}").returncode == 0
    duration = time.monotonic() - started
    for delay in (0.0, duration / 2):
        for _attempt in range(4):  # a run faster than the timed one (the machine less busy) can end before the kill:
            run = subprocess.Popen(["dvc", "repro", "-f", "-s", stage], cwd=root, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, env=user_env())  # fmt: skip
            killed = _kill_when_running(root, f"pipeline.stages.{stage}", timeout=120, delay=delay)
            output = run.communicate(timeout=600)[0]
            if run.returncode != 0 or not killed:
                break
            delay /= 2  # then again, killed sooner
        assert killed and run.returncode != 0, (delay, duration, output[-1000:])
        result = repro(root)
        ran = [line for line in result.stdout.splitlines() if line.startswith("Running stage")]
        assert ran in ([f"Running stage '{stage}':"], []), (delay, ran, output[-1000:])
        assert output_md5s(root) == good_md5s, delay
    assert sh(root, "dvc", "status", "--json").stdout.strip() in ("{}", "")


def _kill_when_running(root, module: str, timeout: float, signal_to_send=signal.SIGKILL, delay: float = 0.5) -> bool:
    """Send `signal_to_send` (None: nothing, only wait) to the process running `module` in `root` once it appears,
    `delay` seconds later."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pattern = r"^\S*python[0-9.]* -m " + module.replace(".", r"\.")  # the interpreter, not a shell around it
        found = subprocess.run(["pgrep", "-f", "--", pattern], capture_output=True, text=True)
        for pid in found.stdout.split():
            cwd = subprocess.run(["readlink", f"/proc/{pid}/cwd"], capture_output=True, text=True).stdout.strip()
            if cwd == str(root):
                if signal_to_send is not None:
                    time.sleep(delay)  # let it start reading, fitting or writing
                    subprocess.run(["kill", f"-{signal_to_send.value}", pid])
                return True
        time.sleep(0.05)
    return False


# ---- faults: the tracking server, the disk, the file system, a second run ------------------------------------


def test_tracking_server_unreachable_fails_track_only(project):
    good_md5s = output_md5s(project)
    original = edit_params(project, lambda p: p["tracking"].update(uri="http://127.0.0.1:9"))
    (project / "reports/mlflow_run.json").unlink()  # the state must be logged again
    switch = sh(project, "dvc", "repro")  # another store than the last run's: refused until the switch is recorded
    assert switch.returncode != 0 and "python -m pipeline.tracking.store use" in switch.stderr, switch.stderr
    assert sh(project, "python", "-m", "pipeline.tracking.store", "use").returncode == 0
    result = sh(project, "dvc", "repro")
    assert result.returncode != 0
    message = [line for line in result.stderr.splitlines() if line.startswith("error: track:")]
    assert len(message) == 1 and "http://127.0.0.1:9" in message[0] and "Start the server" in message[0], result.stderr
    assert output_md5s(project) == good_md5s
    (project / "params.yaml").write_text(original)
    assert sh(project, "python", "-m", "pipeline.tracking.store", "use").returncode == 0  # back to mlflow.db
    repro(project)  # the default store again: only track runs
    assert (project / "reports/mlflow_run.json").exists()


def stage_alone(root, stage: str, limit_kb: int | None = None) -> subprocess.CompletedProcess:
    """`python -m pipeline.stages.<stage>` in `root`, optionally with files capped at limit_kb (a full disk: writes
    beyond the cap fail with EFBIG, which Python reports as an OSError)."""
    cap = f"ulimit -f {limit_kb}; " if limit_kb else ""
    return subprocess.run(
        ["bash", "-c", f"{cap}exec python -m pipeline.stages.{stage}"],
        cwd=root,
        capture_output=True,
        text=True,
        env=user_env(),
    )


def assert_one_message_and_unchanged(result, root, files: list[str], before: dict, *fragments) -> None:
    message = result.stderr.strip()
    assert result.returncode == 1 and message.startswith("error: ") and "\n" not in message, message
    assert "Traceback" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert {f: (root / f).read_bytes() for f in files} == before, "a failed write damaged an earlier output"


def test_disk_full_while_writing_the_report(project):
    files = ["reports/report.html", *(str(p.relative_to(project)) for p in (project / "reports/figures").iterdir())]
    before = {f: (project / f).read_bytes() for f in files}
    result = stage_alone(project, "report", limit_kb=64)
    assert_one_message_and_unchanged(result, project, files, before, "reports/", "File too large", "free disk space")


def test_read_only_output_directory(project):
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("mount namespaces are not available here: `unshare -m` failed")
    files = ["reports/metrics/test.json", "data/predictions/test.parquet"]
    before = {f: (project / f).read_bytes() for f in files}
    script = (
        "mount --bind reports/metrics reports/metrics && mount -o remount,ro,bind reports/metrics && "
        "exec python -m pipeline.stages.evaluate"
    )
    result = subprocess.run(
        ["unshare", "-m", "bash", "-c", script], cwd=project, capture_output=True, text=True, env=user_env()
    )
    assert_one_message_and_unchanged(result, project, files, before, "reports/metrics", "Read-only file system")


def test_two_runs_at_once(project):
    good_md5s = output_md5s(project)
    first = subprocess.Popen(
        ["dvc", "repro", "-f", "-s", "train"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=user_env(),
    )
    assert _kill_when_running(project, "pipeline.stages.train", timeout=120, signal_to_send=None)
    second = sh(project, "dvc", "repro")
    assert second.returncode != 0 and "lock" in (second.stderr + second.stdout).lower()
    assert first.wait(timeout=300) == 0, first.stdout.read()[-2000:]
    assert output_md5s(project) == good_md5s  # the same inputs: the forced run wrote the same bytes
