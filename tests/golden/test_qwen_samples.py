"""Golden test of the Qwen Code adapter over data_samples/qwen (hand-made JSONL ChatRecords):
sessions, turns, event types, completion, titles, models, exit codes, resume, quarantine.

The samples hold the edge cases of docs/harnesses/qwen-code.md: a prompt whose
`displayText` differs from the expanded parts, thought + text + two calls in one record, results
paired by call id (one failing), a message typed mid-turn, an auto title then a manual one, a
notification (not a prompt), a compaction whose replacement history must not be re-indexed,
`turn_result` completed and cancelled, a rewind and the replacement prompt, a branch checkpoint,
an unknown record type and a malformed line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _harness_samples import indexed, open_data, sessions

from moraine.mcp_server.tools import search_sessions
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "qwen"
SID = "5f3a2b1c-4d6e-4f70-8a9b-0c1d2e3f4a5b"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return indexed(tmp_path_factory, "qwen", "QWEN_HOME", "qwen-code")



def _session(store: Store) -> dict[str, Any]:
    [session] = sessions(store).values()
    return session


def test_session_title_cwd_branch_and_resume(store: Store) -> None:
    session = _session(store)
    assert session["source"] == "qwen-code" and session["native_id"] == SID
    assert session["title"] == "Heron and pelican work"  # the manual title wins over the auto one
    assert (session["cwd"], session["git_branch"]) == ("/work/qwen-demo", "main")
    assert session["resume_command"] == f"cd /work/qwen-demo && qwen --resume {SID}"
    assert session["turn_count"] == 3 and session["mode"] == "tool_calling"


def test_turns_and_their_events(store: Store) -> None:
    turns = open_data(store, _session(store)["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == [
        "fix the heron exporter flush in @src/heron.py",  # what the person typed, not the expansion
        "Now port the albatross importer.",
        "Instead, document the pelican parser.",
    ]
    assert [t["completed"] for t in turns] == [True, True, True]  # completed; cancelled; branch checkpoint
    assert turns[0]["final_response"]["text"] == "Fixed the heron flush: it now waits for the batch."
    first = [e["type"] for e in open_data(store, turns[0]["id"])["events"]]
    assert first == ["user_input", "reasoning", "assistant_response", "tool_call", "tool_call", "tool_response",
                     "tool_response", "user_input", "assistant_response", "system", "runtime", "system"]
    second = [e["type"] for e in open_data(store, turns[1]["id"])["events"]]
    assert second == ["user_input", "assistant_response", "compaction", "runtime", "system"]
    third = [e["type"] for e in open_data(store, turns[2]["id"])["events"]]
    assert third == ["user_input", "assistant_response", "runtime", "system", "unknown"]


def test_tool_results_pair_and_carry_exit_codes(store: Store) -> None:
    turn = open_data(store, _session(store)["id"])["turns"][0]
    outputs = [open_data(store, e["id"])["content"] for e in open_data(store, turn["id"])["events"]
               if e["type"] == "tool_response"]
    assert [(c["tool_name"], c.get("exit_code")) for c in outputs] == [("read_file", None), ("run_shell_command", 2)]


def test_replayed_history_and_notifications_start_nothing(store: Store) -> None:
    found = search_sessions.run(store, {"query": "ZEBRA"}).structured["data"]["results"]
    assert found == []  # a compaction's replacement history is not indexed again
    assert len(open_data(store, _session(store)["id"])["turns"]) == 3  # the notification opened no turn


def test_malformed_line_is_quarantined(store: Store) -> None:
    assert [(i.line, i.reason.split(":")[0]) for i in store.stats.issues] == [(20, "json_parse_error")]
