# `make demo` and `make test` do all the set-up they need on a fresh machine.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
OUT ?= out

.PHONY: setup demo demos test lint check bench clean

$(STAMP): setup.cfg pyproject.toml scripts/setup.sh
	VENV=$(VENV) bash scripts/setup.sh

setup: $(STAMP)

demo: $(STAMP)  ## train micrograd's moons demo, write its PNGs to $(OUT)/
	$(PY) -m demos.moons --out $(OUT)

test: $(STAMP)  ## the whole test suite, doctests of the packages included
	$(PY) -m pytest -q --doctest-modules micrograd nn tests

demos: $(STAMP)  ## every demo, full length, PNGs in $(OUT)/
	$(PY) -m demos.moons --out $(OUT)
	$(PY) -m demos.spirals --out $(OUT)
	$(PY) -m demos.derivative --out $(OUT)
	$(PY) -m demos.sine_model --out $(OUT)

lint: $(STAMP)  ## ruff (lint + format) and mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy micrograd nn demos

check: lint test

bench: $(STAMP)  ## this engine vs micrograd 0.1.0: table on stdout, JSON in benchmarks/results/latest.json
	$(PY) -m benchmarks.install_reference
	$(PY) -m benchmarks.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .mypy_cache .ruff_cache .hypothesis
