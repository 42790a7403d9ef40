"""Bad input stops a stage with exit status 1 and one clear message naming the file, column or key and the
fix, and leaves the outputs of the previous good run intact (atomic writes). Each case runs the real command
(`python -m pipeline.stages.<name>`) in a copy of a project where validate, clean and split already succeeded."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import classification_target, edit_params, make_project

GOOD_STAGES = ["validate", "clean", "split"]
OUTPUTS = {
    "validate": ["data/interim/validated.parquet", "data/interim/quarantine.parquet", "reports/validation.json"],
    "split": [
        "data/processed/train.parquet",
        "data/processed/test.parquet",
        "data/processed/folds.parquet",
        "data/processed/target.json",
        "reports/split.json",
    ],
    "train": ["data/processed/target.json"],  # train writes nothing before its checks: the split's files stand
    "features": ["data/processed/target.json"],  # likewise
}
OUTCOMES = [
    "meddol",
    "outpdol",
    "drugdol",
    "suppdol",
    "mentdol",
    "inpdol",
    "lnmeddol",
    "totadm",
    "inpmis",
    "mentvis",
    "notmdvis",
]


def run(stage: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", f"pipeline.stages.{stage}"], cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def good_project(tmp_path_factory, sample_csv) -> Path:
    root = make_project(tmp_path_factory.mktemp("good"), sample_csv)
    for stage in GOOD_STAGES:
        result = run(stage, root)
        assert result.returncode == 0, result.stderr
    return root


@pytest.fixture
def project(good_project, tmp_path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(good_project, root)
    return root


def digests(root: Path, files: list[str]) -> dict[str, str]:
    return {f: hashlib.md5((root / f).read_bytes()).hexdigest() for f in files}


def edit_data(root: Path, change) -> None:
    path = root / "data/raw/sample.csv"
    frame = pd.read_csv(path)
    change(frame)
    frame.to_csv(path, index=False)


def assert_stopped_cleanly(root: Path, stage: str, *fragments: str) -> str:
    before = digests(root, OUTPUTS[stage])
    result = run(stage, root)
    message = result.stderr.strip()
    assert result.returncode == 1, (result.returncode, message)
    assert "Traceback" not in message, message
    assert message.startswith("error: ") and "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in: {message}"
    assert digests(root, OUTPUTS[stage]) == before, "a failing stage changed the outputs of the previous good run"
    return message


def test_unknown_params_key(project):
    edit_params(project, "split.n_split", 5)
    assert_stopped_cleanly(project, "validate", "params.yaml", "unknown key split.n_split")


def test_wrong_params_type(project):
    edit_params(project, "split.n_splits", "five")
    assert_stopped_cleanly(project, "validate", "params.yaml", "split.n_splits", "an integer")


def test_misnamed_target_column(project):
    edit_params(project, "data.target", "binexpp")
    assert_stopped_cleanly(project, "validate", "data.target", "'binexpp'", "data/raw/sample.csv", "binexp")


def test_missing_categorical_column(project):
    edit_data(project, lambda f: f.__delitem__("site"))
    assert_stopped_cleanly(project, "validate", "data.categorical", "'site'", "data/raw/sample.csv")


def test_wrong_dtype(project):
    def text_in_age(frame):
        frame["xage"] = frame["xage"].astype(object)
        frame.loc[3, "xage"] = "forty"

    edit_data(project, text_in_age)
    assert_stopped_cleanly(project, "validate", "data/raw/sample.csv", "column 'xage'", "forty")


def test_empty_file(project):
    (project / "data/raw/sample.csv").write_text("")
    assert_stopped_cleanly(project, "validate", "data/raw/sample.csv", "empty")


def test_header_only_file(project):
    header = (project / "data/raw/sample.csv").read_text().splitlines()[0]
    (project / "data/raw/sample.csv").write_text(header + "\n")
    assert_stopped_cleanly(project, "validate", "data/raw/sample.csv", "no rows")


def test_missing_data_file(project):
    edit_params(project, "data.path", "data/raw/nothing.csv")
    assert_stopped_cleanly(project, "validate", "data/raw/nothing.csv", "data.path")


def test_target_with_one_class(project):
    edit_data(project, lambda f: f.__setitem__("binexp", 1))
    assert_stopped_cleanly(project, "validate", "data.target", "'binexp'", "single value")


def three_classes(frame, rare_rows: int = 0) -> None:
    """visits: none / few / many physician visits (mdvis binned); `rare_rows` rows get a fourth class "rare"."""
    frame["visits"] = pd.cut(frame["mdvis"], [-1, 0, 3, 1000], labels=["none", "few", "many"]).astype(str)
    frame.loc[frame.index[:rare_rows], "visits"] = "rare"


def use_visits_target(root: Path) -> None:
    edit_params(root, "data.target", "visits")
    edit_params(root, "data.positive_label", None)
    edit_params(root, "data.drop", OUTCOMES + ["mdvis", "binexp"])


@pytest.mark.parametrize(
    "task, data_change, fragments",
    [
        (
            "binary",
            three_classes,
            ["data.task is binary", "'visits'", "3 distinct values", "'few'", "'many'", "'none'"],
        ),
        ("multiclass", None, ["data.task is multiclass", "'binexp'", "only 2 distinct values [0, 1]"]),
    ],
)
def test_forced_task_that_contradicts_the_target(project, task, data_change, fragments):
    if data_change:
        edit_data(project, data_change)
        use_visits_target(project)
    edit_params(project, "data.task", task)
    assert_stopped_cleanly(project, "validate", "params.yaml", "set data.task to auto", *fragments)


def test_positive_label_of_a_multiclass_target(project):
    edit_data(project, three_classes)
    use_visits_target(project)
    edit_params(project, "data.positive_label", "few")
    assert_stopped_cleanly(project, "validate", "data.positive_label", "multiclass", "set it to null")


def use_spending_target(root: Path) -> None:
    """meddol, the year's medical spending in dollars: a regression target (the other outcomes stay dropped)."""
    edit_params(root, "data.target", "meddol")
    edit_params(root, "data.positive_label", None)
    edit_params(root, "data.drop", [c for c in OUTCOMES if c != "meddol"] + ["binexp"])


@pytest.mark.parametrize(
    "value, fragments",
    [
        (float("nan"), ["'meddol'", "data row 4"]),
        (float("inf"), ["'meddol'", "inf", "data row 4"]),
    ],
)
def test_a_regression_target_with_a_missing_or_infinite_value(project, value, fragments):
    edit_data(project, lambda f: f.__setitem__("meddol", f["meddol"].where(f.index != 3, value)))
    use_spending_target(project)
    edit_params(project, "validate.missing_target", "fail")  # default: an unlabelled row is quarantined
    assert_stopped_cleanly(project, "validate", *fragments)


def test_a_constant_regression_target(project):
    edit_data(project, lambda f: f.__setitem__("meddol", 12.5))
    use_spending_target(project)
    assert_stopped_cleanly(project, "validate", "'meddol'", "single value [12.5]")


def test_a_classifier_named_for_a_regression_task(project):
    use_spending_target(project)
    edit_params(project, "model.name", "random_forest")
    for stage in ("validate", "clean", "split", "features"):
        assert run(stage, project).returncode == 0, stage
    assert_stopped_cleanly(
        project,
        "train",
        "model.name 'random_forest' is a classifier",
        "regression target",
        "choose a regressor",
        "ridge",
        "or auto",
    )


def test_lda_projection_for_a_regression_target(project):
    use_spending_target(project)
    edit_params(project, "features.projection", {"name": "lda", "params": {}})
    for stage in ("validate", "clean", "split"):
        assert run(stage, project).returncode == 0, stage
    OUTPUTS["features"] = ["data/processed/target.json"]
    assert_stopped_cleanly(project, "features", "features.projection lda", "'meddol' is a regression target", "pca")


def test_a_class_with_fewer_rows_than_folds_is_named(project):
    edit_data(project, lambda f: three_classes(f, rare_rows=3))
    use_visits_target(project)
    for stage in ("validate", "clean"):
        assert run(stage, project).returncode == 0
    assert_stopped_cleanly(
        project, "split", "class 'rare'", "data.target 'visits'", "split.n_splits = 5", "lower split.n_splits"
    )


def test_a_regressor_named_for_a_classification_task(project):
    edit_params(project, "model.name", "ridge")
    assert_stopped_cleanly(
        project,
        "train",
        "model.name 'ridge' is a regressor",
        "binary target",
        "choose a classifier",
        "logistic_regression",
        "or auto",
    )


def test_a_scorer_of_another_task(project):
    edit_params(project, "search.scoring", "roc_auc_ovr")
    assert_stopped_cleanly(project, "train", "search.scoring 'roc_auc_ovr'", "binary target", "'roc_auc'", "or auto")


def test_out_of_range_row_with_fail_policy(project):
    edit_data(project, lambda f: f.__setitem__("xage", f["xage"].where(f.index != 5, 200.0)))
    assert_stopped_cleanly(
        project, "validate", "column 'xage'", "data row 6, line 7 of the file", "validate.on_invalid: quarantine"
    )


def test_out_of_range_row_quarantined_when_asked(project):
    edit_data(project, lambda f: f.__setitem__("xage", f["xage"].where(f.index != 5, 200.0)))
    edit_params(project, "validate.on_invalid", "quarantine")
    assert run("validate", project).returncode == 0
    quarantine = pd.read_parquet(project / "data/interim/quarantine.parquet")
    assert 5 in quarantine["_row_id"].tolist()
    assert "xage" in quarantine.set_index("_row_id").loc[5, "_reason"]
    summary = yaml.safe_load((project / "reports/validation.json").read_text())
    assert summary["rows_in"] == summary["rows_kept"] + summary["rows_quarantined"]


def test_fewer_groups_than_folds(project):
    edit_params(project, "split.n_splits", 1000)
    assert_stopped_cleanly(project, "split", "data.group", "'zper'", "split.n_splits = 1000")


def test_missing_upstream_output_names_the_stage_to_run(project):
    (project / "data/interim/clean.parquet").unlink()
    assert_stopped_cleanly(project, "split", "data/interim/clean.parquet", "dvc repro clean")


def test_unknown_calibration_method(project):
    edit_params(project, "calibration.method", "venn_abers")  # a calibration method mllib does not implement
    assert_stopped_cleanly(project, "validate", "params.yaml", "calibration.method", "'venn_abers'", "isotonic")


@pytest.mark.parametrize("matrix", [[[0, 1], [1]], [[0, 1], [1, 2]], [[0, -1], [1, 0]]])
def test_invalid_cost_matrix(project, matrix):
    edit_params(project, "decision.cost_matrix", matrix)
    assert_stopped_cleanly(project, "validate", "params.yaml", "decision.cost_matrix", "K x K", "strictly cheaper")


def test_unknown_mitigation_criterion(project):
    edit_params(project, "fairness.mitigation.criterion", "predictive_parity")
    assert_stopped_cleanly(project, "validate", "params.yaml", "fairness.mitigation.criterion", "equal_opportunity")


def test_calibration_settings_for_an_unknown_method(project):
    edit_params(project, "calibration.params", {"venn_abers": {"a": 1}})
    assert_stopped_cleanly(
        project,
        "validate",
        "params.yaml",
        "calibration.params.venn_abers",
        "not a calibration method",
        "histogram_binning",
    )


def test_calibration_setting_the_calibrator_does_not_have():
    """Checked by the calibrate stage, which builds the calibrator."""
    from pipeline.core.errors import PipelineError
    from pipeline.steps.calibration import calibrator_of

    cfg = {"method": "platt", "params": {"platt": {"n_bins": 5}}}
    with pytest.raises(
        PipelineError, match=r"calibration.params.platt.n_bins: platt has no hyperparameter.*smooth_targets"
    ):
        calibrator_of(cfg, classification_target(2))


def test_reweighing_switch_must_be_a_boolean(project):
    edit_params(project, "fairness.reweighing", "yes")
    assert_stopped_cleanly(project, "validate", "params.yaml", "fairness.reweighing", "true or false")


# ---- the file itself: format, encoding, names, values ---------------------------------------------------------


def write_raw(root: Path, name: str, content: bytes) -> None:
    """Replace the data file with `name` holding `content` (params.yaml data.path follows)."""
    (root / "data/raw" / name).write_bytes(content)
    edit_params(root, "data.path", f"data/raw/{name}")


def sample_bytes(root: Path) -> bytes:
    return (root / "data/raw/sample.csv").read_bytes()


def test_truncated_gzip_file(project):
    import gzip

    whole = gzip.compress(sample_bytes(project))
    write_raw(project, "sample.csv.gz", whole[: len(whole) // 2])
    assert_stopped_cleanly(project, "validate", "data/raw/sample.csv.gz", "truncated or not valid gzip", "gzip -t")


def test_file_not_in_utf8(project):
    text = sample_bytes(project).decode().replace("binexp", "binexp_caf\u00e9", 1)
    write_raw(project, "latin.csv", text.encode("latin-1"))
    assert_stopped_cleanly(project, "validate", "data/raw/latin.csv", "not UTF-8", "iconv -f latin1 -t utf-8")


def test_a_latin1_byte_is_reported_where_it_is(project):
    """The first byte that is not UTF-8 is named at its true offset and line (not the decoder's chunk offset)."""
    data = sample_bytes(project)
    header_end = data.index(b"\n") + 1
    second_end = data.index(b"\n", header_end) + 1
    write_raw(project, "latin.csv", data[:second_end] + b"\xe9" + data[second_end:])
    assert_stopped_cleanly(
        project, "validate", "data/raw/latin.csv", f"byte 0xe9 at byte offset {second_end}, line 3", "iconv"
    )


@pytest.mark.parametrize(
    "content, what, fix",
    [
        (lambda b: __import__("gzip").compress(b), "gzip-compressed", "mv data/raw/sample.csv data/raw/sample.csv.gz"),
        (lambda b: b"PAR1" + b[:100], "a Parquet file", "sample.parquet"),
        (lambda b: b"PK\x03\x04" + b[:100], "a zip archive", "unzip"),
    ],
)
def test_a_compressed_file_named_csv_is_named_for_what_it_is(project, content, what, fix):
    write_raw(project, "sample.csv", content(sample_bytes(project)))
    assert_stopped_cleanly(project, "validate", "data/raw/sample.csv", what, fix)


def test_binary_garbage_named_csv(project):
    write_raw(project, "garbage.csv", bytes(range(256)) * 20)
    assert_stopped_cleanly(project, "validate", "data/raw/garbage.csv")


def test_corrupt_parquet(project):
    write_raw(project, "sample.parquet", b"PAR1" + b"\x00" * 100)
    assert_stopped_cleanly(project, "validate", "data/raw/sample.parquet", "cannot be read")


def test_unsupported_format(project):
    write_raw(project, "sample.xlsx", b"PK")
    assert_stopped_cleanly(project, "validate", "data/raw/sample.xlsx", "unsupported format", ".csv")


def test_data_path_is_a_directory_without_data_files(project):
    (project / "data/raw/empty").mkdir()
    edit_params(project, "data.path", "data/raw/empty")
    assert_stopped_cleanly(project, "validate", "data.path", "data/raw/empty is a directory without .parquet or .csv")


def test_parts_with_different_columns(project):
    """data.path a directory of parts (pipeline/core/partitions.py): a part missing a column is named."""
    frame = pd.read_csv(project / "data/raw/sample.csv")
    (project / "data/raw/parts").mkdir()
    frame.iloc[:500].to_csv(project / "data/raw/parts/a.csv", index=False)
    frame.iloc[500:].drop(columns=["xage"]).to_csv(project / "data/raw/parts/b.csv", index=False)
    edit_params(project, "data.path", "data/raw/parts")
    assert_stopped_cleanly(project, "validate", "data/raw/parts/b.csv", "columns differ", "missing ['xage']")


def test_duplicate_column_names(project):
    lines = sample_bytes(project).decode().splitlines()
    header = lines[0].split(",")
    header[header.index("fmde")] = "xage"  # two columns named xage
    write_raw(project, "dup.csv", "\n".join([",".join(header), *lines[1:]]).encode() + b"\n")
    assert_stopped_cleanly(project, "validate", "data/raw/dup.csv", "duplicate column names ['xage']", "rename")


def test_semicolon_separated_file(project):
    write_raw(project, "semi.csv", sample_bytes(project).replace(b",", b";"))
    assert_stopped_cleanly(project, "validate", "data.target", "'binexp'", "not in data/raw/semi.csv")


def test_ragged_row(project):
    write_raw(project, "ragged.csv", sample_bytes(project) + b"1,2,3" + b",4" * 60 + b"\n")
    assert_stopped_cleanly(project, "validate", "data/raw/ragged.csv", "cannot be read")


def test_reserved_column_name(project):
    edit_data(project, lambda f: f.insert(0, "_row_id", range(len(f))))
    assert_stopped_cleanly(project, "validate", "'_row_id'", "reserves", "rename")


def test_missing_sensitive_column(project):
    edit_params(project, "data.sensitive", ["female", "ethnicity"])
    assert_stopped_cleanly(project, "validate", "data.sensitive", "'ethnicity'", "data/raw/sample.csv")


@pytest.mark.parametrize("column", ["binexp", "zper", "female"])
def test_missing_value_in_a_required_column(project, column):
    edit_data(project, lambda f: f.__setitem__(column, f[column].astype(float).where(f.index != 7)))
    if column == "binexp":  # default: an unlabelled row is quarantined; validate.missing_target: fail stops
        edit_params(project, "validate.missing_target", "fail")
    assert_stopped_cleanly(project, "validate", f"'{column}'", "data row 8")


@pytest.mark.parametrize("value", [float("inf"), float("-inf")])
def test_non_finite_number(project, value):
    edit_data(project, lambda f: f.__setitem__("fmde", f["fmde"].where(f.index != 9, value)))
    assert_stopped_cleanly(
        project,
        "validate",
        "column 'fmde'",
        "finite",
        "data row 10, line 11 of the file",
        "validate.on_invalid: quarantine",
    )


def test_non_finite_number_quarantined_when_asked(project):
    edit_data(project, lambda f: f.__setitem__("fmde", f["fmde"].where(f.index != 9, float("inf"))))
    edit_params(project, "validate.on_invalid", "quarantine")
    assert run("validate", project).returncode == 0
    quarantine = pd.read_parquet(project / "data/interim/quarantine.parquet").set_index("_row_id")
    assert "fmde: finite failed for value inf" in quarantine.loc[9, "_reason"]


def test_numeric_column_without_any_value(project):
    edit_data(project, lambda f: f.__setitem__("fmde", float("nan")))
    edit_params(project, "data.schema", None)  # the default schema requires fmde
    for stage in ("validate", "clean", "split"):
        assert run(stage, project).returncode == 0
    assert_stopped_cleanly(project, "features", "numeric column 'fmde' has no observed values", "data.drop")


def test_categorical_codes_of_mixed_types_are_read_as_text(project):
    """Integers in the first rows, text later: one text column, not a pyarrow error."""

    def mix(frame):
        frame["region"] = frame["site"].astype(object)
        frame.loc[frame.index[-40:], "region"] = "north-" + frame.loc[frame.index[-40:], "site"].astype(str)

    edit_data(project, mix)
    edit_params(project, "data.categorical", ["plan", "site", "region"])
    result = run("validate", project)
    assert result.returncode == 0, result.stderr
    region = pd.read_parquet(project / "data/interim/validated.parquet")["region"]
    assert {type(v) for v in region} == {str} and region.iloc[-1].startswith("north-") and region.iloc[0].isdigit()


def test_a_categorical_column_with_thousands_of_levels_is_pooled(project):
    edit_data(project, lambda f: f.__setitem__("code", [f"c{i}" for i in range(len(f))]))
    edit_params(project, "data.categorical", ["plan", "site", "code"])
    for stage in ("validate", "clean", "split"):
        assert run(stage, project).returncode == 0, stage
    result = run("features", project)
    assert result.returncode == 0, result.stderr
    assert "levels of code pooled into code=infrequent" in result.stdout
    report = yaml.safe_load((project / "reports/features.json").read_text())
    pooled = report["pooled_levels"]["code"]
    assert pooled["pooled"] == pooled["levels"] > 1000  # every level is unique: all pooled, one column
    assert sum(f.startswith("code=") for f in report["final"]["features"]) == 1
