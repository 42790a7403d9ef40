"""Input checks of the fairness modules (the group check is the shared one of mllib.base)."""

from __future__ import annotations

from ..base import check_groups

__all__ = ["check_groups"]
