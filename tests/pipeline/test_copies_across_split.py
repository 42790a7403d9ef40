"""Test rows that copy a training row (pipeline/steps/folds.copies_across_split): counted by 128-bit row hashes over
every column but the row id and data.group, the target included; a warning above 1% of the test set; the card
states the count. The issue's file: 183 of 1,165 test rows (15.7%) were exact copies, and nothing said so."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from pipeline.reporting.card import copies_note
from pipeline.steps.folds import copies_across_split


def frames():
    train = pd.DataFrame(
        {"_row_id": [0, 1, 2, 3], "pid": [1, 1, 2, 3], "x": [0.0, 1.5, 2.0, np.nan], "y": [0, 1, 1, 0]}
    )
    test = pd.DataFrame(
        {
            "_row_id": [4, 5, 6, 7, 8],
            "pid": [9, 9, 8, 7, 6],  # another person's id: the group column is not compared
            "x": [-0.0, 1.5, 1.5, np.nan, 2.0],  # -0.0 equals 0.0; NaN equals NaN
            "y": [0, 1, 0, 0, 0],  # row 6 has row 1's features but another target: not a copy
        }
    )
    return train, test


def test_copies_are_counted_over_every_column_but_the_id_and_the_group():
    train, test = frames()
    copies = copies_across_split([test], [train], "pid")
    assert (copies.test_rows, copies.of) == (3, 5)  # rows 4, 5, 7
    assert copies.share == pytest.approx(0.6)
    assert copies.columns == "every column but the row id and pid, the target included"
    assert "are exact copies of training rows" in copies.warning and "data.group" in copies.warning
    assert copies_across_split([test], [train], None).test_rows == 0  # with the ids compared, no row copies another


def test_pieces_give_the_same_count_as_whole_tables():
    """The partitioned path hands the tables over part by part."""
    train, test = frames()
    whole = copies_across_split([test], [train], "pid")
    pieces = copies_across_split([test.iloc[:2], test.iloc[2:]], [train.iloc[:1], train.iloc[1:3], train.iloc[3:]],
                                 "pid")  # fmt: skip
    assert pieces == whole


def test_no_warning_at_or_below_one_percent_and_the_card_says_what_it_found():
    train, test = frames()
    test = pd.concat([test.iloc[:1]] + [test.iloc[[2]].assign(x=float(i) + 10) for i in range(99)])  # 1 copy in 100
    copies = copies_across_split([test], [train], "pid")
    assert (copies.test_rows, copies.of, copies.warning) == (1, 100, None)
    assert copies_note(copies) == "; 1 of 100 test rows (1.0%) copy a training row in every column but the row id " \
        "and pid, the target included"  # fmt: skip
    none = replace(copies, test_rows=0, share=0.0)
    assert copies_note(none) == "; no test row copies a training row"
    many = copies_across_split(*(lambda t, s: ([s], [t]))(*frames()), "pid")
    assert ". WARNING: 3 of 5 test rows (60.0%)" in copies_note(many)
