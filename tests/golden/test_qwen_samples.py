"""Golden test of the Qwen Code adapter over data_samples/qwen (hand-made JSONL ChatRecords):
sessions, turns, event types, completion, titles, models, exit codes, resume, quarantine.

The samples hold the edge cases of docs/harnesses/gemini-qwen-copilot.md §2.8: a prompt whose
`displayText` differs from the expanded parts, thought + text + two calls in one record, results
paired by call id (one failing), a message typed mid-turn, an auto title then a manual one, a
notification (not a prompt), a compaction whose replacement history must not be re-indexed,
`turn_result` completed and cancelled, a rewind and the replacement prompt, a branch checkpoint,
an unknown record type and a malformed line.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.tools import list_sessions, search_sessions
from moraine.mcp_server.tools import open as open_tool
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "qwen"
SID = "5f3a2b1c-4d6e-4f70-8a9b-0c1d2e3f4a5b"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    root = tmp_path_factory.mktemp("qwen")
    shutil.copytree(SAMPLES, root / "qwen")
    env = {"CODEX_HOME": str(root / "none"), "CLAUDE_CONFIG_DIR": str(root / "none"), "QWEN_HOME": str(root / "qwen")}
    config = load_config({"home": str(root / "state")}, env=env)
    assert [s.harness for s in config.sources] == ["codex", "claude-code", "qwen-code"]  # on: its root exists
    store = Store(config)
    ingest_once(store)
    return store


def _open(store: Store, id_: str) -> dict[str, Any]:
    return open_tool.run(store, {"id": id_}).structured["data"]


def _session(store: Store) -> dict[str, Any]:
    data = list_sessions.run(store, {"start_datetime": "2026-03-01T00:00:00Z",
                                     "end_datetime": "2026-04-01T00:00:00Z"}).structured["data"]
    [session] = [s["session"] for s in data["sessions"]]
    return session


def test_session_title_cwd_branch_and_resume(store: Store) -> None:
    session = _session(store)
    assert session["source"] == "qwen-code" and session["native_id"] == SID
    assert session["title"] == "Heron and pelican work"  # the manual title wins over the auto one
    assert (session["cwd"], session["git_branch"]) == ("/work/qwen-demo", "main")
    assert session["resume_command"] == f"cd /work/qwen-demo && qwen --resume {SID}"
    assert session["turn_count"] == 3 and session["mode"] == "tool_calling"


def test_turns_and_their_events(store: Store) -> None:
    turns = _open(store, _session(store)["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == [
        "fix the heron exporter flush in @src/heron.py",  # what the person typed, not the expansion
        "Now port the albatross importer.",
        "Instead, document the pelican parser.",
    ]
    assert [t["completed"] for t in turns] == [True, True, True]  # completed; cancelled; branch checkpoint
    assert turns[0]["final_response"]["text"] == "Fixed the heron flush: it now waits for the batch."
    first = [e["type"] for e in _open(store, turns[0]["id"])["events"]]
    assert first == ["user_input", "reasoning", "assistant_response", "tool_call", "tool_call", "tool_response",
                     "tool_response", "user_input", "assistant_response", "system", "runtime", "system"]
    second = [e["type"] for e in _open(store, turns[1]["id"])["events"]]
    assert second == ["user_input", "assistant_response", "compaction", "runtime", "system"]
    third = [e["type"] for e in _open(store, turns[2]["id"])["events"]]
    assert third == ["user_input", "assistant_response", "runtime", "system", "unknown"]


def test_tool_results_pair_and_carry_exit_codes(store: Store) -> None:
    turn = _open(store, _session(store)["id"])["turns"][0]
    outputs = [_open(store, e["id"])["content"] for e in _open(store, turn["id"])["events"]
               if e["type"] == "tool_response"]
    assert [(c["tool_name"], c.get("exit_code")) for c in outputs] == [("read_file", None), ("run_shell_command", 2)]


def test_replayed_history_and_notifications_start_nothing(store: Store) -> None:
    found = search_sessions.run(store, {"query": "ZEBRA"}).structured["data"]["results"]
    assert found == []  # a compaction's replacement history is not indexed again
    assert len(_open(store, _session(store)["id"])["turns"]) == 3  # the notification opened no turn


def test_malformed_line_is_quarantined(store: Store) -> None:
    assert [(i.line, i.reason.split(":")[0]) for i in store.stats.issues] == [(20, "json_parse_error")]
