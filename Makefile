# Parallel Performance Modeling Workbench: one command to open the dashboards, one to test.
#
#   make dashboards   set up .venv and serve every notebook in notebooks/ with Voila
#                     (this machine only; HOST=0.0.0.0 serves a class: see docs/serving.md)
#   make test         set up .venv (and chromium) and run the whole test suite
#   make lab          set up .venv and open JupyterLab in notebooks/ (on PORT if given, else 8888)
#   make bench        run the benchmarks in bench/ (pytest-benchmark)
#   make screenshots  refresh docs/screenshots/*.png (headless chromium against Voila)
#   make site         build the static course site into site/ (no kernel; see docs/site.md)
#
# pip only (no conda): Python >= 3.11 creates .venv, `pip install -e ".[test]"` installs
# pyproject.toml's dependencies. The install is redone when pyproject.toml changes.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.workbench-installed
# the dashboards need only the `dashboards` and `profiles` extras: a first `make dashboards` installs
# those (about half the time of everything the tests need); `make test` installs all and both stamps
DASH_STAMP := $(VENV)/.workbench-dashboards-installed
CHROMIUM := /usr/bin/chromium
# PORT: the dashboards' port (default 8866); `make lab PORT=...` opens JupyterLab there (default 8888).
# A taken port is an error for both, never a silent move to another one.
LAB_PORT := $(if $(filter command line environment environment override,$(origin PORT)),$(PORT),8888)
PORT ?= 8866
# 127.0.0.1: this machine only.  Any other address (0.0.0.0: every interface) needs a token
# (WORKBENCH_TOKEN=... in the environment, or SERVE_ARGS=--generate-token) or a password
# (SERVE_ARGS=--password); the server refuses to start without one.
HOST ?= 127.0.0.1
# More options of workbench serve (--help), e.g. --pool 02_adept_prediction.ipynb=3 --max-kernels 40
SERVE_ARGS ?=
PYTEST_ARGS ?=
# Open a browser tab only where there is a display (a console browser would take over the terminal).
VOILA_BROWSER := $(if $(DISPLAY)$(WAYLAND_DISPLAY),,--no-browser)

# Real-data mirror (tests, dashboards): ../shared/data next to the repository, unless set.
ifeq ($(origin WORKBENCH_DATA_MIRROR),undefined)
ifneq ($(wildcard ../shared/data),)
export WORKBENCH_DATA_MIRROR := $(abspath ../shared/data)
endif
endif

.PHONY: help setup dashboards lab test chromium bench screenshots site clean

help:
	@sed -n '3,10p' Makefile | sed 's/^# *//'

setup: $(STAMP)

# The stamps live inside .venv: deleting .venv forces a full reinstall; an existing .venv
# (with or without the stamps) is reused and only updated.
define make_venv
	@test -x $(BIN)/python || { \
	  test -n "$(PYTHON)" || { echo "error: python3.11 (or python3 >= 3.11) not found" >&2; exit 1; }; \
	  echo "creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	@$(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
	  echo "error: $(VENV) uses Python < 3.11; remove $(VENV) and run make again with PYTHON=python3.11" >&2; exit 1; }
endef

$(STAMP): pyproject.toml
	$(make_venv)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
	@touch $@ $(DASH_STAMP)

$(DASH_STAMP): pyproject.toml
	$(make_venv)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dashboards,profiles]"
	@touch $@

# One definition of the server (workbench/ui/serve.py + voila.json: preheated kernels, culling
# of closed pages' kernels, kernel cap, cell timeout, Host check, upload limit), also used by
# the browser tests and the tools: `workbench serve`, the command an installed package has too.
dashboards: $(DASH_STAMP)
	$(BIN)/workbench serve notebooks --host $(HOST) --port $(PORT) $(VOILA_BROWSER) $(SERVE_ARGS)

# Jupyter refuses to run as root without --allow-root (containers, CI): add it only then.
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
lab: $(DASH_STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks --ServerApp.port=$(LAB_PORT) --ServerApp.port_retries=0 $(VOILA_BROWSER) $(LAB_ROOT)

# Debian's chromium for the browser tests (never `playwright install`).
chromium:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "NOTE: $(CHROMIUM) is missing and cannot be installed here (needs root and apt-get):"; \
	  echo "      run 'sudo apt-get install chromium'. Browser tests skip (and fail when CI=true)."; \
	fi

test: $(STAMP) chromium
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	@if ls bench/*.py >/dev/null 2>&1; then \
	  $(BIN)/python -m pytest bench/ -o python_files='bench_*.py test_*.py' \
	    --benchmark-only --benchmark-sort=mean $(PYTEST_ARGS); \
	else echo "no benchmarks in bench/"; fi

screenshots: $(STAMP) chromium
	$(BIN)/python tools/screenshots.py

# The landing page, every notebook with its dashboard's figures (plotly, no kernel) and the API
# reference (Sphinx, warnings as errors); the instructor's solutions are never part of it.
site: $(STAMP)
	$(BIN)/python tools/build_site.py --out site

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .benchmarks *.egg-info site
