"""The report's fold balance of a file without groups has no group count (issue 62, item 11: the column read
"undefined" in every fold)."""

from __future__ import annotations

import numpy as np

from mllib.model_selection import fold_balance
from pipeline.reporting.sections import fold_table

Y = np.array([0, 1] * 10)
FOLD = np.arange(20) % 4


def test_without_groups_the_table_has_no_group_count():
    table = fold_table({"group": None}, fold_balance(Y, None, FOLD)["folds"])
    assert table["columns"] == ["fold", "n_rows", "class_counts", "max_abs_deviation"]
    assert "undefined" not in str(table["rows"])


def test_with_groups_the_table_counts_them():
    groups = np.arange(20) // 2
    table = fold_table({"group": "zper"}, fold_balance(Y, groups, FOLD)["folds"])
    assert "n_groups" in table["columns"] and "undefined" not in str(table["rows"])
