# One entry point per task; each creates the virtualenv when it is missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BIN_DIR ?= $(HOME)/.local/bin

.PHONY: run install test test-quick lint bench index clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --upgrade pip >/dev/null
	@$(BIN)/python -m pip install -q -e '.[test,bench,fast]'
	@touch $(STAMP)

## install: the virtualenv, and `moraine` linked into $(BIN_DIR) (default ~/.local/bin)
install: $(STAMP)
	@mkdir -p $(BIN_DIR)
	@ln -sf $(abspath $(BIN))/moraine $(BIN_DIR)/moraine
	@echo "moraine is at $(BIN_DIR)/moraine"
	@case ":$$PATH:" in *":$(BIN_DIR):"*) ;; *) echo "note: $(BIN_DIR) is not on your PATH; add it, e.g. export PATH=\"$(BIN_DIR):\$$PATH\"";; esac

## run: install, index your agents' history into ~/.moraine, show its status (no logs yet is fine: the
## state is ready, and the next `moraine index` or the daemon reads them when they appear)
run: install
	@$(BIN)/moraine index; code=$$?; test $$code -eq 0 -o $$code -eq 5 || exit $$code
	@$(BIN)/moraine status
	@echo
	@echo "next: moraine setup --write   # adds Moraine to the MCP hosts installed here (moraine setup shows the entries, and what it skips)"

## test: lint (ruff, with its complexity rules), types (mypy, pydantic plugin) and the whole test suite (what CI runs),
## three test processes at once (pytest-xdist: most tests wait on the processes they start)
test: $(STAMP)
	@$(BIN)/ruff check src tests tools
	@$(BIN)/mypy
	@$(BIN)/python -m pytest -q -n 3 --dist worksteal

## test-quick: lint, types and the tests not marked slow (a few minutes; before a commit)
test-quick: $(STAMP)
	@$(BIN)/ruff check src tests tools
	@$(BIN)/mypy
	@$(BIN)/python -m pytest -q -n 3 --dist worksteal -m "not slow"

bench: $(STAMP)
	@$(BIN)/python tools/bench.py --events 100000

clean:
	rm -rf $(VENV) .pytest_cache
