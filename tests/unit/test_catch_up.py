"""The per-answer catch-up: live logs every time, dormant ones at least every FULL_SWEEP_S."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from moraine.config import load_config
from moraine.index.tokenize import query_terms
from moraine.ingest import pipeline
from moraine.ingest.pipeline import catch_up
from moraine.store.engine import Store


def _prompt(i: int, word: str) -> str:
    return json.dumps({"type": "user", "sessionId": "11111111-2222-4333-8444-555555555555", "uuid": f"u{i}",
                       "timestamp": f"2026-03-01T10:00:{i:02d}.000Z", "cwd": "/w",
                       "message": {"role": "user", "content": f"look at the {word} module"}}) + "\n"


def _hits(store: Store, word: str) -> int:
    return store.search(query_terms(word, 16), 10, ["user_input"], None, None).total


def test_live_logs_every_time_dormant_logs_at_the_next_sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    projects = tmp_path / "claude" / "projects" / "p"
    projects.mkdir(parents=True)
    live, dormant = projects / "live.jsonl", projects / "11111111-2222-4333-8444-555555555555.jsonl"
    live.write_text(_prompt(1, "otter"))
    dormant.write_text(_prompt(2, "heron"))
    old = time.time() - 3 * 24 * 3600
    os.utime(dormant, (old, old))
    env = {"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    store = Store(load_config({"home": str(tmp_path / "state")}, env=env))
    catch_up(store)  # the first catch-up is a full sweep
    assert _hits(store, "otter") == 1 and _hits(store, "heron") == 1
    monkeypatch.setattr(pipeline, "FULL_SWEEP_S", 3600.0)
    with live.open("a") as fh:
        fh.write(_prompt(3, "walrus"))
    with dormant.open("a") as fh:
        fh.write(_prompt(4, "ibis"))
    catch_up(store)
    assert _hits(store, "walrus") == 1, "a live log is caught up before every answer"
    assert _hits(store, "ibis") == 0, "a dormant log waits for the next full sweep"
    new = projects / "new.jsonl"
    new.write_text(_prompt(5, "lemur"))
    catch_up(store)
    assert _hits(store, "lemur") == 1, "a new log is read before every answer"
    monkeypatch.setattr(pipeline, "FULL_SWEEP_S", 0.0)
    catch_up(store)
    assert _hits(store, "ibis") == 1
