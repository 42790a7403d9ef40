"""Every public estimator class documents its parameters as scikit-learn does: a numpydoc `Parameters` section
naming exactly the constructor's parameters, in order, each with a type and a description."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import mllib
from mllib import registry
from mllib.base import BaseEstimator


def public_estimators() -> list[type]:
    classes = {family[name] for family in vars(registry).values() if isinstance(family, registry.Family)
               for name in family}  # fmt: skip
    for info in pkgutil.iter_modules(mllib.__path__):
        if info.ispkg:
            package = importlib.import_module(f"mllib.{info.name}")
            for name in getattr(package, "__all__", []):
                obj = getattr(package, name)
                if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                    classes.add(obj)
    return sorted(classes, key=lambda c: f"{c.__module__}.{c.__name__}")


def documented_parameters(cls: type) -> list[tuple[str, str]]:
    """(name, description) of each entry of the docstring's Parameters section."""
    doc = inspect.cleandoc(cls.__doc__ or "")
    section = re.search(r"^Parameters\n-+\n(.*?)(?:\n\n|\Z)", doc, re.S | re.M)
    if section is None:
        return []
    entries = re.findall(r"^(\S[^\n]*?)(?: : [^\n]*)?\n((?:    [^\n]*\n?)+)", section.group(1) + "\n", re.M)
    return [(name, description.strip()) for name, description in entries]


ESTIMATORS = public_estimators()


def test_the_public_estimators_are_found():
    assert len(ESTIMATORS) >= 80


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_parameters_section_names_every_constructor_parameter(cls):
    parameters = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    if parameters in ([], ["args", "kwargs"]):  # no hyperparameters (baselines, the identity calibration)
        return
    documented = documented_parameters(cls)
    assert [name for name, _ in documented] == parameters, f"{cls.__name__}: document {parameters} under Parameters"
    assert all(description for _, description in documented)
