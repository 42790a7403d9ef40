"""The split stage: the hold-out test set and the cross-validation folds, made once and written as files
(seed 004, D4:505-554). Grouped by data.group so one person's rows never straddle a split (D4:509), stratified
by the target's classes when the strategy says so (auto: grouped and stratified with a group column, stratified
without); a runtime guard fails the stage if any group is on both sides. The target's task and classes are fixed
here (data/processed/target.json), so every later stage encodes the target the same way.

The splits are made from the row ids, the target and the group column alone (pipeline/steps/folds.split_rows), so
a partitioned clean table (pipeline/core/partitions.py) gets the same splits as in memory: only those columns are
read whole, and the training and test tables are views of clean's parts (the positions each keeps of each part,
pipeline/core/io.write_view), not copies of their rows.

Sections cited: Ghent ML notes (seed 004): 3.3 Risks of Data Splitting and IID Assumption Fulfillment (505, 509)"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pipeline.core import paths
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.io import read_parquet, view_rows_file, write_parquet, write_view
from pipeline.core.json_types import JSON
from pipeline.core.partitions import InMemory, Mode, OnParts, Parts, data_mode, per_mode, rows_by_part, staged_outputs
from pipeline.core.records import CopiesAcrossSplit
from pipeline.steps.folds import Splits, copies_across_split, split_rows


@per_mode
def split_tables(mode: Mode, params: JSON) -> tuple[Splits, CopiesAcrossSplit]:
    """(the splits made: steps/folds.Splits, the test rows that copy a training row) with the training and test
    tables written, in the run's mode."""


@split_tables.register
def _on_parts(mode: OnParts, params: JSON) -> tuple[Splits, CopiesAcrossSplit]:
    """Views of clean's parts: the positions each split keeps, no copy of the rows."""
    data = params["data"]
    keys = [paths.ROW_ID, data["target"], *(data[key] for key in ("group", "time") if data[key])]
    made = split_rows(read_parquet(paths.CLEAN, "clean", columns=keys), data, params["split"], params["seed"])
    parts = Parts.output(paths.CLEAN, "clean")
    shares = {name: rows_by_part(rows, parts) for name, rows in (("train", made.train), ("test", made.test))}
    test_rows, train_rows = (
        (parts.read(k).loc[share] for k, share in enumerate(shares[name]) if len(share)) for name in ("test", "train")
    )
    copies = copies_across_split(test_rows, train_rows, data["group"])
    with staged_outputs({"train": paths.TRAIN, "test": paths.TEST}) as staged:
        for name, output in (("train", paths.TRAIN), ("test", paths.TEST)):
            for k, (share, start) in enumerate(zip(shares[name], parts.offsets)):
                np.save(staged[name] / view_rows_file(k), np.asarray(share - start, dtype=np.int64))
            write_view(staged[name], output, paths.CLEAN, [len(share) for share in shares[name]])
    return made, copies


@split_tables.register
def _in_memory(mode: InMemory, params: JSON) -> tuple[Splits, CopiesAcrossSplit]:
    df = read_parquet(paths.CLEAN, "clean")
    made = split_rows(df, params["data"], params["split"], params["seed"])
    copies = copies_across_split([df.iloc[made.test]], [df.iloc[made.train]], params["data"]["group"])
    write_parquet(df.iloc[made.train].reset_index(drop=True), paths.TRAIN)
    write_parquet(df.iloc[made.test].reset_index(drop=True), paths.TEST)
    return made, copies


def main() -> None:
    params = load_params()
    data = params["data"]
    made, copies = split_tables(data_mode(params, paths.CLEAN), params)
    for line in made.notes:
        print(line)
    write_parquet(made.membership, paths.FOLDS)
    made.target.write(paths.TARGET)
    replace(made.report, copies_across_split=copies).write()
    time = made.report.time
    if time and time.note:
        print(f"split: note: {time.note}")
    thinned = [k for k, s in enumerate(time.splits) if s["rows_purged"] > s["rows_fitted"]] if time else []
    if thinned:
        print(
            f"split: warning: splits {thinned} fit on fewer rows than they leave out for {data['group']} values "
            "validated later (a group never straddles a split): with a panel of the same ids over time, the "
            "time-ordered folds validate on ids the model has not seen; set data.group: null to validate later "
            "periods of the same ids instead"
        )
    if copies.warning:
        print(f"split: warning: {copies.warning}")
    print(
        f"split: {len(made.train)} training rows in {len(made.splits)} {made.report.strategy} splits, "
        f"{len(made.test)} test rows"
        + (f" (from {data['time']} {made.report.time.cut} on)" if made.report.time else "")
        + f"; {made.target.describe()}"
    )


if __name__ == "__main__":
    run_stage(main)
