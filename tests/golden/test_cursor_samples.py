"""Golden test of the Cursor adapter over data_samples/cursor (hand-made agent transcripts of the
2026 JSONL form): nested, subagent and flat layouts, `<user_query>` prompts beside injected
context, `turn_ended` lines, tool results paired by id, lines without times, a file under the
root that is not a transcript, and a malformed line (docs/harnesses/cursor.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _harness_samples import indexed, open_data, sessions

from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "cursor"
MAIN, CHILD, FLAT = ("6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d", "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     "1b2c3d4e-5f60-4718-9a0b-1c2d3e4f5a6b")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return indexed(tmp_path_factory, "cursor", "CURSOR_HOME", "cursor")



def _sessions(store: Store) -> dict[str, dict[str, Any]]:
    return sessions(store, ("1970-01-02T00:00:00Z", "2100-01-01T00:00:00Z"))  # lines hold no time: the file's


def test_layouts_subagent_and_resume(store: Store) -> None:
    sessions = _sessions(store)
    assert set(sessions) == {MAIN, CHILD, FLAT}  # other/notes.jsonl is not a transcript
    assert sessions[CHILD]["parent_session_id"] == sessions[MAIN]["id"] and sessions[CHILD]["resume_command"] is None
    assert sessions[MAIN]["resume_command"] == f"cursor-agent --resume {MAIN}"  # cwd unknown here: no cd
    assert sessions[MAIN]["title"] == "why does the kestrel build fail on CI?"
    assert sessions[FLAT]["title"] == "rename the grebe module"


def test_prompts_context_and_completion(store: Store) -> None:
    turns = open_data(store, _sessions(store)[MAIN]["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == ["why does the kestrel build fail on CI?",
                                                       "add the missing kestrel step to CI", "try again with the cache"]
    assert [t["completed"] for t in turns] == [True, True, False]  # turn_ended; turn_ended cancelled; live
    assert [e["type"] for e in open_data(store, turns[0]["id"])["events"]] == [
        "system",  # <user_info> beside the <user_query> of the same line
        "user_input", "assistant_response", "tool_call", "tool_response", "tool_call", "assistant_response",
        "runtime",
        "system",  # a line that is only <cursor_commands>: not a prompt
    ]
    result = next(e for e in open_data(store, turns[0]["id"])["events"] if e["type"] == "tool_response")
    content = open_data(store, result["id"])["content"]
    assert (content["tool_name"], content.get("is_error")) == ("Shell", True)


def test_flat_transcript_with_times_and_models(store: Store) -> None:
    session = _sessions(store)[FLAT]
    assert session["started_at"] == "2026-02-16T12:00:10.000Z"
    [turn] = open_data(store, session["id"])["turns"]
    events = open_data(store, turn["id"])["events"]
    assert [e["type"] for e in events] == ["user_input", "reasoning", "assistant_response"]
    assert turn["completed"] is False


def test_malformed_line_is_quarantined(store: Store) -> None:
    assert [(Path(i.file).name, i.line) for i in store.stats.issues] == [(f"{MAIN}.jsonl", 13)]
