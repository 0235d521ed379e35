"""Fixtures of the CLI end-to-end suite; the harness itself lives in `cli_harness`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_harness import MORAINE, Indexed, Workspace, make_workspace


@pytest.fixture(scope="session", autouse=True)
def _console_script_exists() -> None:
    assert MORAINE.is_file(), f"console script not found at {MORAINE}; install the package in the venv"


@pytest.fixture
def fresh(tmp_path: Path) -> Workspace:
    """Sample logs copied, nothing indexed yet (MORAINE_HOME does not exist)."""
    return make_workspace(tmp_path / "ws")


@pytest.fixture(scope="session")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    """One shared, indexed workspace for the read-only tests (search, open, list, status, redaction)."""
    ws = make_workspace(tmp_path_factory.mktemp("indexed"))
    first = ws.run("index", "--json")
    return Indexed(ws, first)


@pytest.fixture(scope="session")
def migration_search(indexed: Indexed) -> dict[str, Any]:
    """`moraine search migration --json` on the shared workspace (IDs for the open tests)."""
    result = indexed.ws.run("search", "migration", "--json")
    assert result.returncode == 0, result
    return result.json()
