"""params.yaml's limits (issue 62, points 6, 7 and 10): a document whose aliases expand to millions of values, a value
shown in a message, a count of repeated work, a hyperparameter that is not a finite number or is negative where its
model refuses it, and a key given twice are each refused at load in one short line naming the key."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from conftest import set_dotted

from pipeline.core.config import MAX_VALUES, load_params
from pipeline.core.errors import PipelineError

REPO = Path(__file__).resolve().parents[2]
TEXT = (REPO / "params.yaml").read_text()
REAL = yaml.safe_load(TEXT)


def refusal(tmp_path: Path, text: str) -> str:
    path = tmp_path / "params.yaml"
    path.write_text(text)
    with pytest.raises(PipelineError) as info:
        load_params(path)
    message = str(info.value)
    assert "\n" not in message and len(message) < 300, message[:1000]
    return message


def variant(**changes) -> str:
    params = copy.deepcopy(REAL)
    for key, value in changes.items():
        set_dotted(params, key.replace("__", "."), value)
    return yaml.safe_dump(params, sort_keys=False)


def bomb(levels: int) -> str:
    """A YAML flow value of 10**levels values in a few hundred characters: each level's anchor is aliased ten times by
    the next (the "billion laughs")."""
    value = "&a0 [0]"
    for k in range(1, levels + 1):
        value = f"&a{k} [{value}, {', '.join([f'*a{k - 1}'] * 9)}]"
    return value


@pytest.mark.parametrize(
    "line",
    ["seed: 42", "logistic_regression: {lam: [0.1, 1.0, 10.0, 100.0]}"],
    ids=["a count", "a grid's candidates"],
)
def test_an_alias_bomb_is_refused_before_any_walk_over_it(tmp_path, line):
    """The issue: a YAML alias bomb in params.yaml hung validate (messages printed the expanded value, the grid's
    numbers were copied). The stage stops at load, naming the cause, whichever key holds it."""
    assert TEXT.count(line) == 1
    key, _, _ = line.rpartition(": ")
    text = TEXT.replace(
        line, f"{key}: {bomb(6)}" if line.startswith("seed") else line.replace("[0.1, 1.0, 10.0, 100.0]", bomb(6))
    )
    message = refusal(tmp_path, text)
    assert f"params.yaml holds more than {MAX_VALUES:,} values once its YAML aliases" in message, message


def test_a_long_value_is_shown_short(tmp_path):
    """The issue: messages printed `{value!r}` whole; a list of 100,000 numbers where a count belongs is named in a
    short line."""
    message = refusal(tmp_path, variant(evaluate__n_boot=list(range(20_000))))
    assert message.startswith("params.yaml: evaluate.n_boot must be an integer in [1, 10,000]"), message
    assert "[0, 1, 2, 3, 4, 5, ...]" in message


@pytest.mark.parametrize(
    "key, bound",
    [
        ("evaluate.n_boot", 10_000),
        ("fairness.n_boot", 10_000),
        ("explain.n_repeats", 100),
        ("explain.kernel_bootstrap", 10_000),
        ("explain.kernel_samples", 100_000),
        ("explain.n_rows", 10_000),
        ("split.n_repeats", 100),
        # bounded since issue 63 (every count states its bound)
        ("split.n_splits", 1_000),
        ("search.n_iter", 10_000),
        ("assess.inner_splits", 100),
        ("explain.surrogate_depth", 20),
        ("compute.n_workers", 1_024),
    ],
)
def test_a_count_of_repeated_work_has_a_stated_upper_bound(tmp_path, key, bound):
    """The issue: evaluate.n_boot: 1000000000 ran without output until killed. Each count of repeated work states
    its upper bound, and the bound itself is accepted."""
    message = refusal(tmp_path, variant(**{key.replace(".", "__"): 1_000_000_000}))
    assert message.startswith(f"params.yaml: {key} must be an integer in [") and f"{bound:,}]" in message, message
    path = tmp_path / "params.yaml"
    path.write_text(variant(**{key.replace(".", "__"): bound}))
    assert load_params(path)


@pytest.mark.parametrize("value, shown", [(-1.0, "-1.0"), (float("nan"), "nan"), (float("inf"), "inf")])
def test_a_grid_value_its_model_refuses_is_one_line_at_load(tmp_path, value, shown):
    """The issue: a negative, NaN or infinite value in search.grid was a 40-60 line traceback from train."""
    grid = copy.deepcopy(REAL["search"]["grid"])
    grid["logistic_regression"]["lam"] = [0.1, value]
    message = refusal(tmp_path, variant(search__grid=grid))
    assert message.startswith(f"params.yaml: search.grid.logistic_regression.lam holds {shown}"), message
    if value == -1.0:  # the model's own rule, in its words
        assert "lam must be a number >= 0" in message


def test_a_negative_value_the_model_takes_is_accepted(tmp_path):
    grid = copy.deepcopy(REAL["search"]["grid"])
    grid["naive_bayes"]["binarize"] = [-0.5, 0.5]  # a threshold: any finite number
    path = tmp_path / "params.yaml"
    path.write_text(variant(search__grid=grid))
    assert load_params(path)["search"]["grid"]["naive_bayes"]["binarize"] == [-0.5, 0.5]


def test_a_non_finite_fixed_hyperparameter_is_refused(tmp_path):
    message = refusal(tmp_path, variant(model__params={"logistic_regression": {"tol": float("inf")}}))
    assert message.startswith("params.yaml: model.params.logistic_regression.tol holds inf"), message


def test_a_key_given_twice_is_refused_as_dvc_refuses_it(tmp_path):
    """The issue: a stage run directly took the last of two values of a key, where `dvc repro` refuses the file."""
    assert TEXT.count("\n  n_boot: 200 ") == 2  # evaluate's and fairness's
    at = TEXT.index("\n  n_boot: 200 ") + 1
    line = TEXT[:at].count("\n") + 1
    text = TEXT[:at] + "  n_boot: 50\n" + TEXT[at:]
    message = refusal(tmp_path, text)
    assert f"key 'n_boot' is given twice in one mapping (lines {line} and {line + 1})" in message, message
    assert "params.yaml is not valid YAML" in message and "DVC refuses" in message


def test_a_merge_may_override_the_keys_it_brings(tmp_path):
    """`<<: *base` then a key of base: an override, which YAML and DVC accept."""
    text = TEXT.replace("evaluate:\n", "evaluate: &evaluate\n", 1)
    text += "\n_merged:\n  <<: *evaluate\n  n_boot: 50\n"
    path = tmp_path / "params.yaml"
    path.write_text(text)
    with pytest.raises(PipelineError, match="unknown key _merged"):  # read, then refused by the spec, not the parser
        load_params(path)
