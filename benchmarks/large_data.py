"""Larger copies of the default data for the scaling benchmarks: the RAND HIE persons replicated under new ids.

Each replicate r copies every person-year of data/raw/randhie.csv.gz with the person id zper shifted by
r * ID_STRIDE (so a replicate's persons are new persons: the group structure, the class balance and the
within-person correlation are those of the original data), and with small noise on the continuous columns that
vary between persons (income, age and the health indices: multiplicative or additive, clipped to the schema's
ranges), so replicated rows are not exact duplicates that the clean stage would drop. The last replicate is cut
at a person boundary to reach about `rows` rows. Written as parquet (what a user would bring at this size).

Run: .venv/bin/python benchmarks/large_data.py 1000000 /tmp/randhie_1m.parquet   (one file)
     .venv/bin/python benchmarks/large_data.py 20000000 /tmp/randhie_20m           (a directory of parts)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "data" / "raw" / "randhie.csv.gz"
ID_STRIDE = 10_000_000  # larger than every zper of the source (at most 7 digits)
# column -> (kind, scale, lower bound, upper bound): noise that keeps the schema's domain
NOISE = {
    "income": ("relative", 0.05, 0.0, None),
    "xage": ("absolute", 0.5, 0.0, 120.0),
    "mhi": ("absolute", 1.0, 0.0, 100.0),
    "ghindx": ("absolute", 1.0, 0.0, 100.0),
    "disea": ("absolute", 0.5, 0.0, None),
}


def replicates(rows: int, seed: int = 0):
    """About `rows` person-years, replicate by replicate: whole persons, the source first (replicate 0, unchanged),
    then noisy copies."""
    source = pd.read_csv(SOURCE)
    if source["zper"].max() >= ID_STRIDE:
        raise ValueError(f"zper exceeds {ID_STRIDE}; raise ID_STRIDE")
    rng = np.random.default_rng(seed)
    total, r = 0, 0
    while total < rows:
        part = source.copy()
        if r:
            part["zper"] = part["zper"] + r * ID_STRIDE
            for column, (kind, scale, low, high) in NOISE.items():
                values = part[column].to_numpy(np.float64)
                noise = rng.normal(0.0, scale, len(values))
                noisy = values * np.exp(noise) if kind == "relative" else values + noise
                part[column] = np.clip(noisy, low, high)  # NaN stays NaN
        need = rows - total
        if len(part) > need:  # cut at a person boundary
            persons = part["zper"].to_numpy()
            cut = need
            while 0 < cut < len(part) and persons[cut] == persons[cut - 1]:
                cut += 1
            part = part.iloc[:cut]
        yield part
        total += len(part)
        r += 1


def generate(rows: int, seed: int = 0) -> pd.DataFrame:
    """About `rows` person-years in one frame."""
    return pd.concat(list(replicates(rows, seed)), ignore_index=True)


def write_parts(rows: int, directory: Path, rows_per_part: int = 1_000_000, seed: int = 0) -> list[Path]:
    """The rows of generate(rows, seed) as Parquet parts part-00000.parquet, ... of about rows_per_part rows each,
    written as they are made (memory: one part), for data.path as a directory of parts."""
    directory.mkdir(parents=True, exist_ok=True)
    files, pending, held = [], [], 0

    def flush():
        files.append(directory / f"part-{len(files):05d}.parquet")
        pd.concat(pending, ignore_index=True).to_parquet(files[-1], index=False)
        pending.clear()

    for part in replicates(rows, seed):
        pending.append(part)
        held += len(part)
        if held >= rows_per_part:
            flush()
            held = 0
    if pending:
        flush()
    return files


if __name__ == "__main__":
    n, out = int(sys.argv[1]), Path(sys.argv[2])
    if out.suffix:
        frame = generate(n)
        frame.to_parquet(out, index=False)
        print(f"{out}: {len(frame)} rows, {frame['zper'].nunique()} persons")
    else:
        print(f"{out}: {len(write_parts(n, out))} parts of {n} rows")
