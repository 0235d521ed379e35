"""Golden test of the Gemini CLI adapter over data_samples/gemini (hand-made JSONL chats of
v0.39+): a header, injected `<session_context>`, a prompt whose `displayContent` differs from
the expanded content, a message appended again with its tool results (one set of events, not
two), tool responses recorded as a user message (not a prompt), a cancelled request, a
`/compress` checkpoint (`$set.messages`), an API error, a `$set` summary as title, an unknown
type, a torn line, and a subagent chat (docs/harnesses/gemini-cli.md). And two
legacy single-document chats (`session-*.json`, v0.4-v0.38): one in a project folder with its
`.project_root`, one in an older hash folder (its cwd from `projects.json`) holding CJK text and an entry that is not
a message (quarantined with its place in the document); `logs.json` beside it is no chat.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _harness_samples import indexed, open_data, sessions

from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "gemini"
SID, SUB = "abcd1234-5678-4e9f-8a0b-c1d2e3f4a5b6", "ffee0011-2233-4455-8667-78899aabbccd"
LEGACY, OLD = "7c0ffee1-4a2b-4c3d-9e8f-0a1b2c3d4e5f", "0ld5e551-0000-4000-8000-00000000beef"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return indexed(tmp_path_factory, "gemini", "GEMINI_CLI_HOME", "gemini-cli")




def test_sessions(store: Store) -> None:
    by_id = sessions(store)
    assert set(by_id) == {SID, SUB, LEGACY, OLD}
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
    assert sorted((Path(i.file).name, i.line, i.reason.split(":")[0]) for i in store.stats.issues) == [
        ("session-2026-03-03T14-00-0ld5e551.json", 4, "not_an_object"),  # the third entry of `messages`
        ("session-2026-03-17T10-00-abcd1234.jsonl", 18, "json_parse_error")]


def test_legacy_documents(store: Store) -> None:
    by_id = sessions(store)
    legacy, old = by_id[LEGACY], by_id[OLD]
    assert legacy["title"] == "Rename the wind module" and legacy["cwd"] == "/work/gull-repo"
    assert legacy["resume_command"] == f"cd /work/gull-repo && gemini --resume {LEGACY}"
    # a pre-v0.29 hash folder: its cwd is the registry's path whose sha256 names the folder
    assert old["cwd"] == "/work/old-shore" and old["title"] == "what does 東京都 mean in the fixture names?"
    turns = open_data(store, legacy["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == ["rename wind.py to breeze.py and fix the imports",
                                                       "yes, run them"]
    assert [t["completed"] for t in turns] == [True, True]  # the next prompt; a cancelled request
    first, second = (open_data(store, t["id"])["events"] for t in turns)
    assert [e["type"] for e in first] == ["system", "system", "user_input", "reasoning", "assistant_response",
                                          "tool_call", "tool_response", "assistant_response"]
    assert [e["type"] for e in second] == ["user_input", "tool_call", "tool_response", "runtime"]
    failed = open_data(store, second[2]["id"])["content"]
    assert (failed["tool_name"], failed["exit_code"]) == ("run_shell_command", 1)
    assert not store.file_issues  # logs.json is not read as a chat
