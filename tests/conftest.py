"""Fixtures shared across test folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[1] / "data_samples"


@pytest.fixture(scope="module")
def samples_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """data_samples/ copied to a temporary home and indexed into a fresh state directory."""
    root = tmp_path_factory.mktemp("samples")
    shutil.copytree(SAMPLES / "codex", root / "codex")
    shutil.copytree(SAMPLES / "claude", root / "claude")
    env = {"CODEX_HOME": str(root / "codex"), "CLAUDE_CONFIG_DIR": str(root / "claude")}
    store = Store(load_config({"home": str(root / "state")}, env=env))
    ingest_once(store)
    return store
