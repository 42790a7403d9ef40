"""Functions that differ by the data's mode, chosen once per run (pipeline/core/partitions.py, `per_mode`): in memory
or in parts. Each is a functools.singledispatch on its first argument that records itself, so `unregistered(mode)`
names the functions a mode has no registration for (tests/test_mode_branches.py), and whose fallback names the
function. (What differs by task kind is looked up by the task's name instead: pipeline/core/task_base.py.)"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from functools import _SingleDispatchCallable

T = TypeVar("T")  # what the function returns

DISPATCHED: list[tuple[str, Any, type]] = []  # (module.name, the dispatching function, the base of its variants)


def dispatched_over(base: type) -> Callable[[Callable[..., T]], _SingleDispatchCallable[T]]:
    """The decorator of a function every variant derived from `base` registers (its body is documentation)."""

    def wrap(function: Callable[..., T]) -> _SingleDispatchCallable[T]:
        name = f"{function.__module__}.{function.__name__}"

        def fallback(variant: object, *args: object, **kwargs: object) -> T:
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
