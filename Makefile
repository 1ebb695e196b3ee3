# `make demo` and `make test` work on a fresh machine with only Python 3 and make:
# they create .venv, install gridax with its dev extra, then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: demo test lint clean

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(INSTALLED)

demo: $(INSTALLED)
	$(BIN)/gridax bench --quick

test: $(INSTALLED)
	GRIDAX_BENCH_SIZES=64 $(BIN)/python -m pytest

lint: $(INSTALLED)
	$(BIN)/ruff check src tests benchmarks $(wildcard examples)
	$(BIN)/ruff format --check src tests benchmarks $(wildcard examples)
	$(BIN)/pyright src

clean:
	rm -rf $(VENV) .pytest_cache
