# One command each: `make report` and `make test` do all set-up themselves.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PYTHONHASHSEED := 0
# Python may keep its compiled bytecode (in __pycache__/, ignored by git) even where the environment turns that
# off: a test run starts ~80 Python processes (studio kernels, workers, servers), and pytest rewrites every test
# module's asserts; without the cache each one compiles the workbench and the tests from source again.  `make test`
# and `make report` write the caches first (compileall: under a second), so a fresh checkout's processes start cached.
export PYTHONDONTWRITEBYTECODE :=

.PHONY: setup report test bench lab app lint clean

# uv installs the same packages as pip (the same versions and files, bytecode aside) in a sixth of the time (a fresh
# venv, nothing cached: 12 s against pip's 78 s); pip installs them if uv cannot.  uv does not compile the packages'
# bytecode up front (--compile-bytecode: 28 s, and 27 s more of a fresh-clone CI run): the first process of every make
# target writes what it imports (PYTHONDONTWRITEBYTECODE is cleared above), `workbench compile` first of all
setup: $(STAMP)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (or run: make PYTHON=/path/to/python3.11)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv && $(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[all,test]' \
		|| $(BIN)/python -m pip install --quiet -e '.[all,test]'
	$(BIN)/python -m ipykernel install --prefix $(VENV) --name python3 >/dev/null
	touch $(STAMP)

report: $(STAMP)
	$(BIN)/python -m compileall -q workbench >/dev/null
	$(BIN)/workbench compile
	$(BIN)/workbench report all --out reports/

test: $(STAMP)
	$(BIN)/ruff check workbench tests benchmarks
	$(BIN)/python -m compileall -q workbench tests >/dev/null
	$(BIN)/workbench compile
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m "not bench"

bench: $(STAMP)
	$(BIN)/workbench compile
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m bench
	PARITY_SCALE=10 $(BIN)/python -m pytest -n 2 --dist loadgroup -q tests/test_parity.py
	$(BIN)/python benchmarks/run_all.py

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/ $(if $(filter 0,$(shell id -u)),--allow-root)

app: $(STAMP)
	$(BIN)/workbench compile
	$(BIN)/python -m workbench.app $(if $(PORT),--port $(PORT))

lint: $(STAMP)
	$(BIN)/ruff check workbench tests benchmarks

clean:
	rm -rf $(VENV) .cache reports/*/
