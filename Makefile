# mqlab: every target creates .venv and installs what it needs on first use.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
LAB_STAMP := $(VENV)/.installed-lab

# PySpark workers must use the venv's interpreter; Spark warns about loopback host names without SPARK_LOCAL_IP;
# mkdocs-material prints an end-of-life banner unless told not to.
export PYSPARK_PYTHON := $(abspath $(BIN)/python)
export SPARK_LOCAL_IP := 127.0.0.1
export NO_MKDOCS_2_WARNING := 1

.PHONY: venv quickstart lint unit notebooks refresh-notebooks spark docs site-check test lab bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

venv: $(STAMP)

# The main job: the embedded cluster, a producer and a push consumer (ARGS="--mode simulated" for the simulation).
quickstart: $(STAMP)
	$(BIN)/mqlab quickstart $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# XDIST=-n0 runs a tier in one process; the default spreads whole files over two workers (a file's tests, and a
# notebook's cells, stay together and in order).
XDIST ?= -n 2 --dist loadfile

unit: $(STAMP)
	$(BIN)/python -m pytest -q $(XDIST) -m "not spark"

notebooks: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) --nbval --nbval-current-env notebooks/

# Re-execute the notebooks in place after a change to code they show or print (NB="notebooks/01-x.ipynb" for one).
refresh-notebooks: $(STAMP)
	$(BIN)/python -m tools.refresh_notebooks $(NB)

# PySpark exercises: the data-source tests (one shared local[2] session) and the Spark notebooks.
spark: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -m spark tests/spark tests/labs tests/docs/test_experiments_page.py
	$(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) --nbval --nbval-current-env spark/

docs: $(STAMP)
	$(BIN)/mkdocs build --strict
	@echo "site built in site/ (open site/index.html)"

site-check: docs
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	@fc-list :lang=zh | grep -q . || { apt-get update -qq && apt-get install -y -qq fonts-noto-cjk >/dev/null; }
	$(BIN)/python tools/check_site.py site

test: lint unit notebooks spark site-check

# The store's hot paths, the clients against real server processes, chaos campaigns, then the Spark cases: the
# store sources against Spark's binaryFile, the streaming source against the push consumer, the scenario generator;
# one summary table at the end (ARGS=--quick: short runs; ARGS=--smoke: tiny sizes, what make test runs).
bench: $(STAMP)
	$(BIN)/python -m bench $(ARGS)

$(LAB_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,jupyterlab]'
	touch $@

lab: $(LAB_STAMP)
	$(BIN)/jupyter lab --notebook-dir=.

clean:
	rm -rf site .cache .pytest_cache .ruff_cache .hypothesis
