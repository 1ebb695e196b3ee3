# `make demo` and `make test` work on a fresh machine with only Python 3 and make:
# they create .venv, install gridax with its dev extra, then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: demo test ci-extra lint torch parity arc3-parity clean

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(INSTALLED)

demo: $(INSTALLED)
	$(BIN)/gridax bench --quick

# Most of the tests' time is XLA compiling, one core at a time: they run on TEST_WORKERS
# processes (pytest-xdist), and compile without XLA's new CPU fusion emitters (about 20 %
# quicker to compile, the same results; LLVM at -O0 compiled no quicker over the games'
# tests and ran a network 20x slower). make arc3-parity, the benchmarks and users
# compile with XLA's defaults.
TEST_WORKERS ?= 2
TEST_XLA_FLAGS ?= --xla_cpu_use_fusion_emitters=false

test: $(INSTALLED)
	XLA_FLAGS="$(TEST_XLA_FLAGS)" GRIDAX_BENCH_SIZES=64 $(BIN)/python -m pytest -n $(TEST_WORKERS)

# The longest training smoke runs (pytest marker ci_only: the continual protocol,
# behaviour cloning, PLR against DR, MaskablePPO on a real game) and the GPU script's
# run at tiny sizes on the CPU, which make test skips to stay under 25 minutes on 2
# cores; CI runs them after it.
ci-extra: $(INSTALLED)
	XLA_FLAGS="$(TEST_XLA_FLAGS)" GRIDAX_CI_ONLY=1 $(BIN)/python -m pytest -n $(TEST_WORKERS) -m ci_only

# PyTorch's trainers (the extra torch) beside gridax, for tests/test_torch_trainers.py
# and examples/pytorch (make test skips them without). TORCH is the torch to install first:
# pip would otherwise take a CUDA build of several GB for the trainers. Elsewhere, e.g.
# TORCH="torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu".
TORCH ?= torch==2.13.0
TORCH_INSTALLED := $(VENV)/.installed-torch

$(TORCH_INSTALLED): $(INSTALLED)
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -e ".[torch]"
	touch $@

torch: $(TORCH_INSTALLED)

lint: $(INSTALLED)
	$(BIN)/ruff check src tests benchmarks $(wildcard examples)
	$(BIN)/ruff format --check src tests benchmarks $(wildcard examples)
	$(BIN)/pyright src

# Step-by-step parity with the pinned Foragax releases, each in a virtual environment of
# its own (0.54.1 and 0.58.0 cannot share one): tests/envs/forage/test_foragax_parity.py.
# Foragax imports six without declaring it.
FORAGAX_VENVS := .venv-foragax-0.54.1 .venv-foragax-0.58.0

.venv-foragax-%/.installed:
	$(PYTHON) -m venv .venv-foragax-$*
	.venv-foragax-$*/bin/python -m pip install --quiet "continual-foragax==$*" six
	touch $@

parity: $(INSTALLED) $(FORAGAX_VENVS:%=%/.installed) arc3-parity
	GRIDAX_FORAGAX_0_54_1_PYTHON=.venv-foragax-0.54.1/bin/python \
	GRIDAX_FORAGAX_0_58_0_PYTHON=.venv-foragax-0.58.0/bin/python \
	$(BIN)/python -m pytest tests/envs/forage/test_foragax_parity.py

# ARC-AGI-3 games against ARC Prize's engine and its scorecard (arc-agi), live: both need
# Python 3.12 or later (PYTHON312 names one), in a virtual environment of their own.
# tests/envs/arc3.
PYTHON312 ?= python3.12
ARCENGINE_VENV := .venv-arcengine

$(ARCENGINE_VENV)/.installed: pyproject.toml
	$(PYTHON312) -m venv $(ARCENGINE_VENV)
	$(ARCENGINE_VENV)/bin/python -m pip install --quiet -e ".[arc-agi]" pytest pytest-xdist pytest-benchmark
	touch $@

# The live comparisons (make test replays the recorded ones and runs the rest), and the
# checks make test runs on a sample of games (tests/tools/arc3_sample.py) on every game:
# the agents' path (frames="last") on the recorded traces and batched, check_env; then
# ARC Prize's toolkit on gridax (gridax.wrappers.arc_agi) beside it on the official
# files, under the Python 3.12 that has both.
arc3-parity: $(INSTALLED) $(ARCENGINE_VENV)/.installed
	GRIDAX_ARCENGINE_PYTHON=$(ARCENGINE_VENV)/bin/python GRIDAX_ARC3_ALL_GAMES=1 \
		$(BIN)/python -m pytest -n $(TEST_WORKERS) tests/envs/arc3 tests/test_conformance.py \
		tests/wrappers/test_arc_agi.py -k "live or batch_steps or recorded_official or (conforms and Arc3)"
	GRIDAX_ARC3_ALL_GAMES=1 $(ARCENGINE_VENV)/bin/python -m pytest -n $(TEST_WORKERS) \
		tests/wrappers/test_arc_agi_toolkit.py

clean:
	rm -rf $(VENV) $(FORAGAX_VENVS) $(ARCENGINE_VENV) .pytest_cache
