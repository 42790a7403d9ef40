"""Support vector machines: C-SVC with the dual solved by SMO (second-order working set, kernel-row cache)."""

from .smo import KernelCache, select_working_set, solve_dual
from .svc import SVC

__all__ = ["SVC", "KernelCache", "select_working_set", "solve_dual"]
