# `make demo` and `make test` do all the set-up they need on a fresh machine.
# `make demo` installs only what the demos need; `make test` adds the development
# tools and PyTorch's CPU build (SKIP_TORCH=1 leaves PyTorch out).
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= out
SKIP_TORCH ?= 0
DEMO_STAMP := $(VENV)/.installed-demo
TEST_STAMP := $(VENV)/.installed-test$(if $(filter 1,$(SKIP_TORCH)),-without-torch,)
BROWSER_STAMP := $(VENV)/.installed-browser

.PHONY: setup setup-demo demo demos test test-fast lint check bench docs serve clean

$(DEMO_STAMP): setup.cfg pyproject.toml scripts/setup.sh
	VENV=$(VENV) bash scripts/setup.sh demo
	touch $@

$(TEST_STAMP): setup.cfg pyproject.toml scripts/setup.sh scripts/install_torch.py
	VENV=$(VENV) SKIP_TORCH=$(SKIP_TORCH) bash scripts/setup.sh test
	touch $(DEMO_STAMP) $@

# The browser tests' Chromium and Selenium: the test set-up only, never `make demo`.
$(BROWSER_STAMP): scripts/install_browser.sh $(TEST_STAMP)
	VENV=$(VENV) bash scripts/install_browser.sh
	touch $@

setup-demo: $(DEMO_STAMP)  ## the demos' environment: the engine, matplotlib, graphviz, tqdm, numpy, scikit-learn

setup: $(TEST_STAMP) $(BROWSER_STAMP)  ## everything: the demos' environment, dev tools, PyTorch (CPU), Chromium

demo: $(DEMO_STAMP)  ## train micrograd's moons demo, write its PNGs to $(OUT)/
	$(PY) -m demos.moons --out $(OUT)

# The tests run in parallel (pytest-xdist), one worker per core (JOBS=0 runs them in one process;
# JOBS=4 runs four workers); a file's tests share a worker, so a file's browser or built site is
# made once. PYTEST_ARGS adds to pytest's command line (.ci/run adds --durations=25).
JOBS ?= auto
PYTEST := $(PY) -m pytest -q -n $(JOBS) --dist loadfile $(PYTEST_ARGS)
# What `make test-fast` leaves out: the tests of these kinds (tests/tiers.py marks them).
FAST := not browser and not notebook and not docs_build and not demo and not slow

test: $(TEST_STAMP) $(BROWSER_STAMP)  ## the whole test suite, doctests of the packages included
	$(PYTEST) --doctest-modules micrograd nn tests

test-fast: $(TEST_STAMP)  ## the suite without the browser, notebook, docs-build, demo and slow tests
	$(PYTEST) -m "$(FAST)" --doctest-modules micrograd nn tests

demos: $(DEMO_STAMP)  ## every demo, full length, PNGs in $(OUT)/
	$(PY) -m demos.moons --out $(OUT)
	$(PY) -m demos.spirals --out $(OUT)
	$(PY) -m demos.derivative --out $(OUT)
	$(PY) -m demos.sine_model --out $(OUT)
	$(PY) -m demos.forward_vs_reverse --out $(OUT)
	$(PY) -m demos.digits --out $(OUT)
	$(PY) -m demos.names_gpt --out $(OUT)

lint: $(TEST_STAMP)  ## ruff (lint + format) and mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy micrograd nn demos scripts/install_torch.py scripts/build_playground.py scripts/check_commit_subject.py playground/runner.py playground/gpt_runner.py playground/live_training.py playground/trainer.py playground/lab_runner.py playground/lab_grader.py playground/lab_steps.py

check: lint test

docs: $(TEST_STAMP)  ## the documentation site, built into site/ (mkdocs --strict: a broken link or example fails); its playground needs npm
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# A browser starts the playground's Python (a Web Worker) only for a page served over HTTP, never
# from file://: this serves the built site on this machine only (127.0.0.1), building it first if
# there is none. Python's own http.server: nothing to install.
SITE ?= site
PORT ?= 8000
serve:  ## the built site on http://127.0.0.1:$(PORT)/ (make docs first if there is none); the playground at /playground/
	@test -f $(SITE)/index.html || { test "$(SITE)" = site && $(MAKE) docs; }
	@echo "serve: $(SITE)/ on http://127.0.0.1:$(PORT)/, the playground at http://127.0.0.1:$(PORT)/playground/ (Ctrl+C stops)"
	python3 -u -m http.server --bind 127.0.0.1 --directory $(SITE) $(PORT)

bench: $(DEMO_STAMP)  ## this engine vs micrograd 0.1.0: table on stdout, JSON in benchmarks/results/latest.json
	$(PY) -m benchmarks.install_reference
	$(PY) -m benchmarks.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(OUT) site .pytest_cache .mypy_cache .ruff_cache .hypothesis
