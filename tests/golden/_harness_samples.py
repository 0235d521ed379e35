"""Shared by the per-harness golden tests: data_samples/<folder> indexed through the harness's
default source (its root variable pointing at the copy), and the tool views they check."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.tools import list_sessions
from moraine.mcp_server.tools import open as open_tool
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples"
MARCH = ("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z")


def indexed(tmp_path_factory: pytest.TempPathFactory, folder: str, variable: str, harness: str) -> Store:
    """The samples of one harness indexed from a copy, with no other harness's root present."""
    root = tmp_path_factory.mktemp(folder)
    shutil.copytree(SAMPLES / folder, root / folder)
    env = {"CODEX_HOME": str(root / "none"), "CLAUDE_CONFIG_DIR": str(root / "none"), variable: str(root / folder)}
    config = load_config({"home": str(root / "state")}, env=env)
    assert [s.harness for s in config.sources if s.in_use()] == ["codex", "claude-code", harness]  # its root exists
    store = Store(config)
    ingest_once(store)
    return store


def indexed_from_source(home: Path, env: dict[str, str], name: str, harness: str, root: Path) -> Store:
    """A state whose only source is a `[[sources]]` entry of the config file (a harness's data
    at another root, e.g. a copy from another machine), indexed."""
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text(f'[[sources]]\nname = "{name}"\nharness = "{harness}"\nroot = "{root}"\n')
    config = load_config({"home": str(home)}, env=env)
    assert [(s.name, s.harness) for s in config.sources] == [(name, harness)]
    store = Store(config)
    ingest_once(store)
    return store


def open_data(store: Store, id_: str) -> dict[str, Any]:
    return open_tool.run(store, {"id": id_}).structured["data"]


def sessions(store: Store, window: tuple[str, str] = MARCH) -> dict[str, dict[str, Any]]:
    """Session objects by native id."""
    data = list_sessions.run(store, {"start_datetime": window[0], "end_datetime": window[1]}).structured["data"]
    return {s["session"]["native_id"]: s["session"] for s in data["sessions"]}
