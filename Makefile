# The two commands of the README, plus their parts. Every target is idempotent.
#   make demo   set up, provision the demo catalogue's servers, build its atlas (the main job)
#   make test   set up, provision the test servers, run the test suite
#   make slow   the tests marked slow (scale and end-to-end variants), which make test leaves out
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.toolatlas-installed

.PHONY: demo test slow lint setup sandbox servers test-servers bench clean

demo: servers
	$(BIN)/toolatlas servers check configs/demo.toml
	$(BIN)/toolatlas build configs/demo.toml
	$(BIN)/toolatlas guide "Commit my pending changes with a short message" --config configs/demo.toml

test: test-servers
	$(BIN)/python -m pytest $(PYTEST_ARGS)

slow: test-servers
	$(BIN)/python benchmarks/slow_tests.py $(PYTEST_ARGS)

# The rule set and the type checker's settings are in pyproject.toml ([tool.ruff], [tool.mypy]).
lint: $(STAMP)
	$(BIN)/ruff check toolatlas actors tests benchmarks cluster
	$(BIN)/mypy

setup: $(STAMP) sandbox

# Every MCP server runs in a bubblewrap sandbox (toolatlas/confinement): install bubblewrap where
# we can (root with apt), otherwise stop and say how; then check that the kernel lets it work.
sandbox: $(STAMP)
	@command -v bwrap >/dev/null && command -v prlimit >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing bubblewrap (the servers' sandbox)"; \
			apt-get install -y -qq bubblewrap util-linux >/dev/null 2>&1 || \
			{ apt-get update -qq >/dev/null && apt-get install -y -qq bubblewrap util-linux >/dev/null; }; \
		fi; }
	@command -v bwrap >/dev/null || { echo "ToolAtlas runs every MCP server in a bubblewrap sandbox and 'bwrap' is not installed:"; \
		echo "  sudo apt-get install bubblewrap   (Debian/Ubuntu)    sudo dnf install bubblewrap   (Fedora)"; exit 1; }
	@$(BIN)/python -c 'from toolatlas.confinement.bubblewrap import bubblewrap_available as ok; ok()' || { \
		echo "bubblewrap is installed but cannot build a server sandbox here (see the reason above)"; exit 1; }

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "ToolAtlas needs Python >= 3.11; set PYTHON=/path/to/python3.11")'
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "ToolAtlas needs Node.js >= 18 with npm for the demo servers"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	touch $(STAMP)

servers: setup
	$(BIN)/toolatlas servers install configs/demo.toml

# The tests also build five servers of the wild catalogue (tests/evaluation/test_wild_recall.py and
# the tests of the proposer and the server's own state on spreadsheet and DuckDB) and
# drive the PostgreSQL server, which needs a Python 3.12 interpreter: installed
# when one is found, otherwise its tests are skipped with the reason.
test-servers: servers
	$(BIN)/toolatlas servers install configs/wild.toml --server units --server eslint --server taskmanager \
		--server duckdb --server spreadsheet
	@if $(BIN)/python -c 'from toolatlas.runtimes import find_python; find_python("3.12")' >/dev/null 2>&1; then \
		$(BIN)/toolatlas servers install configs/postgres.toml; \
	else echo "note: no Python 3.12 interpreter found; the postgres-mcp tests will be skipped"; fi

bench: servers
	$(BIN)/python benchmarks/mcp_calls.py
	$(BIN)/python benchmarks/env_reset.py
	$(BIN)/python benchmarks/store.py
	$(BIN)/python benchmarks/coverage.py
	$(BIN)/python benchmarks/build_throughput.py
	$(BIN)/python benchmarks/sandbox_overhead.py

clean:
	rm -rf .toolatlas
