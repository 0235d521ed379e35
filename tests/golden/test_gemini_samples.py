"""Golden test of the Gemini CLI adapter over data_samples/gemini (hand-made JSONL chats of
v0.39+): a header, injected `<session_context>`, a prompt whose `displayContent` differs from
the expanded content, a message appended again with its tool results (one set of events, not
two), tool responses recorded as a user message (not a prompt), a cancelled request, a
`/compress` checkpoint (`$set.messages`), an API error, a `$set` summary as title, an unknown
type, a torn line, and a subagent chat (docs/harnesses/gemini-qwen-copilot.md §1).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _harness_samples import indexed, open_data, sessions

from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "gemini"
SID, SUB = "abcd1234-5678-4e9f-8a0b-c1d2e3f4a5b6", "ffee0011-2233-4455-8667-78899aabbccd"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return indexed(tmp_path_factory, "gemini", "GEMINI_CLI_HOME", "gemini-cli")




def test_sessions(store: Store) -> None:
    by_id = sessions(store)
    assert set(by_id) == {SID, SUB}
    main, sub = by_id[SID], by_id[SUB]
    assert main["title"] == "Fix the flaky gull test"  # the generated summary
    assert main["cwd"] == sub["cwd"] == "/work/gull-repo"  # from the project folder's .project_root
    assert main["resume_command"] == f"cd /work/gull-repo && gemini --resume {SID}"
    assert sub["parent_session_id"] == main["id"] and sub["resume_command"] is None


def test_turns_and_events(store: Store) -> None:
    turns = open_data(store, sessions(store)[SID]["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == ["Why does the gull test fail? @gull.py",
                                                       "mock wind() and rerun", "try the heron model instead"]
    assert [t["completed"] for t in turns] == [True, True, True]  # next prompt; cancelled; API error
    assert [e["type"] for e in open_data(store, turns[0]["id"])["events"]] == [
        "system", "system",  # header; <session_context>
        "user_input", "reasoning", "assistant_response",
        "tool_call", "tool_response", "tool_call", "tool_response",  # the message appended twice: once here
        "assistant_response"]
    assert [e["type"] for e in open_data(store, turns[1]["id"])["events"]] == [
        "user_input", "assistant_response", "runtime",
        "system",  # /compress typed as a command: not a prompt
        "compaction"]
    shell = [e for e in open_data(store, turns[0]["id"])["events"] if e["type"] == "tool_response"][1]
    content = open_data(store, shell["id"])["content"]
    assert (content["tool_name"], content["exit_code"]) == ("run_shell_command", 1)


def test_torn_line_is_quarantined(store: Store) -> None:
    assert [(Path(i.file).name, i.line) for i in store.stats.issues] == [
        ("session-2026-03-17T10-00-abcd1234.jsonl", 18)]
