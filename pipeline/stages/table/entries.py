"""The table's vocabulary: an Entry (a dep, params key or output with why it is there), a Stage and a Plot."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

REPO = Path(__file__).resolve().parents[3]
REGENERATE = "python -m pipeline.stages.table"


@dataclass(frozen=True)
class Entry:
    """A dep, a params key or an output, with why it is there (a YAML comment in dvc.yaml)."""

    path: str
    why: str = ""
    cache: bool = True  # outputs only: False keeps it out of DVC's cache (committed to git, or this machine's)


def why(path: str | PurePath, text: str, *, cache: bool = True) -> Entry:
    return Entry(_text(path), text, cache)


def uncached(path: str | PurePath, text: str = "") -> Entry:
    return Entry(_text(path), text, cache=False)


def mllib_files(path: PurePath, text: str = "") -> tuple[Entry, Entry]:
    """An mllib.io artifact's two files (`<path>.json` with the hyperparameters, `<path>.npz` with the arrays)."""
    return Entry(f"{_text(path)}.json", text), Entry(f"{_text(path)}.npz")


Item = str | PurePath | Entry


def _text(path: str | PurePath) -> str:
    return path.as_posix() if isinstance(path, PurePath) else path


def _entry(item: Item) -> Entry:
    return item if isinstance(item, Entry) else Entry(_text(item))


def _entries(items: Iterable[Item]) -> tuple[Entry, ...]:
    return tuple(_entry(i) for i in items)


@dataclass(frozen=True)
class Stage:
    """One DVC stage: `python -m pipeline.stages.<name>`.

    inputs are the files other stages (or the user) write, code the source files it runs besides its own module,
    params the params.yaml keys it reads (a section stands for all its keys), outs its cached outputs and metrics its
    metrics files. tracking marks the stages that talk to MLflow (track, monitor): the stage contract's in-process
    runs and the reproducibility checks leave them out."""

    name: str
    inputs: tuple[Entry, ...]
    code: tuple[Entry, ...]
    params: tuple[Entry, ...]
    outs: tuple[Entry, ...]
    metrics: tuple[Entry, ...] = ()
    why: str = ""  # a comment above the stage
    params_why: str = ""
    outs_why: str = ""
    tracking: bool = False

    @property
    def module(self) -> str:
        return f"pipeline.stages.{self.name}"

    @property
    def module_file(self) -> str:
        return f"pipeline/stages/{self.name}.py"

    @property
    def cmd(self) -> str:
        return f"python -m {self.module}"

    @property
    def deps(self) -> tuple[Entry, ...]:
        return (*self.inputs, Entry(self.module_file), *self.code)

    def dep_paths(self) -> list[str]:
        return [e.path for e in self.deps]

    def param_keys(self) -> list[str]:
        return [e.path for e in self.params]

    def output_paths(self) -> list[str]:
        """Every file or directory the stage writes (outs and metrics)."""
        return [e.path for e in (*self.outs, *self.metrics)]


def stage(
    name: str,
    *,
    inputs: Sequence[Item] = (),
    code: Sequence[Item] = (),
    params: Sequence[Item] = (),
    outs: Sequence[Item] = (),
    metrics: Sequence[Item] = (),
    why: str = "",
    params_why: str = "",
    outs_why: str = "",
    tracking: bool = False,
) -> Stage:
    """A Stage from paths, strings and Entries."""
    return Stage(
        name,
        _entries(inputs),
        _entries(code),
        _entries(params),
        _entries(outs),
        _entries(metrics),
        why=why,
        params_why=params_why,
        outs_why=outs_why,
        tracking=tracking,
    )


@dataclass(frozen=True)
class Plot:
    """One chart of the top-level `plots` section: `name` a title (its data in y) or the plotted file itself."""

    name: str | PurePath
    x: str
    y: str | Mapping[PurePath, str | list[str]]
    template: str
    x_label: str = ""
    y_label: str = ""
    title: str = ""

    def spec(self) -> dict[str, object]:
        y = self.y if isinstance(self.y, str) else {_text(p): v for p, v in self.y.items()}
        spec: dict[str, object] = {"x": self.x, "y": y, "template": self.template}
        spec.update(
            {k: v for k, v in (("x_label", self.x_label), ("y_label", self.y_label), ("title", self.title)) if v}
        )
        return spec
