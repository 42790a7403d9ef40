"""Writes docs/references.md: what the lecture citations in the code point at, so they stay useful without the
notes. A module cites the notes it implements as `(seed 004, D4:419-469)` (notes 004, lines 419-469) and lists the
sections in a closing `Sections cited:` line of its docstring; this page maps each set of notes to its title, each
family of modules to its topic and a public textbook section, each citation (every `D<k>:<line>` in the code) to
the notes' section it falls in with the textbook section of its family, and each citing module to the sections it
cites. The notes' headings and their lines are in docs/notes_headings.tsv (`--headings <notes directory>` rebuilds
it from the notes). tests/test_readme_layout.py checks the page is current: `python scripts/references.py`
rewrites it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "references.md"

NOTES = {
    "000": ("ML 1 lecture notes", "D0"),
    "001": ("CS 276 course review", "D1"),
    "002": ("Machine Learning lecture notes", "D2"),
    "003": ("Introduction to Machine Learning (Heidelberg)", "D3"),
    "004": ("Ghent ML notes", "D4"),
}

BOOKS = {
    "ESL": "Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed. (2009; free PDF online)",
    "PRML": "Bishop, *Pattern Recognition and Machine Learning* (2006)",
    "DL": "Goodfellow, Bengio & Courville, *Deep Learning* (2016; deeplearningbook.org)",
    "IML": "Molnar, *Interpretable Machine Learning*, 2nd ed. (2022; christophm.github.io/interpretable-ml-book)",
    "FML": "Barocas, Hardt & Narayanan, *Fairness and Machine Learning* (2023; fairmlbook.org)",
    "GPML": "Rasmussen & Williams, *Gaussian Processes for Machine Learning* (2006; gaussianprocess.org/gpml)",
    "CP": "Angelopoulos & Bates, *A Gentle Introduction to Conformal Prediction* (2021; arXiv:2107.07511)",
}

# family (a package under mllib/ or pipeline/) -> (topic, where a public textbook or paper treats it)
FAMILIES = {
    "mllib/additive": (
        "explainable boosting machines: additive models with pairwise interactions (GA2M)",
        "ESL 9.1 (generalized additive models), 10.9-10.12; Lou et al., Accurate intelligible models with pairwise "
        "interactions (2013)",
    ),
    "mllib/base": ("the estimator protocol, input checks, convergence warnings", "ESL 7.2 (training and test error)"),
    "mllib/baseline": ("no-skill baselines (class prior, mean)", "ESL 7.2; a model must beat the null model"),
    "mllib/bayes": ("Bayes decisions, Gaussian and naive Bayes classifiers", "PRML 1.5, 4.2; ESL 4.3, 6.6.3"),
    "mllib/calibration": (
        "calibration maps: Platt, isotonic, temperature, histogram binning",
        "Platt (1999); Zadrozny & Elkan (2002); Guo et al., On Calibration of Modern Neural Networks (2017)",
    ),
    "mllib/cluster": ("k-means, Gaussian mixtures fitted by EM", "ESL 14.3.6, 8.5; PRML 9.1-9.2"),
    "mllib/comparison": (
        "comparing two models: McNemar, the corrected resampled t-test",
        "Dietterich (1998); Nadeau & Bengio (2003)",
    ),
    "mllib/conformal": (
        "split conformal sets and intervals, CV+, normalized scores",
        "CP sections 1-2; Barber et al., jackknife+ (2021); Papadopoulos et al., normalized nonconformity (2008)",
    ),
    "mllib/decisions": ("minimum expected cost, the reject option, risk-coverage", "PRML 1.5.2-1.5.3"),
    "mllib/decomposition": ("principal component analysis", "ESL 14.5.1; PRML 12.1"),
    "mllib/deploy": (
        "the deployed chain: features, model, calibration, decision",
        "PRML 1.5 (inference then decision)",
    ),
    "mllib/discriminant": ("Fisher's linear discriminant", "ESL 4.3.3; PRML 4.1.4"),
    "mllib/ensemble": ("bagging, random forests, AdaBoost, stacking", "ESL 8.7-8.8, 10.1, 15"),
    "mllib/explain": (
        "permutation importance, partial dependence, Shapley values, relevance propagation, surrogates",
        "IML 8.1, 8.5, 8.6, 9.5-9.6, 10.2",
    ),
    "mllib/fairness": (
        "group fairness criteria, their incompatibility, thresholds per group, reweighing",
        "FML ch. 3; Hardt, Price & Srebro (2016); Kamiran & Calders (2012); Chouldechova (2017)",
    ),
    "mllib/feature_selection": ("variance, sequential and permutation selection", "ESL 3.3; IML 8.5"),
    "mllib/gaussian_process": ("Gaussian process regression and classification", "GPML ch. 2-4"),
    "mllib/gradient_boosting": ("gradient boosting of trees, histogram splits", "ESL 10.9-10.12; Friedman (2001)"),
    "mllib/kernels": ("kernel PCA, Nystroem features", "PRML 6.1, 12.3; Williams & Seeger (2001)"),
    "mllib/linear": ("logistic regression, the perceptron, linear SVMs", "ESL 4.4, 4.5.1, 12.2"),
    "mllib/manifold": ("classical multidimensional scaling", "ESL 14.8"),
    "mllib/metrics": ("error functions, ROC and PR curves, calibration error", "ESL 7.2, 9.2.5; Fawcett (2006)"),
    "mllib/model_selection": (
        "cross-validation, the bootstrap, grouped splits, nested CV, learning curves",
        "ESL 7.3, 7.10-7.11; Varma & Simon (2006)",
    ),
    "mllib/neighbors": ("k-nearest neighbours, kd-trees", "ESL 13.3; Friedman, Bentley & Finkel (1977)"),
    "mllib/neural": ("multilayer perceptrons: backpropagation, momentum, initialisation", "DL 6, 8.3-8.4; ESL 11"),
    "mllib/preprocessing": (
        "imputation, scaling, encoding, basis expansions, whitening",
        "ESL 5.2, 6.7, 9.6; Kessy, Lewin & Strimmer, Optimal whitening (2018)",
    ),
    "mllib/regression": (
        "least squares, ridge, lasso, Bayesian linear regression, PLS, a log target",
        "ESL 3.2, 3.4-3.5; PRML 3.3; Duan, smearing estimate (1983)",
    ),
    "mllib/svm": ("kernel support vector machines (SMO)", "ESL 12.3; Platt, SMO (1998)"),
    "mllib/tree": ("classification and regression trees", "ESL 9.2"),
    "pipeline/stages": ("the stages: validation, cleaning, splits, assessment, calibration, fairness", "ESL 7; FML 3"),
    "pipeline/steps": ("what the stages compute: cleaning, folds, assessment, calibration, fairness", "ESL 7; FML 3"),
    "pipeline/reporting": ("the report's diagnostics (bias and variance, learning curves)", "ESL 7.3"),
}

CITATION = re.compile(r"seed (\d{3})")
LINE_CITATION = re.compile(r"\bD(\d):(\d+)(?:-(\d+))?")  # D4:419-469
SEED_LINES = re.compile(r"seed (\d{3}),? lines? (\d+(?:-\d+)?(?:, ?\d+(?:-\d+)?)*)")  # seed 000, lines 161-178, 190
HEADINGS = ROOT / "docs" / "notes_headings.tsv"


def notes_headings(directory: Path) -> list[tuple[str, int, str]]:
    """(seed, line, heading) of every heading of the notes: markdown `#` headings (notes 000-003), numbered `N.M
    Title` lines outside the table of contents (notes 004, whose contents lines end with a page number)."""
    rows = []
    for path in sorted(directory.glob("*.txt")):
        seed = path.name[:3]
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if seed == "004":
                numbered = re.match(r"^\d+(\.\d+)* [A-Z\u201c\"]", line.strip())
                if numbered and not re.search(r"\s\d+$", line) and len(line) < 100:
                    rows.append((seed, i, line.strip()))
            elif heading := re.match(r"^#{1,4} (.+)$", line):
                rows.append((seed, i, re.sub(r"\s+", " ", heading.group(1).replace("*", "").strip())))
    return rows


def section_at(headings: list[tuple[str, int, str]], seed: str, line: int) -> str:
    """The heading of the notes' section holding `line`: the last heading at or above it."""
    above = [h for s, at, h in headings if s == seed and at <= line]
    return above[-1] if above else "(before the first heading)"


def citations() -> dict[tuple[str, int, int], set[str]]:
    """{(seed, first line, last line): the citing modules} of every `D<k>:<line>[-<line>]` in the code."""
    found: dict[tuple[str, int, int], set[str]] = {}
    for path in citing_modules():
        text = path.read_text()
        spans = [(f"00{digit}", first, last or first) for digit, first, last in LINE_CITATION.findall(text)]
        for seed, ranges in SEED_LINES.findall(text):
            for part in re.split(r", ?", ranges):
                first, _, last = part.partition("-")
                spans.append((seed, first, last or first))
        for seed, first, last in spans:
            found.setdefault((seed, int(first), int(last)), set()).add(str(path.relative_to(ROOT)))
    return found


def family_of(path: Path) -> str:
    return "/".join(path.relative_to(ROOT).parts[:2])


def sections_cited(text: str) -> str:
    i = text.find("Sections cited:")
    if i < 0:
        return ""
    end = text.find('"""', i)
    return " ".join(text[i + len("Sections cited:") : end if end > 0 else None].split())


def citing_modules() -> list[Path]:
    files = sorted(p for pkg in ("mllib", "pipeline") for p in (ROOT / pkg).rglob("*.py"))
    return [p for p in files if CITATION.search(p.read_text())]


def page() -> str:
    lines = [
        "# Lecture references",
        "",
        "The code cites the lecture notes it implements, e.g. `(seed 004, D4:419-469)`: notes 004, lines 419 to 469. "
        "The notes are not part of this repository, so this page (written by `scripts/references.py`) says what each "
        "citation is about: the title of each set of notes, the topic of each family of modules with a public "
        "textbook section that treats it, for each citing module the notes' sections it names, and for every "
        "citation the section it falls in with a textbook section on its topic.",
        "",
        "## The notes",
        "",
        "| id | title | line prefix |",
        "|---|---|---|",
        *(f"| seed {k} | {title} | `{prefix}:<line>` |" for k, (title, prefix) in NOTES.items()),
        "",
        "## Textbooks",
        "",
        *(f"- **{k}**: {v}" for k, v in BOOKS.items()),
        "",
        "## Topics",
        "",
        "| family | topic | textbook |",
        "|---|---|---|",
        *(f"| `{f}` | {topic} | {book} |" for f, (topic, book) in FAMILIES.items()),
        "",
        "## Citing modules",
        "",
        "| module | topic | notes cited | sections the module names |",
        "|---|---|---|---|",
    ]
    for path in citing_modules():
        text = path.read_text()
        seeds = ", ".join(sorted(set(CITATION.findall(text))))
        topic = FAMILIES[family_of(path)][0]
        named = sections_cited(text).replace("|", "/") or "(inline citations only: see the citations below)"
        lines.append(f"| `{path.relative_to(ROOT)}` | {topic} | {seeds} | {named} |")
    headings = [(s, int(line), h) for s, line, h in (row.split("\t") for row in HEADINGS.read_text().splitlines()[1:])]
    lines += [
        "",
        "## Every citation",
        "",
        "Each `D<k>:<lines>` (or `seed <k>, lines <lines>`) in the code, the section of the notes it falls in, and a "
        "public textbook section on the same topic (that of the citing modules' family).",
        "",
        "| citation | notes | section | textbook | cited in |",
        "|---|---|---|---|---|",
    ]
    for (seed, first, last), modules in sorted(citations().items()):
        span = f"D{seed[-1]}:{first}" + (f"-{last}" if last != first else "")
        books = "; ".join(dict.fromkeys(FAMILIES[family_of(ROOT / m)][1] for m in sorted(modules)))
        section = section_at(headings, seed, first).replace("|", "/")
        cited_in = ", ".join(f"`{m}`" for m in sorted(modules))
        lines.append(f"| {span} | {NOTES[seed][0]} | {section} | {books} | {cited_in} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--headings"]:
        rows = notes_headings(Path(sys.argv[2]))
        HEADINGS.write_text("seed\tline\theading\n" + "".join(f"{s}\t{n}\t{h}\n" for s, n, h in rows))
        print(f"wrote {HEADINGS.relative_to(ROOT)} ({len(rows)} headings)")
    PAGE.write_text(page())
    print(f"wrote {PAGE.relative_to(ROOT)} ({len(citing_modules())} citing modules)")
