"""A JSON line carrying a lone UTF-16 surrogate escape (e.g. a truncated emoji, `"\\ud83d"`,
which real logs contain) must not stop ingest: the other lines and files are indexed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moraine.config import load_config
from moraine.index.tokenize import query_terms
from moraine.ingest.checkpoint import pending_bytes
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

CODEX_SID = "019c5f6a-49bd-7920-ac67-1dd8e33b0e95"
CLAUDE_SID = "7c666c01-d38e-4658-8650-854ffb5b626e"
BROKEN = "broken emoji \\ud83d here"  # JSON text: the escape of a lone high surrogate


def _write_logs(tmp_path: Path, harness: str) -> None:
    if harness == "codex":
        folder = tmp_path / "codex" / "sessions" / "2026" / "02" / "15"
        folder.mkdir(parents=True)
        head = json.dumps({"timestamp": "2026-02-15T03:50:40.000Z", "type": "session_meta",
                           "payload": {"id": CODEX_SID, "cwd": "/repo"}})
        bad = ('{"timestamp":"2026-02-15T03:50:41.000Z","type":"event_msg","payload":{"type":"agent_message",'
               '"message":"' + BROKEN + '"}}')
        good = json.dumps({"timestamp": "2026-02-15T03:50:42.000Z", "type": "event_msg",
                           "payload": {"type": "agent_message", "message": "fine walrus reply"}})
        (folder / f"rollout-2026-02-15T03-50-40-{CODEX_SID}.jsonl").write_text("\n".join([head, bad, good]) + "\n")
    else:
        folder = tmp_path / "claude" / "projects" / "-repo"
        folder.mkdir(parents=True)
        bad = ('{"type":"user","sessionId":"' + CLAUDE_SID + '","timestamp":"2026-01-19T15:58:40.000Z",'
               '"message":{"role":"user","content":"' + BROKEN + '"}}')
        good = json.dumps({"type": "user", "sessionId": CLAUDE_SID, "timestamp": "2026-01-19T15:58:41.000Z",
                           "message": {"role": "user", "content": "fine walrus prompt"}})
        (folder / f"{CLAUDE_SID}.jsonl").write_text("\n".join([bad, good]) + "\n")


@pytest.mark.parametrize("harness", [
    "codex",
    "claude-code",
])
def test_lone_surrogate_does_not_stop_ingest(tmp_path: Path, harness: str) -> None:
    _write_logs(tmp_path, harness)
    config = load_config(overrides={"home": str(tmp_path / "state"), "store": {"fsync": "never"}},
                         env={"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    store = Store(config)
    ingest_once(store)
    hits = store.search(query_terms("walrus", 16), 10, ["user_input", "assistant_response"], None, None)
    assert hits.total == 1
    assert pending_bytes(store.checkpoints) == 0
    # and the state directory still opens
    assert Store(config).stats.events == store.stats.events
