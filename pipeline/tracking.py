"""MLflow bookkeeping for the track stage, the only code that talks to MLflow (DESIGN.md section 6).
One parent run per pipeline state (params + every stage output md5), found again rather than duplicated
when the same state is tracked twice; one child run per search candidate with its per-fold scores."""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import yaml

from .errors import PipelineError

# Set before mlflow is imported: no usage telemetry, and a down server fails fast instead of retrying for minutes.
os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "1")
os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "10")
os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")

_EXPERIMENT_TMP = f"{os.sep}.dvc{os.sep}tmp{os.sep}exps{os.sep}"


def repo_root() -> Path:
    """The repository root, also under `dvc exp run --temp/--queue` (which runs in .dvc/tmp/exps/...)."""
    root = str(Path(os.environ.get("DVC_ROOT", Path.cwd())).resolve())
    return Path(root.split(_EXPERIMENT_TMP)[0])


def tracking_uri(configured: str | None) -> str:
    """MLFLOW_TRACKING_URI if set, else params.yaml tracking.uri, else sqlite:///<repo root>/mlflow.db."""
    return os.environ.get("MLFLOW_TRACKING_URI") or configured or f"sqlite:///{repo_root() / 'mlflow.db'}"


def stage_output_md5s(lock_file: Path = Path("dvc.lock"), skip: tuple[str, ...] = ("track",)) -> dict[str, str]:
    """{'<stage>:<path>': md5} for every output recorded in dvc.lock."""
    try:
        lock = yaml.safe_load(lock_file.read_text()) or {}
    except FileNotFoundError:
        raise PipelineError("dvc.lock not found; run the pipeline with `dvc repro` so outputs have DVC md5s") from None
    return {
        f"{stage}:{out['path']}": out.get("md5", "")
        for stage, entry in sorted(lock.get("stages", {}).items()) if stage not in skip
        for out in entry.get("outs", [])
    }


def state_key(flat_params: dict, md5s: dict) -> str:
    payload = json.dumps({"params": flat_params, "outputs": md5s}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def git_info() -> dict[str, str]:
    def git(*args):
        try:
            return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""
    return {"git.commit": git("rev-parse", "HEAD") or "unknown",
            "git.dirty": str(bool(git("status", "--porcelain", "--untracked-files=no")))}


_INVALID_KEY = re.compile(r"[^A-Za-z0-9_\-. /]")


def metric_key(key: str) -> str:
    """MLflow metric names allow letters, digits, _ - . space and /; group labels like 'female=1' need mapping."""
    return _INVALID_KEY.sub("_", key)


def numeric_leaves(obj, prefix: str = "") -> dict[str, float]:
    """Flatten a metrics JSON to {dotted.key: number}, skipping undefined (null) values, strings and lists."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(numeric_leaves(v, f"{prefix}{k}."))
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        out[metric_key(prefix.rstrip("."))] = float(obj)
    return out
