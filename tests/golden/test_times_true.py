"""Every time shown is true or absent: no session, turn or event of any harness's samples is
dated before 2000 (a record without a timestamp used to count as 1970-01-01).

Each harness's samples are indexed through its default root (its variable pointing at a copy),
then every session is opened turn by turn and event by event through the tool functions.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from moraine.config import load_config
from moraine.ingest.normalize import backfill_times
from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.tools import list_sessions
from moraine.mcp_server.tools import open as open_tool
from moraine.model import WIRE_TS
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples"
FLOOR = "2000-01-01T00:00:00.000Z"
# data_samples folder → (the harness's root variable, its name)
HARNESSES = {
    "codex": ("CODEX_HOME", "codex"),
    "claude": ("CLAUDE_CONFIG_DIR", "claude-code"),
    "pi": ("PI_CODING_AGENT_DIR", "pi"),
    "qwen": ("QWEN_HOME", "qwen-code"),
    "kimi": ("KIMI_SHARE_DIR", "kimi-cli"),
    "cursor": ("CURSOR_HOME", "cursor"),
    "copilot": ("COPILOT_HOME", "copilot-cli"),
    "gemini": ("GEMINI_CLI_HOME", "gemini-cli"),
    "opencode": ("XDG_DATA_HOME", "opencode"),
}


def _state(root: Path, folder: str) -> Store:
    variable, _ = HARNESSES[folder]
    copy = root / "logs"
    if folder == "opencode":  # XDG_DATA_HOME/opencode is its root
        shutil.copytree(SAMPLES / folder, copy / "opencode")
    else:
        shutil.copytree(SAMPLES / folder, copy)
    env = {"HOME": str(root / "home"), "CODEX_HOME": str(root / "none"), "CLAUDE_CONFIG_DIR": str(root / "none"),
           variable: str(copy)}
    store = Store(load_config({"home": str(root / "state")}, env=env))
    ingest_once(store)
    return store


def _times(store: Store) -> list[tuple[str, str | None]]:
    """(where, time) of every session, turn and event the tools show."""
    found: list[tuple[str, str | None]] = []
    for session in _sessions(store):
        found += [(session["id"], session["started_at"]), (session["id"], session["updated_at"])]
        for turn_id in _turn_ids(store, session["id"]):
            turn = _open(store, turn_id)
            found += [(turn_id, turn["turn"]["started_at"]), (turn_id, turn["turn"]["updated_at"])]
            found += [(e["id"], e["timestamp"]) for e in _events(store, turn_id, turn)]
    return found


def _sessions(store: Store) -> list[dict[str, Any]]:
    args: dict[str, Any] = {"start_datetime": "1970-01-01T00:00:00Z", "end_datetime": "9999-01-01T00:00:00Z",
                            "limit": 50}
    sessions: list[dict[str, Any]] = []
    while True:
        reply = list_sessions.run(store, args).structured
        assert "error" not in reply, reply
        sessions += [row["session"] for row in reply["data"]["sessions"]]
        if not reply["data"].get("next_cursor"):
            return sessions
        args["cursor"] = reply["data"]["next_cursor"]


def _open(store: Store, id_: str, cursor: str | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"id": id_, **({"cursor": cursor} if cursor else {})}
    reply = open_tool.run(store, args).structured
    assert "error" not in reply, reply
    data: dict[str, Any] = reply["data"]
    return data


def _turn_ids(store: Store, session_id: str) -> list[str]:
    ids: list[str] = []
    cursor = None
    while True:
        page = _open(store, session_id, cursor)
        ids += [t["id"] for t in page["turns"]]
        cursor = page.get("next_cursor")
        if not cursor:
            return ids


def _events(store: Store, turn_id: str, first: dict[str, Any]) -> list[dict[str, Any]]:
    page, events = first, []
    while True:
        events += page["events"]
        if not page.get("next_cursor"):
            return events
        page = _open(store, turn_id, page["next_cursor"])


@pytest.mark.parametrize("folder", sorted(HARNESSES))
def test_no_time_before_2000(tmp_path: Path, folder: str) -> None:
    store = _state(tmp_path, folder)
    times = _times(store)
    assert len(times) > 10, f"{folder}: the samples were not indexed"
    early = [(where, t) for where, t in times if t is not None and t < FLOOR]
    assert not early, f"{folder}: {len(early)} times before 2000, e.g. {early[:5]}"


def test_untimed_rows_take_the_next_time() -> None:
    """Rows before the first timed one take its time; rows after a timed one keep theirs; a
    batch with no timed row leaves them at 0 (absent)."""
    rows = [[None] * 20 for _ in range(5)]
    for row, ts in zip(rows, [0, 0, 1_700_000_000_000, 0, 1_700_000_001_000], strict=True):
        row[WIRE_TS] = ts
    backfill_times(rows)
    assert [r[WIRE_TS] for r in rows] == [1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_000, 0,
                                          1_700_000_001_000]
    untimed = [[None] * 20 for _ in range(2)]
    for row in untimed:
        row[WIRE_TS] = 0
    backfill_times(untimed)
    assert [r[WIRE_TS] for r in untimed] == [0, 0]
