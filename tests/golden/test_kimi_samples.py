"""Golden test of the Kimi CLI adapter over data_samples/kimi (hand-made wire protocol 1.10):
a session folder named by the md5 of its cwd (mapped back through kimi.json), a subagent's own
wire as a child session, turns, event types, completion, exit codes, resume, quarantine.

Edge cases (docs/harnesses/kimi-cli.md): think and text parts, a failing
Shell call ("Command failed with exit code: 2."), a message typed mid-turn (`SteerInput`), a
subagent whose mirrored `SubagentEvent` must not be indexed twice, a synthetic
`<system-reminder>` prompt, a prompt with an image part, an interrupted step, a compaction, a
live last turn (no `TurnEnd`), an unknown wire type and a line that is not JSON.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _harness_samples import indexed, open_data, sessions

from moraine.mcp_server.tools import search_sessions
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "kimi"
SID = "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a99"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return indexed(tmp_path_factory, "kimi", "KIMI_SHARE_DIR", "kimi-cli")




def test_session_and_subagent(store: Store) -> None:
    by_id = sessions(store)
    assert set(by_id) == {SID, "a1b2c3d4"}
    main, child = by_id[SID], by_id["a1b2c3d4"]
    assert main["cwd"] == child["cwd"] == "/work/kimi-demo"  # from kimi.json: md5(path) names the folder
    assert main["resume_command"] == f"cd /work/kimi-demo && kimi -r {SID}"
    assert child["parent_session_id"] == main["id"] and child["resume_command"] is None
    assert main["title"] == "Why does the osprey cache miss on every request?"
    assert child["title"] == "Audit every caller of osprey.cache.get"


def test_turns_completion_and_events(store: Store) -> None:
    turns = open_data(store, sessions(store)[SID]["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == [
        "Why does the osprey cache miss on every request?",
        "Now add a test for the heron path [image]",  # the summary folds white space
        "Continue with the heron test",
    ]
    assert [t["completed"] for t in turns] == [True, True, False]  # TurnEnd; StepInterrupted; live
    first = [e["type"] for e in open_data(store, turns[0]["id"])["events"]]
    assert first == ["user_input", "runtime", "reasoning", "assistant_response", "tool_call",
                     "tool_response", "tool_call", "tool_response", "user_input", "tool_call", "tool_response",
                     "assistant_response", "runtime", "runtime",
                     "system", "runtime"]  # the synthetic <system-reminder> prompt opens no turn
    assert [e["type"] for e in open_data(store, turns[1]["id"])["events"]] == [
        "user_input", "runtime", "assistant_response", "runtime", "compaction"]
    assert [e["type"] for e in open_data(store, turns[2]["id"])["events"]] == ["user_input", "assistant_response",
                                                                           "unknown"]


def test_exit_codes_and_the_mirror_left_out(store: Store) -> None:
    turn = open_data(store, sessions(store)[SID]["id"])["turns"][0]
    outputs = [open_data(store, e["id"])["content"] for e in open_data(store, turn["id"])["events"]
               if e["type"] == "tool_response"]
    assert [(c["tool_name"], c.get("exit_code")) for c in outputs] == [("ReadFile", None), ("Shell", 2), ("Task", None)]
    assert search_sessions.run(store, {"query": "MIRROR-ONLY"}).structured["data"]["results"] == []


def test_a_line_that_is_not_json_is_quarantined(store: Store) -> None:
    assert [(Path(i.file).name, i.line) for i in store.stats.issues] == [("wire.jsonl", 28)]
