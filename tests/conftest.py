"""Fixtures shared across test folders."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[1] / "data_samples"


def build_samples_store(root: Path) -> Store:
    """data_samples/ copied under `root` and indexed into a fresh state directory there."""
    shutil.copytree(SAMPLES / "codex", root / "codex")
    shutil.copytree(SAMPLES / "claude", root / "claude")
    env = {"CODEX_HOME": str(root / "codex"), "CLAUDE_CONFIG_DIR": str(root / "claude")}
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
