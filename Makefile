# Two commands on a bare machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test fuzz bench docs lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Reinstall when the package metadata changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

# warmup: the common kernels compiled once, on every core, before the tour
demo: $(STAMP)
	$(BIN)/hitbox warmup
	$(BIN)/hitbox demo

# warmup first: each common kernel compiled once, its groups split over the cores;
# without it both test workers compiled the same kernels (70 % of a clean clone's
# compile time was such doubles). Two workers (--dist loadfile measured 8 % slower).
test: $(STAMP)
	$(BIN)/hitbox warmup
	$(BIN)/python -m pytest -n 2 --durations=25

# the file and API fuzzers with a long budget (3,000 inputs per reader and kind, 2,000
# per API property, new ones each run)
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_file_fuzz.py tests/test_api_fuzz.py

# the API reference from the docstrings, into site/ (strict: a broken link fails)
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

clean:
	rm -rf $(VENV) build site src/*.egg-info
