"""open(session) over more than 100 turns: every turn listed, in order, across pages that each fit
the reply bound, at the 1500 ms target."""

from __future__ import annotations

import json
from pathlib import Path

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.tools import open as open_tool
from moraine.store.engine import Store

SID = "22222222-3333-4444-8555-666666666666"


def _record(i: int, kind: str, content: object, **extra: object) -> str:
    return json.dumps({"type": kind, "sessionId": SID, "uuid": f"{kind}-{i}", "cwd": "/w",
                       "timestamp": f"2026-03-02T{i // 60:02d}:{i % 60:02d}:00.000Z",
                       "message": {"role": kind, "content": content, **extra}}) + "\n"


def test_a_session_over_100_turns_lists_them_all_at_the_big_target(tmp_path: Path) -> None:
    log = tmp_path / "claude" / "projects" / "p" / f"{SID}.jsonl"
    log.parent.mkdir(parents=True)
    lines = []
    for turn in range(101):
        lines.append(_record(2 * turn, "user", f"question number {turn}"))
        lines.append(_record(2 * turn + 1, "assistant", [{"type": "text", "text": f"answer {turn}"}],
                             stop_reason="end_turn"))
    log.write_text("".join(lines))
    env = {"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    store = Store(load_config({"home": str(tmp_path / "state")}, env=env))
    ingest_once(store)
    sid = store.catalog.sessions[0].id
    turns, cursor, pages = [], None, 0
    while True:
        result = open_tool.run(store, {"id": sid, "cursor": cursor})
        envelope = result.structured
        assert envelope["performance"]["sla_target_ms"] == 1500
        assert len(result.text) + len(json.dumps(envelope, separators=(",", ":"))) <= 100_000
        data = envelope["data"]
        assert data["turns_shown"]["from_ordinal"] == len(turns) + 1 and data["turns_shown"]["total"] == 101
        turns += data["turns"]
        pages += 1
        cursor = data["next_cursor"]
        if cursor is None:
            break
        assert f"cursor={cursor}" in result.text  # the text says how to get the rest
    assert pages >= 2  # ~700 characters a turn: 101 turns take two replies
    assert [t["ordinal"] for t in turns] == list(range(1, 102))
    assert all(t["completed"] for t in turns)
    assert turns[100]["user_input"]["text"] == "question number 100"
    assert turns[100]["final_response"]["text"] == "answer 100"
