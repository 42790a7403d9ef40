"""A column named for an amount of time is not taken for the time the rows are ordered by (issue 62, item 11):
validate named months_at_address (and UCI Adult's hours_per_week) a time column."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipeline.core.timeline import looks_like_time

DATA = {"target": "y", "group": None, "time": None, "categorical": [], "drop": []}


def test_durations_and_counts_are_not_times_but_points_in_time_are():
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "months_at_address": rng.integers(0, 240, n),
            "years_employed": rng.integers(0, 40, n),
            "days_in_hospital": rng.integers(0, 30, n),
            "times_visited": rng.integers(0, 9, n),
            "hours_per_week": rng.integers(1, 99, n),  # UCI Adult's: a rate
            "survey_year": rng.integers(2000, 2005, n),
            "month": rng.integers(1, 13, n),
            "visit_dates": rng.integers(0, 9, n),
        }
    )
    found = [f["column"] for f in looks_like_time(frame, DATA)]
    assert found == ["survey_year", "month", "visit_dates"]
