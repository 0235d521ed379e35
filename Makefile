# One entry point per task; each creates the virtualenv when it is missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench index clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --upgrade pip >/dev/null
	@$(BIN)/python -m pip install -q -e '.[test,bench]'
	@touch $(STAMP)

## run: index your Codex and Claude Code history, then serve MCP on stdio
run: $(STAMP)
	@$(BIN)/moraine index && $(BIN)/moraine status

## test: lint and the whole test suite
test: $(STAMP)
	@$(BIN)/ruff check src tests tools
	@$(BIN)/python -m pytest -q

bench: $(STAMP)
	@$(BIN)/python tools/bench.py --events 100000

clean:
	rm -rf $(VENV) .pytest_cache
