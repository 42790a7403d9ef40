"""Functions that differ by one of a run's variants chosen once: the task kind (pipeline/core/task_base.py,
`per_kind`) or the data's mode (pipeline/core/partitions.py, `per_mode`). Each is a functools.singledispatch on its
first argument that records itself, so `unregistered(variant)` names the functions a variant has no registration
for (tests/pipeline/test_task_contract.py, tests/test_mode_branches.py), and whose fallback names the function."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

DISPATCHED: list[tuple[str, Any, type]] = []  # (module.name, the dispatching function, the base of its variants)


def dispatched_over(base: type) -> Callable[[Callable], Any]:
    """The decorator of a function every variant derived from `base` registers (its body is documentation)."""

    def wrap(function: Callable) -> Any:
        name = f"{function.__module__}.{function.__name__}"

        def fallback(variant, *args, **kwargs):
            raise TypeError(f"{name} has no registration for {type(variant).__name__}")

        dispatching = functools.singledispatch(fallback)
        functools.update_wrapper(dispatching, function)
        DISPATCHED.append((name, dispatching, base))
        return dispatching

    return wrap


def unregistered(variant: type) -> list[str]:
    """The dispatched functions of the modules imported so far that serve `variant` and have no registration for
    it."""
    return [
        name for name, f, base in DISPATCHED if issubclass(variant, base) and f.dispatch(variant) is f.dispatch(object)
    ]
