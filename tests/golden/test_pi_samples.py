"""Golden test of the Pi adapter over data_samples/pi (hand-made, session format v3): sessions,
turns, event types, completion, titles, models, exit codes, resume commands, quarantine.

The samples hold what docs/harnesses/pi.md lists as Pi's edge cases: a
tool call and its result, a failing bash tool (`Command exited with code 1`), a `!cmd` the
person ran (`bashExecution`), injected context (`custom_message`), an aborted reply, a
compaction, a branch (a prompt whose parent is an earlier entry) with its branch summary, an
error stop, a `/name` title, a label, extension state, an entry type Pi may add later, a
malformed line, and a session forked from another (`parentSession`).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from _harness_samples import indexed, indexed_from_source, open_data, sessions

from moraine.config import load_config
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples" / "pi"
FIRST = "7d0c3f2a-91b4-4c6e-8f1a-2b3c4d5e6f70"
FORK = "8e1d4a3b-a2c5-4d7f-9a2b-3c4d5e6f7081"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return indexed(tmp_path_factory, "pi", "PI_CODING_AGENT_DIR", "pi")




def _events(store: Store, turn_id: str) -> list[dict[str, Any]]:
    return open_data(store, turn_id)["events"]


def test_sessions_titles_and_resume(store: Store) -> None:
    by_id = sessions(store)
    assert set(by_id) == {FIRST, FORK}
    first, fork = by_id[FIRST], by_id[FORK]
    assert first["source"] == fork["source"] == "pi"
    assert first["title"] == "Pelican parser flake"  # the /name title (session_info)
    assert fork["title"] == "Forked: try the heron exporter"  # no name: the first prompt
    assert first["cwd"] == fork["cwd"] == "/work/pi-demo"
    assert first["resume_command"] == f"cd /work/pi-demo && pi --session {FIRST}"
    assert first["mode"] == "tool_calling" and fork["mode"] == "chat"
    assert first["turn_count"] == 3 and fork["turn_count"] == 1


def test_turns_start_at_prompts_and_end_as_pi_says(store: Store) -> None:
    turns = open_data(store, sessions(store)[FIRST]["id"])["turns"]
    assert [t["user_input"]["text"] for t in turns] == [
        "The pelican parser test is flaky; find out why.",
        "Now also fix the albatross importer.",
        "Branch instead: write a changelog entry for the pelican fix.",
    ]
    assert [t["completed"] for t in turns] == [True, True, True]  # stop; aborted; error
    assert turns[0]["final_response"]["text"].startswith("The pelican parser depends on dict ordering")
    assert turns[0]["tools_called"] == ["read", "bash"]


def test_event_types_models_and_exit_codes(store: Store) -> None:
    turns = open_data(store, sessions(store)[FIRST]["id"])["turns"]
    first = _events(store, turns[0]["id"])
    assert [e["type"] for e in first] == [
        "system", "runtime", "runtime",  # header (cwd), model change, thinking level
        "user_input", "reasoning", "assistant_response", "tool_call", "tool_response", "tool_call",
        "tool_response", "assistant_response",
        "tool_call", "tool_response",  # `!git diff --stat`, typed by the person: not a prompt
        "system",  # injected context (custom_message)
    ]
    assistant = [e for e in first if e["type"] == "assistant_response"]
    assert {e.get("model") for e in assistant} == {"claude-sonnet-4-5"}
    outputs = [open_data(store, e["id"])["content"] for e in first if e["type"] == "tool_response"]
    assert [(c["tool_name"], c.get("exit_code")) for c in outputs] == [("read", None), ("bash", 1), ("bash", 0)]
    assert outputs[1]["text"].endswith("Command exited with code 1")
    second = _events(store, turns[1]["id"])
    assert [e["type"] for e in second] == ["user_input", "assistant_response", "runtime", "compaction"]
    third = _events(store, turns[2]["id"])
    assert [e["type"] for e in third] == ["user_input", "compaction", "assistant_response", "runtime", "system",
                                          "runtime", "runtime", "unknown"]


def test_malformed_line_is_quarantined_with_its_coordinates(store: Store) -> None:
    issues = [i for i in store.stats.issues if i.file.endswith(f"_{FIRST}.jsonl")]
    assert [(i.line, i.reason.split(":")[0]) for i in issues] == [(22, "json_parse_error")]


def test_pi_is_a_default_source_only_where_its_root_exists(tmp_path: Path) -> None:
    base = {"CODEX_HOME": str(tmp_path / "c"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cl")}
    absent = load_config({"home": str(tmp_path / "s")}, env={**base, "HOME": str(tmp_path)})
    assert [s.harness for s in absent.sources if s.in_use()] == ["codex", "claude-code"]  # quietly left out
    pi = next(s for s in absent.sources if s.harness == "pi")  # but configured, to be watched for
    assert pi.optional and str(pi.root) == str(tmp_path / ".pi/agent/sessions")
    (tmp_path / ".pi" / "agent" / "sessions").mkdir(parents=True)
    present = load_config({"home": str(tmp_path / "s")}, env={**base, "HOME": str(tmp_path)})
    assert [s.harness for s in present.sources if s.in_use()] == ["codex", "claude-code", "pi"]
    elsewhere = tmp_path / "other-pi"
    (elsewhere / "--w--").mkdir(parents=True)
    shutil.copy(next((SAMPLES / "sessions" / "--work-pi-demo--").glob(f"*{FORK}.jsonl")), elsewhere / "--w--")
    store = indexed_from_source(tmp_path / "s", base, "laptop-pi", "pi", elsewhere)
    assert set(sessions(store)) == {FORK}
