"""Every name track builds from the data (a column, a group level, a class) is one MLflow accepts (issue 62, item 8):
a sensitive column named `race//x` passed every stage and failed track on each retry, leaving a failed run each time.
The oracle is MLflow's own validator (mlflow.utils.validation)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.tracking.runs import KEY_LIMIT, fitted_params, metric_key

validation = pytest.importorskip("mlflow.utils.validation")

PATH_LIKE = ["race//x", "/race", "race/", "fairness.groups.race//x=White.tpr", ".", "..", "..x", "a/./b", "a/../b", ""]


@pytest.mark.parametrize("raw", PATH_LIKE)
def test_a_name_a_file_path_would_read_as_another_is_mapped(raw):
    key = metric_key(raw)
    validation._validate_metric_name(key)
    validation._validate_param_name(key)
    assert metric_key(raw) == key  # the same column gives the same metric in every run


def test_the_sensitive_column_of_the_issue():
    with pytest.raises(Exception, match="resolve"):
        validation._validate_metric_name("fairness.attributes.race//x.gap")  # what MLflow refused
    assert metric_key("fairness.attributes.race//x.gap") == "fairness.attributes.race_/x.gap"


def test_param_names_from_a_params_dict_are_mapped_too():
    params = fitted_params({"clean.valid_ranges.race//x": "0, 1", "clean.valid_ranges.a=b": "0, 1"}, {})
    for name in params:
        validation._validate_param_name(name)


@given(st.text(alphabet="./ab=", max_size=12) | st.text(max_size=300))
def test_every_name_is_accepted(name):
    key = metric_key(name)
    validation._validate_metric_name(key)
    assert len(key) <= KEY_LIMIT
