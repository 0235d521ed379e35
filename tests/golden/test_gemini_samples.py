"""Golden test of the Gemini CLI adapter over data_samples/gemini (hand-made JSONL chats of
v0.39+): a header, injected `<session_context>`, a prompt whose `displayContent` differs from
the expanded content, a message appended again with its tool results (one set of events, not
two), tool responses recorded as a user message (not a prompt), a cancelled request, a
`/compress` checkpoint (`$set.messages`), an API error, a `$set` summary as title, an unknown
type, a torn line, and a subagent chat (docs/harnesses/gemini-qwen-copilot.md §1).
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

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "gemini"
SID, SUB = "abcd1234-5678-4e9f-8a0b-c1d2e3f4a5b6", "ffee0011-2233-4455-8667-78899aabbccd"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    root = tmp_path_factory.mktemp("gemini")
    shutil.copytree(SAMPLES, root / "gemini")
    env = {"CODEX_HOME": str(root / "none"), "CLAUDE_CONFIG_DIR": str(root / "none"),
           "GEMINI_CLI_HOME": str(root / "gemini")}
    config = load_config({"home": str(root / "state")}, env=env)
    assert [s.harness for s in config.sources] == ["codex", "claude-code", "gemini-cli"]
    store = Store(config)
    ingest_once(store)
    return store


def _open(store: Store, id_: str) -> dict[str, Any]:
    return open_tool.run(store, {"id": id_}).structured["data"]


def _sessions(store: Store) -> dict[str, dict[str, Any]]:
    data = list_sessions.run(store, {"start_datetime": "2026-03-01T00:00:00Z",
                                     "end_datetime": "2026-04-01T00:00:00Z"}).structured["data"]
    return {s["session"]["native_id"]: s["session"] for s in data["sessions"]}


def test_sessions(store: Store) -> None:
    sessions = _sessions(store)
    assert set(sessions) == {SID, SUB}
    main, sub = sessions[SID], sessions[SUB]
    assert main["title"] == "Fix the flaky gull test"  # the generated summary
    assert main["cwd"] == sub["cwd"] == "/work/gull-repo"  # from the project folder's .project_root
    assert main["resume_command"] == f"cd /work/gull-repo && gemini --resume {SID}"
    assert sub["parent_session_id"] == main["id"] and sub["resume_command"] is None


def test_turns_and_events(store: Store) -> None:
    turns = _open(store, _sessions(store)[SID]["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == ["Why does the gull test fail? @gull.py",
                                                       "mock wind() and rerun", "try the heron model instead"]
    assert [t["completed"] for t in turns] == [True, True, True]  # next prompt; cancelled; API error
    assert [e["type"] for e in _open(store, turns[0]["id"])["events"]] == [
        "system", "system",  # header; <session_context>
        "user_input", "reasoning", "assistant_response",
        "tool_call", "tool_response", "tool_call", "tool_response",  # the message appended twice: once here
        "assistant_response"]
    assert [e["type"] for e in _open(store, turns[1]["id"])["events"]] == [
        "user_input", "assistant_response", "runtime",
        "system",  # /compress typed as a command: not a prompt
        "compaction"]
    shell = [e for e in _open(store, turns[0]["id"])["events"] if e["type"] == "tool_response"][1]
    content = _open(store, shell["id"])["content"]
    assert (content["tool_name"], content["exit_code"]) == ("run_shell_command", 1)


def test_torn_line_is_quarantined(store: Store) -> None:
    assert [(Path(i.file).name, i.line) for i in store.stats.issues] == [
        ("session-2026-03-17T10-00-abcd1234.jsonl", 18)]
