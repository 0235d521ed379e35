"""Traversal contract: every ID returned anywhere opens, recursively to closure, and the graph is
consistent (parents, ordinals, adjacency, first/last events, terminal and summary references)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from contract_harness import (
    CANONICAL_TYPES,
    DAY_END,
    DAY_START,
    EVENT_ID_RE,
    SESSION_ID_RE,
    TS_RE,
    TURN_ID_RE,
    McpServer,
    walk_ids,
    walk_timestamps,
)

EVENT_TYPES = {*CANONICAL_TYPES, "unknown"}
QUERIES = [
    "pelican",
    "narwhal",
    "albatross",
    "ClickHouse schema migration failure",
    "quokka rollback",
    "wombat monitor",
    "heron",
    "cormorant",
    "lint errors",
]


class Graph:
    """Everything opened, keyed by ID."""

    def __init__(self, server: McpServer) -> None:
        self.server = server
        self.opened: dict[str, dict[str, Any]] = {}
        self.failures: dict[str, dict[str, Any]] = {}
        self.seeds: set[str] = set()

    def open(self, mid: str) -> dict[str, Any]:
        if mid not in self.opened:
            env = self.server.call("open", {"id": mid})
            if "error" in env:
                self.failures[mid] = env["error"]
                self.opened[mid] = {}
            else:
                self.opened[mid] = env["data"]
        return self.opened[mid]

    def close_over(self, seeds: set[str]) -> None:
        pending = sorted(seeds)
        while pending:
            mid = pending.pop()
            if mid in self.opened:
                continue
            data = self.open(mid)
            pending.extend(sorted(walk_ids(data) - set(self.opened)))

    def of_kind(self, prefix: str) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self.opened.items() if k.startswith(prefix) and v}


@pytest.fixture(scope="module")
def graph(server: McpServer) -> Graph:
    g = Graph(server)
    for query in QUERIES:
        for types in (None, CANONICAL_TYPES):
            env = server.ok("search_sessions", {"query": query, "event_types": types, "n_hits": 50})
            g.seeds |= walk_ids(env["data"])
    cursor = None
    while True:
        env = server.ok(
            "list_sessions", {"start_datetime": DAY_START, "end_datetime": DAY_END, "limit": 2, "cursor": cursor}
        )
        g.seeds |= walk_ids(env["data"])
        cursor = env["data"]["next_cursor"]
        if cursor is None:
            break
    g.close_over(g.seeds)
    return g


def test_every_returned_id_opens(graph: Graph) -> None:
    assert not graph.failures, json.dumps(graph.failures, indent=1)[:2000]
    sessions = graph.of_kind("session:")
    assert len(sessions) == 5
    # closure reached every turn and every event of every session
    assert len(graph.of_kind("turn:")) == sum(s["session"]["turn_count"] for s in sessions.values()) == 16
    assert len(graph.of_kind("event:")) == sum(s["session"]["event_count"] for s in sessions.values())


def test_ids_are_typed(graph: Graph) -> None:
    for mid, data in graph.opened.items():
        kind = data.get("kind")
        expected = {"session": SESSION_ID_RE, "turn": TURN_ID_RE, "event": EVENT_ID_RE}[kind]
        assert expected.match(mid), (mid, kind)


def test_ids_are_stable_across_calls(graph: Graph) -> None:
    for mid in sorted(graph.of_kind("session:"))[:2] + sorted(graph.of_kind("turn:"))[:3]:
        assert graph.server.ok("open", {"id": mid})["data"] == graph.opened[mid]


def test_events_are_consistent(graph: Graph) -> None:
    for eid, data in graph.of_kind("event:").items():
        ev, tr = data["event"], data["traversal"]
        assert data["kind"] == "event" and ev["id"] == eid
        assert ev["type"] in EVENT_TYPES
        assert tr["turn_id"] == ev["turn_id"] == data["turn"]["id"]
        assert tr["session_id"] == ev["session_id"] == data["session"]["id"]
        assert data["content"]["truncated"] is False
        turn = graph.opened[tr["turn_id"]]
        assert turn["turn"]["session_id"] == tr["session_id"]
        rows = turn["events"]
        assert 1 <= ev["ordinal"] <= len(rows)
        row = rows[ev["ordinal"] - 1]
        assert row["id"] == eid and row["ordinal"] == ev["ordinal"]
        assert (row["type"], row["timestamp"], row["terminal"]) == (ev["type"], ev["timestamp"], ev["terminal"])
        assert data["turn"]["ordinal"] == turn["turn"]["ordinal"]
        assert data["turn"]["completed"] == turn["turn"]["completed"]
        assert ev["terminal"] == (turn["turn"]["terminal_event_id"] == eid)
        # adjacent events are the neighbouring rows of the parent turn, null at the turn's boundaries
        expected_prev = rows[ev["ordinal"] - 2]["id"] if ev["ordinal"] > 1 else None
        expected_next = rows[ev["ordinal"]]["id"] if ev["ordinal"] < len(rows) else None
        assert tr["previous_event_id"] == expected_prev and tr["next_event_id"] == expected_next
        if tr["previous_event_id"]:
            assert graph.opened[tr["previous_event_id"]]["traversal"]["next_event_id"] == eid
        if tr["next_event_id"]:
            assert graph.opened[tr["next_event_id"]]["traversal"]["previous_event_id"] == eid
        # adjacent turns are the parent turn's adjacent turns
        assert tr["previous_turn_id"] == turn["traversal"]["previous_turn_id"]
        assert tr["next_turn_id"] == turn["traversal"]["next_turn_id"]
        session = graph.opened[tr["session_id"]]
        assert data["session"]["title"] == session["session"]["title"]
        assert data["session"]["source"] == session["session"]["source"]


def test_turns_are_consistent(graph: Graph) -> None:
    for tid, data in graph.of_kind("turn:").items():
        turn, tr, rows = data["turn"], data["traversal"], data["events"]
        assert data["kind"] == "turn" and turn["id"] == tid
        assert tr["session_id"] == turn["session_id"] == data["session"]["id"]
        session = graph.opened[turn["session_id"]]
        listed = [t["id"] for t in session["turns"]]
        assert tid in listed and listed.index(tid) + 1 == turn["ordinal"]
        summary = session["turns"][turn["ordinal"] - 1]
        for key in ("completed", "terminal_event_id", "event_count", "started_at", "updated_at"):
            assert summary[key] == turn[key], key
        assert summary["user_input"] == data["summary"]["user_input"]
        assert summary["final_response"] == data["summary"]["final_response"]
        assert summary["tools_called"] == data["summary"]["tools_called"]
        assert summary["event_types"] == data["summary"]["event_types"]
        assert turn["event_count"] == len(rows) >= 1
        assert [r["ordinal"] for r in rows] == list(range(1, len(rows) + 1))
        assert tr["first_event_id"] == rows[0]["id"] and tr["last_event_id"] == rows[-1]["id"]
        # a turn starts at its prompt's time (records before the prompt may be older), else its first time
        prompt = [r["timestamp"] for r in rows if r["type"] == "user_input" and r["timestamp"]]
        assert turn["started_at"] == (prompt[0] if prompt else min(r["timestamp"] for r in rows))
        assert turn["updated_at"] == max(r["timestamp"] for r in rows)
        # adjacent turns are mutual inverses and sit at ordinal ± 1
        if tr["previous_turn_id"]:
            prev = graph.opened[tr["previous_turn_id"]]
            assert prev["traversal"]["next_turn_id"] == tid and prev["turn"]["ordinal"] == turn["ordinal"] - 1
        else:
            assert turn["ordinal"] == 1
        if tr["next_turn_id"]:
            nxt = graph.opened[tr["next_turn_id"]]
            assert nxt["traversal"]["previous_turn_id"] == tid and nxt["turn"]["ordinal"] == turn["ordinal"] + 1
        else:
            assert turn["ordinal"] == len(session["turns"])
        # completion: terminal and final response references point inside this turn
        ids = [r["id"] for r in rows]
        terminals = [r["id"] for r in rows if r["terminal"]]
        if turn["completed"]:
            assert turn["terminal_event_id"] in ids and terminals == [turn["terminal_event_id"]]
        else:
            assert turn["terminal_event_id"] is None and terminals == []
            assert data["summary"]["final_response"] is None
        if data["summary"]["user_input"] is not None:
            ref = data["summary"]["user_input"]["event_id"]
            assert ref in ids and graph.opened[ref]["event"]["type"] == "user_input"
        if data["summary"]["final_response"] is not None:
            ref = data["summary"]["final_response"]["event_id"]
            assert ref in ids and graph.opened[ref]["event"]["type"] == "assistant_response"
        tools = [r["tool_name"] for r in rows if r["type"] == "tool_call" and r["tool_name"]]
        assert data["summary"]["tools_called"] == list(dict.fromkeys(tools))
        assert data["summary"]["event_types"] == list(dict.fromkeys(r["type"] for r in rows))


def test_sessions_are_consistent(graph: Graph) -> None:
    for sid, data in graph.of_kind("session:").items():
        s, turns = data["session"], data["turns"]
        assert data["kind"] == "session" and s["id"] == sid
        assert s["turn_count"] == len(turns) >= 1
        assert [t["ordinal"] for t in turns] == list(range(1, len(turns) + 1))
        assert s["event_count"] == sum(t["event_count"] for t in turns)
        assert s["completed"] == turns[-1]["completed"]
        times = [r["timestamp"] for t in turns for r in graph.opened[t["id"]]["events"] if r["timestamp"]]
        assert s["started_at"] == min(times) <= min(t["started_at"] for t in turns)
        assert s["updated_at"] == max(t["updated_at"] for t in turns)
        for t in turns:
            assert graph.opened[t["id"]]["turn"]["session_id"] == sid
            assert t["open"]["turn_id"] == t["id"]
            assert t["open"]["terminal_event_id"] == t["terminal_event_id"]
        tr = data["traversal"]
        if tr["previous_session_id"]:
            assert graph.opened[tr["previous_session_id"]]["traversal"]["next_session_id"] == sid
        if tr["next_session_id"]:
            assert graph.opened[tr["next_session_id"]]["traversal"]["previous_session_id"] == sid


def test_search_hits_and_list_items_agree_with_open(graph: Graph) -> None:
    server = graph.server
    for query in QUERIES:
        env = server.ok("search_sessions", {"query": query, "n_hits": 50})
        for hit in env["data"]["results"]:
            event = graph.opened[hit["open"]["event_id"]]
            assert event["traversal"]["turn_id"] == hit["open"]["turn_id"]
            assert event["traversal"]["session_id"] == hit["open"]["session_id"]
            assert event["event"]["ordinal"] == hit["event"]["ordinal"]
            assert graph.opened[hit["open"]["turn_id"]]["turn"]["ordinal"] == hit["turn"]["ordinal"]
    env = server.ok("list_sessions", {"start_datetime": DAY_START, "end_datetime": DAY_END})
    for item in env["data"]["sessions"]:
        opened = graph.opened[item["open"]["session_id"]]["session"]
        for key in ("id", "title", "source", "started_at", "updated_at", "completed", "turn_count", "event_count"):
            assert item["session"][key] == opened[key], key


def test_every_timestamp_in_the_graph_is_utc(graph: Graph) -> None:
    for data in graph.opened.values():
        for key, value in walk_timestamps(data):
            assert isinstance(value, str) and TS_RE.match(value), (key, value)
