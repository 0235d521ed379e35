"""The reply bound holds with the texts that quote what they show: fifty hits with full snippets,
long titles, cwds and resume commands; a session whose every turn quotes a long prompt and a long
final response; a turn of long events (text block plus compact JSON ≤ [mcp] max_reply_chars)."""

from __future__ import annotations

from pathlib import Path

import orjson
from contract_harness import Claude, write_jsonl

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.contract import ToolResult
from moraine.mcp_server.tools import open as open_tool
from moraine.mcp_server.tools import search_sessions
from moraine.store.engine import Store

WORDS = "zebraword " + " ".join(f"filler{i}" for i in range(400))  # ~3,500 characters a text


def _chars(result: ToolResult) -> int:
    return len(result.text) + len(orjson.dumps(result.structured).decode())


def test_long_hits_sessions_and_turns_fit_the_bound(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    cwd = "/home/someone/" + "/".join(f"deeply-nested-folder-{i}" for i in range(6))
    for n in range(60):
        sid = f"7c666c01-d38e-4658-8650-{n:012d}"
        log = Claude(sid, cwd)
        turns = 200 if n == 0 else 1
        for t in range(turns):
            log.user(f"2026-03-10T{t // 60 % 24:02d}:{t % 60:02d}:00.000Z", f"prompt {t} of {n}: {WORDS}")
            log.assistant(f"2026-03-10T{t // 60 % 24:02d}:{t % 60:02d}:30.000Z",
                          [{"type": "text", "text": f"answer {t}: {WORDS}"}, {"type": "text", "text": WORDS},
                           {"type": "text", "text": WORDS}], "end_turn", f"m{n}_{t}")
        write_jsonl(claude / "projects" / f"-p{n}" / f"{sid}.jsonl", log.records)
    store = Store(load_config({"home": str(tmp_path / "state")},
                              env={"CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(tmp_path / "no-codex")}))
    ingest_once(store)
    bound = store.config.mcp.max_reply_chars
    found = search_sessions.run(store, {"query": "zebraword", "n_hits": 50})
    hits = found.structured["data"]["results"]
    assert len(hits) == 50 and _chars(found) <= bound, _chars(found)
    assert all(h["open"]["event_id"] in found.text for h in hits)
    big = next(h for h in hits if h["session"]["native_id"].endswith("000000000000"))
    session = open_tool.run(store, {"id": big["open"]["session_id"]})
    data = session.structured["data"]
    assert _chars(session) <= bound and data["next_cursor"] and len(data["turns"]) >= 20, _chars(session)
    turn = open_tool.run(store, {"id": big["open"]["turn_id"]})
    assert _chars(turn) <= bound
