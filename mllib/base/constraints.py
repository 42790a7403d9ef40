"""Hyperparameters declared as constraints and checked by one function.

An estimator lists what each hyperparameter may be in `_constraints` ({name: constraint or [constraints]}, any one
of which may hold); `check_hyperparameters(estimator)` checks them all at fit and names the first that fails:
"SVC: C must be a number > 0, got -1". scikit-learn's `_parameter_constraints` and `validate_parameter_constraints`
do the same (sklearn/utils/_param_validation.py); this keeps the kinds the library needs. Every registered estimator
declares every constructor parameter (tests/mllib/base/test_constraints.py); a bound the data sets (n_neighbors at
most the rows) goes through `check_within_data`, and a public function's arguments through `checked_arguments`
(scikit-learn's `validate_params`). Fit checks by hand only what depends on the data (one prior per class).
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    """A number (`integer`: a whole one, bools refused) between low and high; None is unbounded."""

    integer: bool
    low: float | None = None
    high: float | None = None
    closed: str = "both"  # which ends belong: both | left | right | neither
    label: str = ""  # how messages name it, when plainer than the bounds ("a positive number")

    def accepts(self, value) -> bool:
        if isinstance(value, (bool, np.bool_)):
            return False
        kinds = (int, np.integer) if self.integer else (int, float, np.integer, np.floating)
        if not isinstance(value, kinds) or (not self.integer and math.isnan(value)):
            return False
        low_ok = self.low is None or value > self.low or (value == self.low and self.closed in ("both", "left"))
        high_ok = self.high is None or value < self.high or (value == self.high and self.closed in ("both", "right"))
        return low_ok and high_ok

    def describe(self) -> str:
        if self.label:
            return self.label
        kind = "an integer" if self.integer else "a number"
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            return f"{kind} in {'[' if left else '('}{self.low}, {self.high}{']' if right else ')'}"
        if self.low is not None:
            return f"{kind} {'>=' if left else '>'} {self.low}"
        if self.high is not None:
            return f"{kind} {'<=' if right else '<'} {self.high}"
        return kind


@dataclass(frozen=True)
class Options:
    """One of the listed values (None among them for an optional setting)."""

    values: tuple

    def accepts(self, value) -> bool:
        return any(value is v or (v is not None and isinstance(value, str) and value == v) for v in self.values)

    def describe(self) -> str:
        return "None" if self.values == (None,) else "one of " + ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class InstanceOf:
    """An instance of one of the types (a mapping of class weights, a callable kernel)."""

    types: tuple
    name: str

    def accepts(self, value) -> bool:
        if isinstance(value, (bool, np.bool_)) and not any(issubclass(t, (bool, np.bool_)) for t in self.types):
            return False  # True is not a count, a seed or a value to fill with
        return isinstance(value, self.types)

    def describe(self) -> str:
        return self.name


@dataclass(frozen=True)
class HasMethod:
    """An object with this method (a splitter: anything with `split`)."""

    method: str
    name: str

    def accepts(self, value) -> bool:
        return callable(getattr(value, self.method, None))

    def describe(self) -> str:
        return self.name


@dataclass(frozen=True)
class SequenceOf:
    """A tuple or list whose every item meets `item` (hidden layer sizes, the names of stacked models)."""

    item: Interval | InstanceOf

    def accepts(self, value) -> bool:
        return isinstance(value, (tuple, list)) and all(self.item.accepts(v) for v in value)

    def describe(self) -> str:
        return f"a list or tuple, each item {self.item.describe()}"


@dataclass(frozen=True)
class IncreasingPair:
    """A pair (lo, hi) with lo < hi, both within `within` (a range to map onto, a quantile range)."""

    within: Interval

    def accepts(self, value) -> bool:
        pair = isinstance(value, (tuple, list)) and len(value) == 2 and all(self.within.accepts(v) for v in value)
        return pair and value[0] < value[1]

    def describe(self) -> str:
        return f"a pair (lo, hi) with lo < hi, each {self.within.describe()}"


def positive_int(low: int = 1, high: int | None = None) -> Interval:
    return Interval(True, low, high)


POSITIVE = Interval(False, 0, None, "neither", "a positive number")
POSITIVE_FINITE = Interval(False, 0, math.inf, "neither", "a positive finite number")
FINITE = Interval(False, -math.inf, math.inf, "neither", "a finite number")
NON_NEGATIVE = Interval(False, 0, None)  # a number >= 0
UNIT = Interval(False, 0, 1)  # a number in [0, 1]
OPEN_UNIT = Interval(False, 0, 1, "neither")  # a level or share strictly inside (0, 1)
OPTIONAL = Options((None,))
BOOLEAN = InstanceOf((bool, np.bool_), "True or False")
NUMBER_OR_NAN = InstanceOf((int, float, np.integer, np.floating), "a number or NaN")
ARRAY_LIKE = InstanceOf((list, tuple, np.ndarray), "a list or array")  # its shape is checked against the data at fit
RANDOM_STATE = InstanceOf((int, np.integer, np.random.Generator, type(None)), "an integer, a numpy Generator or None")


def check_value(owner: str, name: str, value, constraints) -> None:
    """value holds one of `constraints` (one or a list); otherwise a ValueError naming the owner (if any), the name,
    what it may be and the value given."""
    allowed = constraints if isinstance(constraints, list) else [constraints]
    if not any(c.accepts(value) for c in allowed):
        may_be = " or ".join(c.describe() for c in allowed)
        raise ValueError(f"{owner + ': ' if owner else ''}{name} must be {may_be}, got {value!r}")


def check_hyperparameters(estimator) -> None:
    """Every hyperparameter of `estimator` its class constrains holds one of its constraints."""
    for name, constraints in type(estimator)._constraints.items():
        check_value(type(estimator).__name__, name, getattr(estimator, name), constraints)


def check_within_data(estimator, name: str, limit: int, what: str) -> int:
    """A hyperparameter the data bounds (clusters, neighbours or components: at most the rows or the features) is an
    integer in [1, limit]; `what` names the limit ("n_samples")."""
    value = getattr(estimator, name)
    check_value(
        type(estimator).__name__, name, value, Interval(True, 1, limit, label=f"an integer in [1, {what} = {limit}]")
    )
    return int(value)


def checked_arguments(**constraints):
    """A function's arguments declared like an estimator's hyperparameters: at each call, every named argument holds
    one of its constraints (scikit-learn's `validate_params` decorator). The check runs before the body, so the body
    reads like the lecture."""

    def decorate(function):
        signature = inspect.signature(function)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:  # a typo in a declaration is the library's bug: fail at import
            raise TypeError(f"{function.__qualname__} has no argument(s) {sorted(unknown)} to constrain")

        @functools.wraps(function)
        def checked(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, allowed in constraints.items():
                check_value(function.__name__, name, bound.arguments[name], allowed)
            return function(*args, **kwargs)

        return checked

    return decorate
