"""Golden test of the OpenCode adapter over data_samples/opencode (the v1.18.3 SQLite store in WAL
mode, and the legacy storage/ JSON tree; data_samples/opencode/README.md tells each session's
story): prompts vs synthetic/file/system-reminder context, tool parts with bash exit codes, a
running part left by an abort, compactions, a task child session, placeholder vs real titles,
CJK, and a session in both the database and the JSON tree (read once, from the database)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from _harness_samples import SAMPLES, indexed_from_source, open_data, sessions

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

NORMAL, ATTACH, COMPACT = "ses_31eacf3f9ffe7VmHFGM0uP5RHo", "ses_3187e5600ffecyhOzV0IvCwr8I", \
    "ses_309e4ab12ffejVnfOJ2W0Lg42P"
PARENT, CHILD, ABORT = "ses_3038bca85ffeJbbJ0wmQ5hBYqb", "ses_3038bbbadffe6I1mMIpwz1OuwE", \
    "ses_2fa23ce1bffe29j3HHGZd9hsBk"
PLACEHOLDER, CJK = "ses_2f5cf1be3ffeYUClAZDfizB18r", "ses_2e535ce9effeFhRI0g5B2ql2LC"
IMPORTED, LEGACY = "ses_32c99f8f3ffeTkOCPdOV0OXPvn", "ses_3219eb1f9ffeHPZwiJ2zqwXebM"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    root = tmp_path_factory.mktemp("opencode")
    shutil.copytree(SAMPLES / "opencode", root / "xdg" / "opencode")
    env = {"CODEX_HOME": str(root / "none"), "CLAUDE_CONFIG_DIR": str(root / "none"),
           "XDG_DATA_HOME": str(root / "xdg")}
    config = load_config({"home": str(root / "state")}, env=env)
    assert [s.harness for s in config.sources if s.in_use()] == ["codex", "claude-code", "opencode"]  # root exists
    store = Store(config)
    ingest_once(store)
    return store


def _turns(store: Store, sid: str) -> list[dict[str, Any]]:
    return open_data(store, sessions(store)[sid]["id"])["turns"]


def _events(store: Store, turn: dict[str, Any]) -> list[dict[str, Any]]:
    return open_data(store, turn["id"])["events"]


def test_sessions(store: Store) -> None:
    by_id = sessions(store)
    assert set(by_id) == {NORMAL, ATTACH, COMPACT, PARENT, CHILD, ABORT, PLACEHOLDER, CJK, IMPORTED, LEGACY}
    assert {s["source"] for s in by_id.values()} == {"opencode"}
    normal = by_id[NORMAL]
    assert normal["title"] == "Fix flaky retry test in the HTTP client"
    assert normal["cwd"] == "/home/dev/src/gull-api"
    assert normal["resume_command"] == f"cd /home/dev/src/gull-api && opencode --session {NORMAL}"
    assert by_id[CHILD]["parent_session_id"] == by_id[PARENT]["id"] and by_id[CHILD]["resume_command"] is None
    assert by_id[CJK]["title"] == "修复日语环境下的日期格式 📅"
    assert by_id[PLACEHOLDER]["title"].startswith("quick one: what's the difference")  # not "New session - …"
    assert not store.stats.issues and not store.file_issues


def test_turns_types_and_exit_codes(store: Store) -> None:
    turns = _turns(store, NORMAL)
    assert len(turns) == 2 and all(t["completed"] for t in turns)
    first = _events(store, turns[0])
    assert [e["type"] for e in first] == [
        "system", "user_input", "reasoning", "assistant_response", "tool_call", "tool_response", "reasoning",
        "tool_call", "tool_response", "tool_call", "tool_response", "tool_call", "tool_response",
        "assistant_response", "runtime"]
    codes = [open_data(store, e["id"])["content"]["exit_code"] for e in first if e["type"] == "tool_response"]
    assert 2 in codes and 0 in codes
    assert turns[0]["final_response"]["event_id"] == first[-2]["id"]  # the last answer, not the end marker


def test_context_is_never_a_prompt(store: Store) -> None:
    [turn] = _turns(store, ATTACH)
    types = [e["type"] for e in _events(store, turn)]
    assert types[:5] == ["system", "user_input", "system", "system", "reasoning"]  # synthetic line; file part
    opened = [open_data(store, e["id"])["content"]["text"] for e in _events(store, turn)]
    assert not any("iVBOR" in text or "base64," in text for text in opened)  # the image is never indexed
    [placeholder] = _turns(store, PLACEHOLDER)  # an unflagged <system-reminder> before the prompt
    assert [e["type"] for e in _events(store, placeholder)][:3] == ["system", "system", "user_input"]
    assert not placeholder["user_input"]["text"].startswith("<system-reminder>")


def test_compaction_and_abort(store: Store) -> None:
    turns = _turns(store, COMPACT)
    assert len(turns) == 2  # the synthetic "Continue…" after an auto compaction opens no turn
    assert sum(e["type"] == "compaction" for t in turns for e in _events(store, t)) == 4
    aborted, after = _turns(store, ABORT)
    events = _events(store, aborted)
    assert events[-1]["type"] == "runtime"
    assert "MessageAbortedError" in open_data(store, events[-1]["id"])["content"]["text"]
    assert [e["type"] for e in events].count("tool_response") == 0  # the running bash part has no result
    assert aborted["completed"] and after["completed"]


def test_database_wins_over_the_json_tree(store: Store) -> None:
    assert len(_turns(store, IMPORTED)) == 2  # the database's copy (the JSON tree holds 1 turn)
    [legacy] = _turns(store, LEGACY)  # only in the JSON tree
    failed = [e for e in _events(store, legacy) if e["type"] == "tool_response"]
    assert 1 in [open_data(store, e["id"])["content"]["exit_code"] for e in failed]
    files = {Path(p).name for p in store.checkpoints}
    assert files == {"opencode.db", f"{IMPORTED}.json", f"{LEGACY}.json"}


def test_default_root_and_a_source_at_another_root(tmp_path: Path) -> None:
    """On by default where ~/.local/share/opencode (or $XDG_DATA_HOME/opencode) exists, quietly
    absent otherwise; `[[sources]]` reads an OpenCode data folder anywhere."""
    base = {"CODEX_HOME": str(tmp_path / "none"), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    absent = load_config({"home": str(tmp_path / "s")}, env={**base, "HOME": str(tmp_path)})
    assert [s.harness for s in absent.sources if s.in_use()] == ["codex", "claude-code"]
    (tmp_path / ".local" / "share" / "opencode").mkdir(parents=True)
    present = load_config({"home": str(tmp_path / "s")}, env={**base, "HOME": str(tmp_path)})
    assert [(s.harness, str(s.root)) for s in present.sources if s.in_use()][-1] == \
        ("opencode", str(tmp_path / ".local/share/opencode"))
    elsewhere = tmp_path / "backup" / "opencode-data"
    shutil.copytree(SAMPLES / "opencode", elsewhere)
    store = indexed_from_source(tmp_path / "s", base, "old-laptop", "opencode", elsewhere)
    assert len(sessions(store)) == 10
