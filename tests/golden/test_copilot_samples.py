"""Golden test of the Copilot CLI adapter over data_samples/copilot (hand-made session-state
events): the edge cases of docs/harnesses/copilot-cli.md — a prompt with its
model-wrapped form, a tool named in `toolRequests` and started again (one call), a failing
shell call with a terminal exit code, model-call bounds inside a turn, a steering message, an
autopilot continuation, a sub-agent's messages, `abort`, a compaction summary, a shutdown and
a resume, Moraine's own tool, `session.error`, an unknown event and a cut-off last line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _harness_samples import indexed, open_data, sessions

from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "copilot"
SID = "c0ffee00-1234-4abc-8def-0123456789ab"
SHUTDOWN = "5hu7d0wn-0000-4abc-8def-0123456789ab"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return indexed(tmp_path_factory, "copilot", "COPILOT_HOME", "copilot-cli")



def _session(store: Store) -> dict[str, Any]:
    return sessions(store)[SID]


def test_a_shutdown_ends_the_open_turn(store: Store) -> None:
    """Interactive sessions write no turn end: a routine shutdown finishes the open turn at its
    last answer, an error shutdown aborts it; a shutdown after a finished turn changes nothing."""
    turns = open_data(store, sessions(store)[SHUTDOWN]["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == ["what does the osprey job do?", "run it now"]
    assert [t["completed"] for t in turns] == [True, True]
    assert turns[0]["final_response"]["text"] == "It rebuilds the osprey index every hour."
    assert open_data(store, turns[1]["id"])["events"][-1]["type"] == "runtime"


def test_session(store: Store) -> None:
    session = _session(store)
    assert (session["source"], session["native_id"]) == ("copilot-cli", SID)
    assert (session["cwd"], session["git_branch"]) == ("/work/copilot-demo", "main")
    assert session["resume_command"] == f"copilot --resume {SID}"
    assert session["title"] == "make the plover report run nightly"
    assert session["mode"] == "mcp_internal"  # it called Moraine's own search


def test_turns_and_events(store: Store) -> None:
    turns = open_data(store, _session(store)["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == ["make the plover report run nightly",
                                                       "now add a plover dashboard", "finish the plover dashboard"]
    assert [t["completed"] for t in turns] == [True, True, True]  # task_complete; abort; session.error
    assert [e["type"] for e in open_data(store, turns[0]["id"])["events"]] == [
        "system", "user_input", "runtime", "reasoning", "assistant_response",
        "tool_call", "tool_response",  # toolRequests + execution_start: one call
        "runtime",
        "user_input",  # steering: typed while the agent worked, inside the turn
        "system",  # an autopilot continuation is not the person's
        "assistant_response", "runtime"]
    assert [e["type"] for e in open_data(store, turns[1]["id"])["events"]] == [
        "user_input", "system", "system", "assistant_response", "runtime", "compaction", "runtime", "system"]
    assert turns[0]["final_response"]["text"] == "Added a nightly schedule to ci/plover.yml."
    shell = next(e for e in open_data(store, turns[0]["id"])["events"] if e["type"] == "tool_response")
    content = open_data(store, shell["id"])["content"]
    assert (content["tool_name"], content["exit_code"], content.get("is_error")) == ("bash", 1, True)


def test_cut_off_line_is_quarantined(store: Store) -> None:
    assert [(Path(i.file).name, i.line) for i in store.stats.issues] == [("events.jsonl", 26)]
