"""The stages, declared once: per stage its inputs, code, params and outputs, from which dvc.yaml and the stages'
reference page are generated.

    python -m pipeline.stages.table              # write dvc.yaml from this table
    python -m pipeline.stages.table --check      # exit 1 if dvc.yaml differs from it (a test and .ci run it)
    python -m pipeline.stages.table --markdown   # the stages' reference page (Markdown) on stdout

A stage is `python -m pipeline.stages.<name>` (its module, `pipeline/stages/<name>.py`, is its first code dep); the
output paths are pipeline/core/paths.py's, so each is spelled once. A `why` is written into dvc.yaml as the entry's
comment and onto the reference page.

What dvc.yaml declares and why (docs/architecture.md section 2):

- Each stage lists as deps its own module and the library code it uses, and as params exactly the params.yaml keys
  it reads, so DVC reruns what a change touches (tests/pipeline/test_stage_contract.py runs every compute stage and
  checks the params it reads, the files it writes and the modules it imports against this table).
- pipeline/core is one directory dep: every stage imports most of it, and DVC rewrites dvc.lock once per stage, its
  cost growing with the lock's length (benchmarks/results/pipeline.md); a package's __init__.py that holds only its
  docstring is no dep. This module is no compute stage's dep either: no stage imports it, so editing the table
  reruns only the stages whose declaration changed (and report, whose provenance is all of the code).
- Plot files are plain outputs; the top-level `plots` section (PLOTS) says how to draw them.
- Every output is in DVC's cache except the metrics (committed to git, `cache: false`) and track's record of this
  machine's MLflow run: with no other uncached output, DVC keeps a run-cache entry per stage run, so after a failed
  run and restored inputs `dvc repro` checks the last good outputs out of the cache instead of recomputing them
  (tests/e2e/test_recovery.py).
- One set of outputs for every task kind: a regression target writes the classification plots as empty files, a
  classification target an empty residuals file (docs/architecture.md section 3).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

import yaml

from pipeline.core import paths

REPO = Path(__file__).resolve().parents[2]
DVC_YAML = "dvc.yaml"
REGENERATE = "python -m pipeline.stages.table"


@dataclass(frozen=True)
class Entry:
    """A dep, a params key or an output, with why it is there (a YAML comment in dvc.yaml)."""

    path: str
    why: str = ""
    cache: bool = True  # outputs only: False keeps it out of DVC's cache (committed to git, or this machine's)


def why(path: str | PurePath, text: str, *, cache: bool = True) -> Entry:
    return Entry(_text(path), text, cache)


def uncached(path: str | PurePath, text: str = "") -> Entry:
    return Entry(_text(path), text, cache=False)


def mllib_files(path: PurePath, text: str = "") -> tuple[Entry, Entry]:
    """An mllib.io artifact's two files (`<path>.json` with the hyperparameters, `<path>.npz` with the arrays)."""
    return Entry(f"{_text(path)}.json", text), Entry(f"{_text(path)}.npz")


Item = str | PurePath | Entry


def _text(path: str | PurePath) -> str:
    return path.as_posix() if isinstance(path, PurePath) else path


def _entry(item: Item) -> Entry:
    return item if isinstance(item, Entry) else Entry(_text(item))


def _entries(items: Iterable[Item]) -> tuple[Entry, ...]:
    return tuple(_entry(i) for i in items)


@dataclass(frozen=True)
class Stage:
    """One DVC stage: `python -m pipeline.stages.<name>`.

    inputs are the files other stages (or the user) write, code the source files it runs besides its own module,
    params the params.yaml keys it reads (a section stands for all its keys), outs its cached outputs and metrics its
    metrics files. tracking marks the stages that talk to MLflow (track, monitor): the stage contract's in-process
    runs and the reproducibility checks leave them out."""

    name: str
    inputs: tuple[Entry, ...]
    code: tuple[Entry, ...]
    params: tuple[Entry, ...]
    outs: tuple[Entry, ...]
    metrics: tuple[Entry, ...] = ()
    why: str = ""  # a comment above the stage
    params_why: str = ""
    outs_why: str = ""
    tracking: bool = False

    @property
    def module(self) -> str:
        return f"pipeline.stages.{self.name}"

    @property
    def module_file(self) -> str:
        return f"pipeline/stages/{self.name}.py"

    @property
    def cmd(self) -> str:
        return f"python -m {self.module}"

    @property
    def deps(self) -> tuple[Entry, ...]:
        return (*self.inputs, Entry(self.module_file), *self.code)

    def dep_paths(self) -> list[str]:
        return [e.path for e in self.deps]

    def param_keys(self) -> list[str]:
        return [e.path for e in self.params]

    def output_paths(self) -> list[str]:
        """Every file or directory the stage writes (outs and metrics)."""
        return [e.path for e in (*self.outs, *self.metrics)]


def stage(
    name: str,
    *,
    inputs: Sequence[Item] = (),
    code: Sequence[Item] = (),
    params: Sequence[Item] = (),
    outs: Sequence[Item] = (),
    metrics: Sequence[Item] = (),
    why: str = "",
    params_why: str = "",
    outs_why: str = "",
    tracking: bool = False,
) -> Stage:
    """A Stage from paths, strings and Entries."""
    return Stage(
        name,
        _entries(inputs),
        _entries(code),
        _entries(params),
        _entries(outs),
        _entries(metrics),
        why=why,
        params_why=params_why,
        outs_why=outs_why,
        tracking=tracking,
    )


@dataclass(frozen=True)
class Plot:
    """One chart of the top-level `plots` section: `name` a title (its data in y) or the plotted file itself."""

    name: str | PurePath
    x: str
    y: str | Mapping[PurePath, str | list[str]]
    template: str
    x_label: str = ""
    y_label: str = ""
    title: str = ""

    def spec(self) -> dict[str, object]:
        y = self.y if isinstance(self.y, str) else {_text(p): v for p, v in self.y.items()}
        spec: dict[str, object] = {"x": self.x, "y": y, "template": self.template}
        spec.update(
            {k: v for k, v in (("x_label", self.x_label), ("y_label", self.y_label), ("title", self.title)) if v}
        )
        return spec


# ---------------------------------------------------------------------------------------------------------------------
# The table

INIT = why("pipeline/__init__.py", "the numerical environment (CPU code paths, threads)")
CORE = why("pipeline/core", "config, task kinds, io: every stage imports most of the package")
FROM_ROWS = "the partitioned path writes no matrices: made from the rows by these (pipeline/steps/feature_blocks.py)"
TIME_FEATURE = why("data.time_feature", "the time as a model input (pipeline/core/frames.py)")
DROP = why("data.drop", "a sensitive attribute listed there is audited, never a feature")
# what pipeline/core/frames.py reads to make the feature matrix's rows
FRAME = ("data.group", "data.time", TIME_FEATURE, "data.categorical", DROP)
# the params sections that shape the outputs (their sha256 is the model card's provenance); tracking and compute do not
OUTPUT_SECTIONS = ("seed", "data", "validate", "clean", "split", "features", "model", "search", "assess", "calibration",
                   "decision", "evaluate", "fairness", "explain")  # fmt: skip
SCHEMAS = why("data/schemas", "data.schema's file: another file added to data/raw/ leaves validate as it is")
METRICS_DIR = paths.TRAIN_METRICS.parent
MODELS_DIR = paths.MODEL.parent

STAGES: tuple[Stage, ...] = (
    stage(
        "validate",
        inputs=("${data.path}", SCHEMAS),
        code=(INIT, CORE, "pipeline/steps/validation.py", "mllib/base"),
        params=(
            "data.path",
            "data.target",
            "data.task",
            "data.positive_label",
            "data.group",
            "data.time",
            "data.sensitive",
            "data.drop",
            "data.categorical",
            why("data.schema", "every data key but time_feature, which only the features' stages read"),
            "validate",
            why(
                "compute",
                "a directory of parts on the dask backend: checked part by part (pipeline/core/partitions.py)",
            ),
        ),
        outs=(paths.VALIDATED, paths.QUARANTINE, paths.VALIDATION_REPORT),
    ),
    stage(
        "clean",
        inputs=(paths.VALIDATED, paths.VALIDATION_REPORT),
        code=(INIT, CORE, "pipeline/steps/cleaning.py", "pipeline/steps/partitioned_cleaning.py", "mllib/base"),
        params=(
            "data.drop",
            "data.target",
            "data.group",
            "data.sensitive",
            "data.categorical",
            "clean",
            why("compute", "validate wrote parts: cleaned part by part on the cluster"),
        ),
        outs=(paths.CLEAN, paths.CLEANING_REPORT),
    ),
    stage(
        "split",
        inputs=(paths.CLEAN,),
        code=(INIT, CORE, "pipeline/steps/folds.py", "mllib/model_selection", "mllib/base"),
        params=("seed", "data.target", "data.task", "data.positive_label", "data.group", "data.time", "split"),
        outs=(paths.TRAIN, paths.TEST, paths.FOLDS, paths.TARGET, paths.SPLIT_REPORT),
    ),
    stage(
        "features",
        inputs=(paths.TRAIN, paths.TEST, paths.FOLDS, paths.TARGET),
        code=(
            INIT,
            CORE,
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/feature_fits.py",
            "pipeline/steps/folds.py",
            "mllib",
        ),
        params=(
            "seed",
            "data.target",
            "data.group",
            "data.time",
            TIME_FEATURE,
            "data.categorical",
            DROP,
            "features",
            why("compute", "the split wrote parts: each split's features fitted on the cluster, no matrix written"),
        ),
        outs=(paths.FEATURES_DIR, *mllib_files(paths.FEATURE_TRANSFORMER), paths.FOLD_FEATURES, paths.FEATURES_REPORT),
    ),
    stage(
        "train",
        inputs=(
            paths.FEATURES_DIR,
            *mllib_files(paths.FEATURE_TRANSFORMER, FROM_ROWS),
            paths.FOLD_FEATURES,
            paths.TRAIN,
            paths.FOLDS,
            paths.TARGET,
        ),
        code=(
            INIT,
            CORE,
            "pipeline/steps/comparison.py",
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/folds.py",
            "pipeline/steps/target_transform.py",
            "pipeline/steps/training.py",
            "mllib",
        ),
        params=("seed", "data.target", "data.group", "model", "search", "compute"),
        outs=(
            *mllib_files(paths.MODEL),
            paths.FOLD_MODELS,
            paths.OOF_PREDICTIONS,
            paths.SEARCH_REPORT,
            paths.VALIDATION_CURVE,
            paths.TRAIN_METRICS,
        ),
    ),
    stage(
        "assess",
        inputs=(
            paths.FEATURES_DIR,
            why(paths.FOLD_FEATURES, FROM_ROWS),
            paths.TRAIN,
            paths.FOLDS,
            paths.TARGET,
            paths.TRAIN_METRICS,
            paths.SEARCH_REPORT,
            paths.FEATURES_REPORT,
            why(paths.FOLD_MODELS, "nested CV: a split's outer model where its selection repeats train's choice"),
        ),
        code=(
            INIT,
            CORE,
            "pipeline/steps/assessment.py",
            "pipeline/steps/comparison.py",
            "pipeline/steps/nested_cv.py",
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/folds.py",
            "pipeline/steps/target_transform.py",
            "pipeline/steps/training.py",
            "mllib",
        ),
        params=(
            "seed",
            "data.target",
            *FRAME,
            "split.n_splits",
            why("split.gap", "data.time: nested CV's inner folds chain forward with the gap"),
            "features",
            "model.params",
            why("model.selection", "nested CV around the whole selection (train.json names the models compared)"),
            "search.method",
            "search.grid",
            "search.n_iter",
            "assess",
            why("compute.backend", "where the splits' refits run (worker processes); the results do not depend on it"),
            "compute.n_workers",
        ),
        outs=(paths.ASSESSMENT, paths.LEARNING_CURVE, paths.SWEEP_CURVE),
    ),
    stage(
        "calibrate",
        inputs=(
            why(paths.SPLIT_REPORT, "time-ordered folds: each period's map fitted on the earlier periods"),
            why(paths.TRAIN_METRICS, "a regression target's scale and floor"),
            paths.OOF_PREDICTIONS,
            paths.TRAIN,
            paths.TARGET,
            *mllib_files(paths.FEATURE_TRANSFORMER),
            *mllib_files(paths.MODEL),
            paths.FOLD_FEATURES,
            paths.FOLD_MODELS,
        ),
        code=(
            INIT,
            CORE,
            "pipeline/steps/calibration.py",
            "pipeline/steps/evaluation.py",
            "pipeline/steps/regression.py",
            "pipeline/steps/target_transform.py",
            "mllib",
        ),
        params=("data.sensitive", "calibration", "decision"),
        outs=(*mllib_files(paths.PREDICTOR), paths.OOF_CALIBRATED, paths.RELIABILITY_OOF, paths.CALIBRATION_METRICS),
    ),
    stage(
        "evaluate",
        inputs=(
            paths.TEST,
            paths.TRAIN,
            paths.FEATURES_DIR,
            *mllib_files(paths.FEATURE_TRANSFORMER, FROM_ROWS),
            paths.TARGET,
            *mllib_files(paths.PREDICTOR),
            paths.TRAIN_METRICS,
        ),
        code=(
            INIT,
            CORE,
            "pipeline/steps/comparison.py",
            "pipeline/steps/drift.py",
            "pipeline/steps/evaluation.py",
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/regression.py",
            "pipeline/steps/row_outputs.py",
            "pipeline/steps/target_transform.py",
            "mllib",
            "pipeline/steps/measures.py",
        ),
        params=(
            "data.target",
            *FRAME,
            "data.sensitive",
            "calibration.n_bins",
            "calibration.binning",
            "evaluate",
            "seed",
            "model.params",
            why("monitor.fdr", "the test rows against the training rows (pipeline/steps/drift.py)"),
            "monitor.domain_classifier",
            "monitor.max_rows",
        ),
        outs=(
            paths.TEST_PREDICTIONS,
            paths.ROC_CURVE,
            paths.PR_CURVE,
            paths.CONFUSION,
            paths.RELIABILITY_TEST,
            paths.RISK_COVERAGE,
            paths.RESIDUALS,
            paths.TEST_METRICS,
        ),
    ),
    stage(
        "fairness",
        inputs=(
            paths.TEST,
            paths.TRAIN,
            why(paths.FEATURES_DIR, "the training rows in the deployed features (the reweighed refit)"),
            *mllib_files(paths.FEATURE_TRANSFORMER, FROM_ROWS),
            paths.TARGET,
            paths.TEST_PREDICTIONS,
            paths.OOF_CALIBRATED,
            paths.TRAIN_METRICS,
            *mllib_files(paths.PREDICTOR),
        ),
        code=(INIT, CORE, "pipeline/steps/fairness_audit.py", "pipeline/steps/feature_blocks.py", "mllib"),
        params=(
            "seed",
            "data.target",
            "data.sensitive",
            *FRAME,
            "calibration.n_bins",
            "calibration.binning",
            "fairness",
            why(
                "compute.backend", "the reweighed refit: a thread per worker when local (the same model for any count)"
            ),
            "compute.n_workers",
        ),
        outs=(paths.FAIRNESS_METRICS, paths.FAIRNESS_PLOT),
    ),
    stage(
        "explain",
        inputs=(paths.TEST, paths.TRAIN, paths.TARGET, *mllib_files(paths.PREDICTOR)),
        code=(
            INIT,
            CORE,
            "pipeline/steps/explanations.py",
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/shape_functions.py",
            "pipeline/steps/shapley_values.py",
            "pipeline/steps/target_transform.py",
            "mllib",
        ),
        params=("seed", "data.target", *FRAME, "explain"),
        outs=(
            paths.IMPORTANCE,
            paths.ATTRIBUTIONS,
            paths.PARTIAL_DEPENDENCE,
            paths.IMPORTANCE_PLOT,
            paths.PDP_PLOT,
            paths.SHAPLEY_PLOT,
        ),
    ),
    stage(
        "report",
        # every file the page is built from
        inputs=tuple(
            why(p, "its kind picks the page") if p == paths.TARGET else p for p, _ in paths.REPORT_INPUTS.values()
        ),
        code=(
            "mllib",
            why("pipeline", "the code's git tree ids are the model card's provenance (pipeline/core/provenance.py)"),
        ),
        params=(*OUTPUT_SECTIONS, "tracking.promotion"),
        params_why="every section that shapes the outputs: their sha256 is the model card's provenance",
        outs=(paths.REPORT_HTML, paths.FIGURES_DIR),
        metrics=(uncached(paths.HEADLINE),),
    ),
    stage(
        "track",
        inputs=(
            paths.REPORT_HTML,
            paths.FIGURES_DIR,
            METRICS_DIR,
            paths.SEARCH_REPORT,
            why(paths.FEATURES_REPORT, "the inputs of the version's contract"),
            why(paths.TARGET, "its target"),
            paths.IMPORTANCE,
            paths.ATTRIBUTIONS,
            paths.PARTIAL_DEPENDENCE,
            paths.TRAIN,
            paths.TEST,
            paths.TEST_PREDICTIONS,
            MODELS_DIR,
            paths.HEADLINE,
        ),
        code=(
            why("params.yaml", "logged whole as the run's artifact, its bytes not only its values"),
            INIT,
            CORE,
            "pipeline/reporting/headline.py",
            "pipeline/reporting/page.py",
            why("pipeline/reporting/verdict.py", "the summary that ends its output"),
            "pipeline/serving/contract.py",
            "pipeline/tracking/__init__.py",
            "pipeline/tracking/naming.py",
            "pipeline/tracking/promotion.py",
            "pipeline/tracking/registry.py",
            "pipeline/tracking/runs.py",
            "pipeline/tracking/store.py",
            "pipeline/serving",
            why("pipeline/steps/shapley_values.py", "the served model's reasons compute as the explain stage does"),
        ),
        outs=(uncached(paths.MLFLOW_RUN),),
        tracking=True,
    ),
    stage(
        "monitor",
        why="off by default: with monitor.batch set (or `python -m pipeline.stages.monitor FILE`), a new batch checked "
        "against the model track registered; it fails (exit 1) when a column drifted or a promise broke. The batch "
        "file is named by the param, not hashed: after replacing a file at the same path, `dvc repro -f monitor`",
        inputs=(
            why(paths.MLFLOW_RUN, "the model version the check is tagged with"),
            paths.TRAIN,
            paths.TARGET,
            paths.TEST_PREDICTIONS,
            paths.TEST_METRICS,
            paths.FEATURES_REPORT,
            paths.TRAIN_METRICS,
            MODELS_DIR,
        ),
        code=(
            INIT,
            CORE,
            why("pipeline/reporting/headline.py", "the tracking package's"),
            "pipeline/reporting/monitor_page.py",
            "pipeline/reporting/page.py",
            why("pipeline/reporting/verdict.py", "tracking's"),
            "pipeline/reporting/templates",
            "pipeline/serving",
            "pipeline/steps",
            "pipeline/tracking",
            "mllib",
        ),
        params=(
            "seed",
            "data",
            "validate",
            "features.encoder",
            why("features.categorical_imputer", "a missing label's level (pipeline/serving/contract.py)"),
            "monitor",
            "tracking",
            "calibration.n_bins",
            "calibration.binning",
            "evaluate",
        ),
        outs=(paths.MONITOR_REPORT, paths.MONITOR_PAGE),
        outs_why="in DVC's cache as every compute output is, so a failed run leaves the last good record restorable",
        tracking=True,
    ),
)

CLASS_CURVE = ".dvc/plots/class_curve.json"
RELIABILITY = ".dvc/plots/reliability.json"
INTEGER_CURVE = ".dvc/plots/integer_curve.json"
SPLIT_SCORE = "mean score over the splits (search.scoring)"

PLOTS: tuple[Plot, ...] = (
    Plot("ROC curve (test, per class against the rest)", "fpr", {paths.ROC_CURVE: "tpr"}, CLASS_CURVE,
         "false positive rate", "true positive rate"),
    Plot("Precision-recall curve (test, per class against the rest)", "recall", {paths.PR_CURVE: "precision"},
         CLASS_CURVE, "recall", "precision"),
    Plot(paths.CONFUSION, "predicted", "actual", ".dvc/plots/confusion_counts.json", "predicted class", "actual class",
         "Confusion matrix (test)"),
    Plot("Reliability (out-of-fold, cross-fitted)", "mean_predicted", {paths.RELIABILITY_OOF: "fraction_positive"},
         RELIABILITY),
    Plot("Reliability (test)", "mean_predicted", {paths.RELIABILITY_TEST: "fraction_positive"}, RELIABILITY),
    Plot("Learning curve (grouped splits, train vs validation)", "rows", {paths.LEARNING_CURVE: ["train", "valid"]},
         INTEGER_CURVE, "training rows", SPLIT_SCORE),
    Plot("Validation curve of one hyperparameter (assess.validation_curve, grouped splits)", "value",
         {paths.SWEEP_CURVE: ["train", "valid"]}, ".dvc/plots/hyperparameter_curve.json",
         "hyperparameter value (log scale)", SPLIT_SCORE),
    Plot("Search candidates (train vs validation)", "candidate", {paths.VALIDATION_CURVE: ["train", "valid"]},
         INTEGER_CURVE, "candidate (its index in reports/search.json; its params in the tooltip)", SPLIT_SCORE),
    Plot("Permutation importance (test)", "importance", {paths.IMPORTANCE_PLOT: "feature"}, "bar_horizontal_sorted",
         "drop in the test score (explain.scoring) when the feature's values are permuted", "feature"),
    Plot("Mean |Shapley value| (test sample)", "mean_abs_shapley", {paths.SHAPLEY_PLOT: "feature"},
         "bar_horizontal_sorted", "mean |Shapley value| (units of the explained output, reports/attributions.json)",
         "feature"),
    Plot("Partial dependence (test sample)", "value", {paths.PDP_PLOT: "partial_dependence"},
         ".dvc/plots/partial_dependence.json"),
    Plot("Fairness rates by group (test)", "value", {paths.FAIRNESS_PLOT: "group"}, ".dvc/plots/group_rates.json",
         y_label="group"),
    Plot("Predicted vs actual (test, regression)", "actual", {paths.RESIDUALS: "predicted"}, "scatter",
         "actual target value", "predicted value"),
    Plot("Risk-coverage (test, reject option)", "coverage", {paths.RISK_COVERAGE: "risk"},
         ".dvc/plots/risk_coverage.json"),
)  # fmt: skip


# ---------------------------------------------------------------------------------------------------------------------
# Questions the table answers


def by_name(stages: Sequence[Stage] = STAGES) -> dict[str, Stage]:
    return {s.name: s for s in stages}


def compute_stages(stages: Sequence[Stage] = STAGES) -> list[str]:
    """The stages that compute (all but the MLflow ones), in order: their outputs are byte-reproducible."""
    return [s.name for s in stages if not s.tracking]


def writer_of(path: str | PurePath, stages: Sequence[Stage] = STAGES) -> str:
    """The stage that writes `path` (a declared output, or a file inside a declared directory)."""
    target = _text(path)
    for s in stages:
        if any(target == out or target.startswith(out + "/") for out in s.output_paths()):
            return s.name
    raise KeyError(f"no stage writes {target}")


# ---------------------------------------------------------------------------------------------------------------------
# dvc.yaml

HEADER = f"""\
# Generated by `{REGENERATE}` from the stage table, pipeline/stages/table.py, whose docstring says
# what each stage declares and why: edit the table, not this file (`{REGENERATE} --check` and
# tests/pipeline/test_stage_table.py hold the two equal).
"""
WIDTH = 120


def _scalar(value: str, *, key: bool = False) -> str:
    """value as a plain YAML scalar when it reads back as itself, else double-quoted."""
    probe = f"{value}: 0" if key else f"k: {value}"
    expected = {value: 0} if key else {"k": value}
    try:
        plain = " #" not in value and yaml.safe_load(probe) == expected
    except yaml.YAMLError:
        plain = False
    return value if plain else json.dumps(value)


def _comment(line: str, text: str) -> str:
    return f"{line}  # {text}" if text else line


def _comment_lines(text: str, indent: str) -> list[str]:
    return [f"{indent}# {line}" for line in textwrap.wrap(text, WIDTH - len(indent) - 2)]


def _list(key: str, entries: Sequence[Entry], why: str = "") -> list[str]:
    if not entries:
        return []
    lines = [_comment(f"    {key}:", why)]
    for e in entries:
        if e.cache:
            lines.append(_comment(f"      - {_scalar(e.path)}", e.why))
        else:
            lines += [_comment(f"      - {_scalar(e.path, key=True)}:", e.why), "          cache: false"]
    return lines


def _value(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(str(v)) for v in value) + "]"
    return _scalar(str(value))


def dvc_yaml(stages: Sequence[Stage] = STAGES, plots: Sequence[Plot] = PLOTS) -> str:
    """dvc.yaml's text: the stages, then the plots."""
    lines = HEADER.splitlines() + ["stages:"]
    for i, s in enumerate(stages):
        if i:
            lines.append("")
        lines += _comment_lines(s.why, "  ")
        lines += [f"  {s.name}:", f"    cmd: {_scalar(s.cmd)}"]
        lines += _list("deps", s.deps)
        lines += _list("params", s.params, s.params_why)
        lines += _list("outs", s.outs, s.outs_why)
        lines += _list("metrics", s.metrics)
    if plots:
        lines += ["", "plots:"]
    for p in plots:
        lines.append(f"  - {_scalar(_text(p.name), key=True)}:")
        for k, v in p.spec().items():
            if isinstance(v, Mapping):
                lines.append(f"      {k}:")
                lines += [f"        {_scalar(str(f), key=True)}: {_value(c)}" for f, c in v.items()]
            else:
                lines.append(f"      {k}: {_value(v)}")
    return "\n".join(lines) + "\n"


def difference(current: str, generated: str) -> str | None:
    """None when dvc.yaml is the table's, else what differs first (in one line)."""
    if current == generated:
        return None
    try:
        now = yaml.safe_load(current) or {}
    except yaml.YAMLError as e:
        return f"{DVC_YAML} is not valid YAML ({str(e).splitlines()[0]})"
    new = yaml.safe_load(generated)
    have, want = now.get("stages") or {}, new["stages"]
    if list(have) != list(want):
        extra, missing = [s for s in have if s not in want], [s for s in want if s not in have]
        if extra or missing:
            parts = [f"stage {s} is not in the table" for s in extra] + [f"stage {s} is missing" for s in missing]
            return f"{DVC_YAML}: " + "; ".join(parts)
        return f"{DVC_YAML}: the stages are in another order than the table's"
    for name, spec in want.items():
        for key in dict.fromkeys([*spec, *have[name]]):
            if have[name].get(key) != spec.get(key):
                return f"{DVC_YAML}: stage {name}'s {key} differ from the table's"
    for key in dict.fromkeys([*new, *now]):
        if now.get(key) != new.get(key):
            return f"{DVC_YAML}: {key} differ from the table's"
    a, b = current.splitlines(), generated.splitlines()
    line = next((i + 1 for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)) + 1)
    return f"{DVC_YAML}: comments or layout differ from the table's at line {line}"


# ---------------------------------------------------------------------------------------------------------------------
# The stages' reference page


def description(name: str, root: Path = REPO) -> str:
    """What the stage does: the first paragraph of its module's docstring, without "The <name> stage: "."""
    doc = ast.get_docstring(ast.parse((root / f"pipeline/stages/{name}.py").read_text())) or ""
    text = re.sub(rf"^The {re.escape(name)}(?: stage)?: ", "", " ".join(doc.split("\n\n")[0].split()))
    return text if "/" in text.split(" ")[0] else text[:1].upper() + text[1:]


def summary(name: str, root: Path = REPO) -> str:
    """The description's first clause: up to the first sentence's end, parenthesis, colon or semicolon."""
    clause = re.split(r"(?<=[.?!])\s| \(|: |; ", description(name, root), maxsplit=1)[0].rstrip(",")
    return clause if clause.endswith((".", "?", "!")) else clause + "."


def _md_items(entries: Sequence[Entry]) -> list[str]:
    items = []
    for e in entries:
        notes = [n for n in (e.why, "" if e.cache else "not in DVC's cache") if n]
        items.append(f"- `{e.path}`" + (f": {'; '.join(notes)}" if notes else ""))
    return items or ["- none"]


def stages_markdown(stages: Sequence[Stage] = STAGES, root: Path = REPO, level: int = 1, title: str = "Stages") -> str:
    """The stages' reference page: per stage what it does, its command, inputs, code, params and outputs.

    level is the page title's heading level (each stage's is one more): 2 puts the page inside another one."""
    lines = [
        f"{'#' * level} {title}",
        "",
        f"The pipeline's stages in the order `dvc repro` runs them, generated from `pipeline/stages/table.py` (the "
        f"table `dvc.yaml` is generated from: `{REGENERATE}`). A stage reads the params listed (a section stands for "
        "all its keys) and its inputs, and writes exactly its outputs.",
        "",
        "| Stage | What it does |",
        "| --- | --- |",
        *(f"| [{s.name}](#{s.name}) | {summary(s.name, root)} |" for s in stages),
    ]
    for s in stages:
        lines += ["", f"{'#' * (level + 1)} {s.name}", "", description(s.name, root), ""]
        if s.why:
            lines += [s.why[:1].upper() + s.why[1:] + ".", ""]
        lines += [f"Command: `{s.cmd}`", ""]
        sections: list[tuple[str, Sequence[Entry]]] = [
            ("Inputs", s.inputs),
            ("Code", s.deps[len(s.inputs) :]),
            ("Params", s.params),
            ("Outputs", (*s.outs, *s.metrics)),
        ]
        for title, entries in sections:
            lines += [f"**{title}**", "", *_md_items(entries), ""]
        lines.pop()
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, root: Path = REPO) -> int:
    parser = argparse.ArgumentParser(prog=REGENERATE, description=__doc__.splitlines()[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if dvc.yaml differs from the table")
    mode.add_argument("--markdown", action="store_true", help="print the stages' reference page")
    args = parser.parse_args(argv)
    target = root / DVC_YAML
    if args.markdown:
        sys.stdout.write(stages_markdown(root=root))
        return 0
    generated = dvc_yaml()
    if args.check:
        diff = difference(target.read_text() if target.exists() else "", generated)
        if diff:
            print(f"error: {diff}; run {REGENERATE}", file=sys.stderr)
            return 1
        print(f"{DVC_YAML} is the stage table's")
        return 0
    target.write_text(generated)
    print(f"{DVC_YAML}: {len(STAGES)} stages and {len(PLOTS)} plots written from the stage table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
