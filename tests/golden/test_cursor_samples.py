"""Golden test of the Cursor adapter over data_samples/cursor (hand-made agent transcripts of the
2026 JSONL form): nested, subagent and flat layouts, `<user_query>` prompts beside injected
context, `turn_ended` lines, tool results paired by id, lines without times, a file under the
root that is not a transcript, and a malformed line (docs/harnesses/cursor-opencode-kimi-pi.md §1).
"""

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

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "cursor"
MAIN, CHILD, FLAT = ("6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d", "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     "1b2c3d4e-5f60-4718-9a0b-1c2d3e4f5a6b")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    root = tmp_path_factory.mktemp("cursor")
    shutil.copytree(SAMPLES, root / "cursor")
    env = {"CODEX_HOME": str(root / "none"), "CLAUDE_CONFIG_DIR": str(root / "none"),
           "CURSOR_HOME": str(root / "cursor")}
    config = load_config({"home": str(root / "state")}, env=env)
    assert [s.harness for s in config.sources] == ["codex", "claude-code", "cursor"]
    store = Store(config)
    ingest_once(store)
    return store


def _open(store: Store, id_: str) -> dict[str, Any]:
    return open_tool.run(store, {"id": id_}).structured["data"]


def _sessions(store: Store) -> dict[str, dict[str, Any]]:
    data = list_sessions.run(store, {"start_datetime": "1970-01-02T00:00:00Z",  # lines hold no time: the file's
                                     "end_datetime": "2100-01-01T00:00:00Z"}).structured["data"]
    return {s["session"]["native_id"]: s["session"] for s in data["sessions"]}


def test_layouts_subagent_and_resume(store: Store) -> None:
    sessions = _sessions(store)
    assert set(sessions) == {MAIN, CHILD, FLAT}  # other/notes.jsonl is not a transcript
    assert sessions[CHILD]["parent_session_id"] == sessions[MAIN]["id"] and sessions[CHILD]["resume_command"] is None
    assert sessions[MAIN]["resume_command"] == f"cursor-agent --resume {MAIN}"  # cwd unknown here: no cd
    assert sessions[MAIN]["title"] == "why does the kestrel build fail on CI?"
    assert sessions[FLAT]["title"] == "rename the grebe module"


def test_prompts_context_and_completion(store: Store) -> None:
    turns = _open(store, _sessions(store)[MAIN]["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == ["why does the kestrel build fail on CI?",
                                                       "add the missing kestrel step to CI", "try again with the cache"]
    assert [t["completed"] for t in turns] == [True, True, False]  # turn_ended; turn_ended cancelled; live
    assert [e["type"] for e in _open(store, turns[0]["id"])["events"]] == [
        "system",  # <user_info> beside the <user_query> of the same line
        "user_input", "assistant_response", "tool_call", "tool_response", "tool_call", "assistant_response",
        "runtime",
        "system",  # a line that is only <cursor_commands>: not a prompt
    ]
    result = next(e for e in _open(store, turns[0]["id"])["events"] if e["type"] == "tool_response")
    content = _open(store, result["id"])["content"]
    assert (content["tool_name"], content.get("is_error")) == ("Shell", True)


def test_flat_transcript_with_times_and_models(store: Store) -> None:
    session = _sessions(store)[FLAT]
    assert session["started_at"] == "2026-02-16T12:00:10.000Z"
    [turn] = _open(store, session["id"])["turns"]
    assert [e["type"] for e in _open(store, turn["id"])["events"]] == ["user_input", "reasoning", "assistant_response"]
    assert turn["completed"] is False


def test_malformed_line_is_quarantined(store: Store) -> None:
    assert [(Path(i.file).name, i.line) for i in store.stats.issues] == [(f"{MAIN}.jsonl", 13)]
