"""The pipeline, by role: core (params, paths, io, schema, task, errors), stages (one module per DVC stage), steps
(the computations the stages call), reporting (the report page), tracking (MLflow) and serving (the pyfunc model).

Importing this package, which every stage does first (`python -m pipeline.stages.<name>`), fixes the numerical
environment before numpy, scipy or numba load (the environment can override each variable):

- One BLAS thread per stage process: on a small machine, BLAS threads that compete with any other process slow
  a stage by an order of magnitude (train: 42 s instead of 4 s on 2 cores), and a fixed thread count keeps
  floating-point reductions in one order run after run.
- The same machine code on every x86-64 machine with AVX2 and FMA (x86-64-v3), so a fresh clone on another
  machine of the same kind reproduces dvc.lock byte for byte. Left alone, each library picks kernels for the CPU
  it finds, and their results differ in the last bits: OpenBLAS chooses a GEMM kernel per CPU (SkylakeX, Zen,
  Haswell), numpy's AVX-512 loops compute exp / log / sums differently from its AVX2 ones, and numba compiles
  for the host CPU. Pinned: OpenBLAS's Haswell kernels, numpy's dispatch to X86_V3 and numba's target to
  haswell. Its cost on the default run has not been measured apart from the rest.
"""

import os
import platform

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

X86_64_V3_FLAGS = {"avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm"}  # abm: lzcnt
PINNED_CPU_PATHS = {"OPENBLAS_CORETYPE": "Haswell", "NPY_ENABLE_CPU_FEATURES": "X86_V3", "NUMBA_CPU_NAME": "haswell"}


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            return next((set(line.split(":", 1)[1].split()) for line in f if line.startswith("flags")), set())
    except OSError:
        return set()


if platform.machine() == "x86_64" and X86_64_V3_FLAGS <= _cpu_flags():
    for _var, _value in PINNED_CPU_PATHS.items():
        os.environ.setdefault(_var, _value)
