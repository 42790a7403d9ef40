"""The pipeline: params, schema, file I/O, report, tracking, and one module per DVC stage (pipeline.stages).

One BLAS thread per stage process (override through the environment): on a small machine, BLAS threads
that compete with any other process slow a stage by an order of magnitude (train: 42 s instead of 4 s on
2 cores), and a fixed thread count keeps floating-point reductions in one order run after run.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
