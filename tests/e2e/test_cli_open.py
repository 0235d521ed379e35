"""`moraine open`: session, turn and event IDs taken from a search; invalid and unknown IDs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_harness import Indexed, Result

SCHEMA = "moraine.mcp.open.v1"


@pytest.fixture(scope="module")
def hit(migration_search: dict[str, Any]) -> dict[str, Any]:
    return migration_search["data"]["results"][0]


@pytest.fixture(scope="module")
def opened(indexed: Indexed, hit: dict[str, Any]) -> dict[str, Result]:
    """Keys: "session", "session-json", "turn", "turn-json", "event", "event-json"."""
    ids = hit["open"]
    jobs: dict[str, list[str]] = {}
    for kind in ("session", "turn", "event"):
        jobs[kind] = ["open", ids[f"{kind}_id"]]
        jobs[f"{kind}-json"] = ["open", ids[f"{kind}_id"], "--json"]
    return dict(zip(jobs, indexed.ws.run_many(jobs.values()), strict=True))


def _ok_json(result: Result, kind: str) -> dict[str, Any]:
    assert result.returncode == 0, result
    env = result.json()
    assert env["schema_version"] == SCHEMA, env
    assert env["tool"] == "open"
    assert "error" not in env
    assert env["data"]["kind"] == kind
    return env["data"]


def test_open_session(opened: dict[str, Result], hit: dict[str, Any]) -> None:
    sid, tid = hit["open"]["session_id"], hit["open"]["turn_id"]
    text = opened["session"]
    assert text.returncode == 0, text
    assert text.stdout.startswith(f"Session {sid} — {hit['session']['title']}")
    assert tid in text.stdout, "the session view lists its turns' IDs"
    data = _ok_json(opened["session-json"], "session")
    assert data["session"]["id"] == sid
    assert data["session"]["title"] == hit["session"]["title"]
    assert data["session"]["started_at"] == hit["session"]["started_at"]
    turn_ids = [t["id"] for t in data["turns"]]
    assert tid in turn_ids
    assert [t["ordinal"] for t in data["turns"]] == list(range(1, len(turn_ids) + 1))
    assert data["session"]["turn_count"] == len(turn_ids)


def test_open_turn(opened: dict[str, Result], hit: dict[str, Any]) -> None:
    sid, tid, eid = hit["open"]["session_id"], hit["open"]["turn_id"], hit["open"]["event_id"]
    text = opened["turn"]
    assert text.returncode == 0, text
    assert text.stdout.startswith(f"Turn {hit['turn']['ordinal']} of {sid}")
    assert eid in text.stdout, "the turn view lists its events' IDs"
    data = _ok_json(opened["turn-json"], "turn")
    assert data["turn"]["id"] == tid
    assert data["turn"]["session_id"] == sid
    assert data["session"]["id"] == sid
    assert eid in [e["id"] for e in data["events"]]
    assert data["turn"]["event_count"] == len(data["events"]) == hit["turn"]["event_count"]


def test_open_event(indexed: Indexed, opened: dict[str, Result], hit: dict[str, Any]) -> None:
    sid, tid, eid = hit["open"]["session_id"], hit["open"]["turn_id"], hit["open"]["event_id"]
    text = opened["event"]
    assert text.returncode == 0, text
    assert text.stdout.startswith(f"Event {eid} [{hit['event']['type']}]")
    assert tid in text.stdout.splitlines()[0]
    data = _ok_json(opened["event-json"], "event")
    event = data["event"]
    assert (event["id"], event["session_id"], event["turn_id"]) == (eid, sid, tid)
    assert event["type"] == hit["event"]["type"]
    assert event["timestamp"] == hit["event"]["timestamp"]
    # The snippet is cut from the full, never-truncated content.
    snippet = hit["snippet"]["text"].strip("…").strip()
    assert snippet[:60] in " ".join(data["content"]["text"].split())
    source = Path(data["source"]["file"])
    assert source.is_file() and indexed.ws.root in source.parents
    assert data["source"]["line"] >= 1


def test_open_malformed_id(indexed: Indexed) -> None:
    as_json = indexed.ws.run("open", "not-an-id", "--json")
    assert as_json.returncode == 2, as_json
    env = as_json.json()
    assert env["schema_version"] == "moraine.mcp.error.v1"
    assert env["error"]["code"] == "invalid_id"


def test_open_unknown_id(indexed: Indexed, hit: dict[str, Any]) -> None:
    eid = hit["open"]["event_id"]
    prefix, body = eid.split(":", 1)
    head, _, tail = body.partition("_")
    unknown_event = f"{prefix}:{head}_{'a' * len(tail)}"  # same shape, no such event
    sid = hit["open"]["session_id"]
    s_prefix, s_body = sid.split(":", 1)
    s_head, _, s_tail = s_body.partition("_")
    unknown_session = f"{s_prefix}:{s_head}_{'b' * len(s_tail)}"
    assert unknown_event != eid and unknown_session != sid
    text, as_json = indexed.ws.run_many([["open", unknown_event], ["open", unknown_session, "--json"]])
    assert text.returncode == 1, text
    assert "not_found" in text.stderr and not text.stdout  # an error is said on stderr
    assert as_json.returncode == 1, as_json
    assert as_json.json()["error"]["code"] == "not_found"
    assert as_json.json()["error"]["message"] == "session not found"
