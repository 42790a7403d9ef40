# The README's two commands. Both create .venv when it is missing and install the project into it with the
# versions of requirements.lock; the install step is skipped while pyproject.toml and requirements.lock are
# unchanged, so repeated calls go straight to work.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# uv installs the locked versions about 8x faster than pip on a fresh machine (585 s against 75 s, the same packages).
# --compile-bytecode: the packages' .pyc written once here (about 30 s), as pip does; uv skips it by default, and where
# PYTHONDONTWRITEBYTECODE is set (CI machines, many containers) every process then compiled pandas, SciPy and MLflow
# from source on each import: the default data's `dvc repro -f` took 102 s instead of 53
UV := $(BIN)/python -m uv pip install --compile-bytecode --python $(BIN)/python
# uv does not read pip's configuration (an index or certificate set there): where uv cannot install, pip does, slower
PIP_INSTEAD = echo "  uv failed (its lines are in $(VENV)/install.log); installing with pip instead" && $(BIN)/python -m pip install
INSTALL_FAILED = { tail -n 30 $(VENV)/install.log; echo "error: the install failed; the whole log is $(VENV)/install.log"; exit 1; }

# the pipeline's stages run `python` and `dvc` from the virtual environment
export PATH := $(CURDIR)/$(BIN):$(PATH)
export DVC_NO_ANALYTICS := 1
export MLFLOW_DISABLE_TELEMETRY := true

.PHONY: run test test-slow lint schema docs lock bench-peers

run: $(STAMP)
	dvc repro

# the test suite without the whole-pipeline runs (minutes); .ci/run runs those too (make test-slow). Both on every
# core (pytest-xdist; each stage is single-threaded): a module's tests stay on one worker (they share its fixtures),
# the corpus's and the scenarios' tests one worker per project (tests/conftest.py)
test: $(STAMP)
	python -m pytest -m "not slow" -n auto --dist loadscope

test-slow: $(STAMP)
	python -m pytest -m slow -n auto --dist loadscope

# ruff's lint rules and formatting (pyproject.toml [tool.ruff]; `ruff format . && ruff check --fix .` repairs most),
# and mypy's type check of pipeline/ ([tool.mypy])
lint: $(STAMP)
	ruff check .
	ruff format --check .
	mypy

# params.schema.json from the model of params.yaml (pipeline/core/params.py), which editors read through params.yaml's
# first line; tests/pipeline/test_params_schema.py fails while the committed file differs from the model
schema: $(STAMP)
	python -m pipeline.core.params schema

# the documentation site (mkdocs.yml) into site/, offline; --strict fails on any warning: a broken link or anchor, a
# page outside the nav, a missing params.schema.json (the params page is rendered from it: docs/hooks/params_page.py)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet

# the pipeline's fits beside dask-ml, XGBoost, LightGBM and scikit-learn at 1M and 5M rows, one run per size
# (benchmarks/results/peers_at_scale.md; about an hour on 2 cores). The peers are installed for this only.
bench-peers: $(STAMP)
	python -m pip install --quiet -c requirements.lock -e '.[peers]'
	python benchmarks/bench_peers.py 1000000 5000000

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "error: Python >= 3.11 is needed; $(PYTHON) is $$($(PYTHON) --version 2>&1). Run: make PYTHON=python3.11 ..."; exit 1; }
	@$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml requirements.lock | $(BIN)/python
	@echo "install 1/3: uv, the installer (pip; log: $(VENV)/install.log)"
	@$(BIN)/python -m pip install -c requirements.lock uv > $(VENV)/install.log 2>&1 || $(INSTALL_FAILED)
	@echo "install 2/3: the project and the versions of requirements.lock (uv)"
	@$(UV) -c requirements.lock -e '.[dev]' >> $(VENV)/install.log 2>&1 || $(PIP_INSTEAD) -c requirements.lock -e '.[dev]' >> $(VENV)/install.log 2>&1 || $(INSTALL_FAILED)
	@echo "install 3/3: ISLP, the real-data corpus's datasets (uv)"
	@$(UV) --no-deps -c requirements.lock ISLP >> $(VENV)/install.log 2>&1 || $(PIP_INSTEAD) --no-deps -c requirements.lock ISLP >> $(VENV)/install.log 2>&1 || $(INSTALL_FAILED)
	@touch $@

# requirements.lock: the exact versions the pipeline's results depend on (dvc.lock is reproduced with them)
lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade -e '.[dev]'
	{ sed -n '1,3p' requirements.lock; $(BIN)/python -m pip freeze --exclude-editable; } > requirements.lock.new
	mv requirements.lock.new requirements.lock
