"""Fixtures shared across test folders.

Every test runs with a `$HOME` of its own: an empty folder under pytest's temporary directory,
with `XDG_CONFIG_HOME` / `XDG_DATA_HOME` inside it and every harness's root variable (and every
`MORAINE_*` setting) removed from the environment, for this process and the subprocesses it
starts. Moraine finds each harness's logs from its own variable, else from `$HOME`
(`moraine.config.default_sources`), so without this a machine with its own `~/.pi`, `~/.gemini`,
`~/.local/share/opencode`, ... would add its sessions to what the tests index. Session- and
module-scoped fixtures (built before any test's own fixtures) see a shared empty home; each test
then gets a fresh one.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[1] / "data_samples"

# The variables that name a harness's log root (src/moraine/config.py, src/moraine/setup.py).
HARNESS_VARIABLES = ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "QWEN_RUNTIME_DIR", "QWEN_HOME",
                     "KIMI_SHARE_DIR", "CURSOR_HOME", "COPILOT_HOME", "GEMINI_CLI_HOME", "OPENCODE_DB")


def _point_home_at(mp: pytest.MonkeyPatch, home: Path) -> None:
    """`$HOME` (and the XDG folders) at `home`, an empty folder; no harness root or Moraine setting."""
    home.mkdir(parents=True, exist_ok=True)
    mp.setenv("HOME", str(home))
    mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    mp.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    for name in (*HARNESS_VARIABLES, *(k for k in os.environ if k.startswith("MORAINE_"))):
        mp.delenv(name, raising=False)


@pytest.fixture(scope="session", autouse=True)
def _isolated_session_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The home the session- and module-scoped fixtures (shared servers, indexed workspaces) see."""
    with pytest.MonkeyPatch.context() as mp:
        home = tmp_path_factory.mktemp("session-home")
        _point_home_at(mp, home)
        yield home


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty `$HOME` for each test (a test that writes to it cannot change the next one)."""
    home = tmp_path_factory.mktemp("home")
    _point_home_at(monkeypatch, home)
    return home


def build_samples_store(root: Path) -> Store:
    """data_samples/ copied under `root` and indexed into a fresh state directory there."""
    shutil.copytree(SAMPLES / "codex", root / "codex")
    shutil.copytree(SAMPLES / "claude", root / "claude")
    env = {"CODEX_HOME": str(root / "codex"), "CLAUDE_CONFIG_DIR": str(root / "claude"), "HOME": str(root / "home")}
    store = Store(load_config({"home": str(root / "state")}, env=env))
    ingest_once(store)
    return store


@pytest.fixture(scope="session")
def make_samples_store() -> Callable[[Path], Store]:
    """`build_samples_store`, for tests that need their own copy (they may append to it)."""
    return build_samples_store


@pytest.fixture(scope="module")
def samples_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return build_samples_store(tmp_path_factory.mktemp("samples"))
