"""Golden test of the Kimi CLI adapter over data_samples/kimi (hand-made wire protocol 1.10):
a session folder named by the md5 of its cwd (mapped back through kimi.json), a subagent's own
wire as a child session, turns, event types, completion, exit codes, resume, quarantine.

Edge cases (docs/harnesses/cursor-opencode-kimi-pi.md §3): think and text parts, a failing
Shell call ("Command failed with exit code: 2."), a message typed mid-turn (`SteerInput`), a
subagent whose mirrored `SubagentEvent` must not be indexed twice, a synthetic
`<system-reminder>` prompt, a prompt with an image part, an interrupted step, a compaction, a
live last turn (no `TurnEnd`), an unknown wire type and a line that is not JSON.
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

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "kimi"
SID = "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a99"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    root = tmp_path_factory.mktemp("kimi")
    shutil.copytree(SAMPLES, root / "kimi")
    env = {"CODEX_HOME": str(root / "none"), "CLAUDE_CONFIG_DIR": str(root / "none"),
           "KIMI_SHARE_DIR": str(root / "kimi")}
    config = load_config({"home": str(root / "state")}, env=env)
    assert [s.harness for s in config.sources] == ["codex", "claude-code", "kimi-cli"]
    store = Store(config)
    ingest_once(store)
    return store


def _open(store: Store, id_: str) -> dict[str, Any]:
    return open_tool.run(store, {"id": id_}).structured["data"]


def _sessions(store: Store) -> dict[str, dict[str, Any]]:
    data = list_sessions.run(store, {"start_datetime": "2026-03-01T00:00:00Z",
                                     "end_datetime": "2026-04-01T00:00:00Z"}).structured["data"]
    return {s["session"]["native_id"]: s["session"] for s in data["sessions"]}


def test_session_and_subagent(store: Store) -> None:
    sessions = _sessions(store)
    assert set(sessions) == {SID, "a1b2c3d4"}
    main, child = sessions[SID], sessions["a1b2c3d4"]
    assert main["cwd"] == child["cwd"] == "/work/kimi-demo"  # from kimi.json: md5(path) names the folder
    assert main["resume_command"] == f"cd /work/kimi-demo && kimi -r {SID}"
    assert child["parent_session_id"] == main["id"] and child["resume_command"] is None
    assert main["title"] == "Why does the osprey cache miss on every request?"
    assert child["title"] == "Audit every caller of osprey.cache.get"


def test_turns_completion_and_events(store: Store) -> None:
    turns = _open(store, _sessions(store)[SID]["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == [
        "Why does the osprey cache miss on every request?",
        "Now add a test for the heron path [image]",  # the summary folds white space
        "Continue with the heron test",
    ]
    assert [t["completed"] for t in turns] == [True, True, False]  # TurnEnd; StepInterrupted; live
    first = [e["type"] for e in _open(store, turns[0]["id"])["events"]]
    assert first == ["user_input", "runtime", "reasoning", "assistant_response", "tool_call",
                     "tool_response", "tool_call", "tool_response", "user_input", "tool_call", "tool_response",
                     "assistant_response", "runtime", "runtime",
                     "system", "runtime"]  # the synthetic <system-reminder> prompt opens no turn
    assert [e["type"] for e in _open(store, turns[1]["id"])["events"]] == [
        "user_input", "runtime", "assistant_response", "runtime", "compaction"]
    assert [e["type"] for e in _open(store, turns[2]["id"])["events"]] == ["user_input", "assistant_response",
                                                                           "unknown"]


def test_exit_codes_and_the_mirror_left_out(store: Store) -> None:
    turn = _open(store, _sessions(store)[SID]["id"])["turns"][0]
    outputs = [_open(store, e["id"])["content"] for e in _open(store, turn["id"])["events"]
               if e["type"] == "tool_response"]
    assert [(c["tool_name"], c.get("exit_code")) for c in outputs] == [("ReadFile", None), ("Shell", 2), ("Task", None)]
    assert search_sessions.run(store, {"query": "MIRROR-ONLY"}).structured["data"]["results"] == []


def test_a_line_that_is_not_json_is_quarantined(store: Store) -> None:
    assert [(Path(i.file).name, i.line) for i in store.stats.issues] == [("wire.jsonl", 28)]
