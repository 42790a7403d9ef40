"""Input checks of the fairness modules (the group checks are the shared ones of mllib.base)."""

from __future__ import annotations

from ..base import GroupLabels, check_groups, group_index

__all__ = ["GroupLabels", "check_groups", "group_index"]
