"""Input checks specific to the fairness modules (the group check is shared with mllib.calibration)."""
from __future__ import annotations

from ..calibration._checks import check_groups

__all__ = ["check_groups"]
