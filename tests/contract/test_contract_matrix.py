"""The spec's "Input Permutation Matrix": one parametrized case per row (and per variant of a row)."""

from __future__ import annotations

from typing import Any

import pytest
from contract_harness import (
    CANONICAL_TYPES,
    DAY_END,
    DAY_START,
    DEFAULT_TYPES,
    UNKNOWN_EVENT,
    UNKNOWN_SESSION,
    UNKNOWN_TURN,
    McpServer,
)


@pytest.fixture(scope="module")
def ids(server: McpServer, sids: dict[str, str]) -> dict[str, str]:
    """Real IDs of the corpus: S2 (narwhal session), its first turn, and one of its events."""
    session = server.ok("open", {"id": sids["S2"]})["data"]
    turn_id = session["turns"][0]["id"]
    turn = server.ok("open", {"id": turn_id})["data"]
    return {
        "session": sids["S2"],
        "turn": turn_id,
        "event": turn["events"][0]["id"],
        "S4": sids["S4"],
        "S1": sids["S1"],
    }


def hits(envelope: dict[str, Any]) -> list[dict[str, Any]]:
    return envelope["data"]["results"]


# --------------------------------------------------------------------------------------------
# search_sessions — 16 rows
# --------------------------------------------------------------------------------------------


def _query_only(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("search_sessions", {"query": "pelican"})
    assert env["request"] == {"query": "pelican", "within_id": None, "event_types": DEFAULT_TYPES, "n_hits": 10}
    data = env["data"]
    assert data["limit"] == 10 and data["result_count"] == 10 and len(data["results"]) == 10
    assert data["truncated"] is True  # 16 events mention pelican
    assert all(h["event"]["type"] in DEFAULT_TYPES for h in hits(env))
    assert env["performance"]["sla_target_ms"] == 750


def _query_n_hits(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("search_sessions", {"query": "pelican", "n_hits": 3})
    assert env["request"]["n_hits"] == 3 and env["request"]["event_types"] == DEFAULT_TYPES
    assert env["data"]["limit"] == 3 and env["data"]["result_count"] == 3 and len(hits(env)) == 3
    assert env["data"]["truncated"] is True


def _query_event_types(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("search_sessions", {"query": "pelican", "event_types": ["assistant_response"]})
    assert env["request"]["event_types"] == ["assistant_response"]
    assert env["data"]["result_count"] == 8  # one pelican answer per turn
    assert {h["event"]["type"] for h in hits(env)} == {"assistant_response"}
    assert env["data"]["truncated"] is False


def _within_session(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("search_sessions", {"query": "narwhal", "within_id": ids["session"]})
    assert env["request"]["within_id"] == ids["session"] and env["request"]["event_types"] == DEFAULT_TYPES
    assert hits(env), "the narwhal session has matching events"
    for h in hits(env):
        assert h["session"]["id"] == ids["session"] and h["open"]["session_id"] == ids["session"]
        assert h["event"]["type"] in DEFAULT_TYPES
    assert env["performance"]["sla_target_ms"] == 500


def _within_turn(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("search_sessions", {"query": "narwhal", "within_id": ids["turn"]})
    assert env["request"]["within_id"] == ids["turn"] and env["request"]["event_types"] == DEFAULT_TYPES
    assert hits(env)
    for h in hits(env):
        assert h["turn"]["id"] == ids["turn"] and h["open"]["turn_id"] == ids["turn"]
        assert h["event"]["type"] in DEFAULT_TYPES
    assert env["performance"]["sla_target_ms"] == 300


def _within_session_event_types(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok(
        "search_sessions", {"query": "narwhal", "within_id": ids["session"], "event_types": ["tool_response"]}
    )
    assert env["request"]["event_types"] == ["tool_response"]
    assert hits(env)
    for h in hits(env):
        assert h["session"]["id"] == ids["session"] and h["event"]["type"] == "tool_response"


def _within_turn_event_types(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok(
        "search_sessions", {"query": "narwhal", "within_id": ids["turn"], "event_types": ["tool_call", "reasoning"]}
    )
    assert env["request"]["event_types"] == ["reasoning", "tool_call"]
    assert {h["event"]["type"] for h in hits(env)} == {"reasoning", "tool_call"}
    for h in hits(env):
        assert h["turn"]["id"] == ids["turn"]


def _within_event(server: McpServer, ids: dict[str, str]) -> None:
    server.err(
        "search_sessions",
        {"query": "narwhal", "within_id": ids["event"]},
        "invalid_request",
        "within_id accepts session and turn IDs, not event IDs",
    )


def _blank_query(server: McpServer, ids: dict[str, str]) -> None:
    for query in ("", "   ", "\t\n"):
        env = server.err("search_sessions", {"query": query}, "invalid_request", "query must be a non-empty string")
        assert env["error"]["details"] == {"field": "query"}


def _unknown_within(server: McpServer, ids: dict[str, str]) -> None:
    for unknown in (UNKNOWN_SESSION, UNKNOWN_TURN):
        server.err("search_sessions", {"query": "narwhal", "within_id": unknown}, "not_found")
    # a well-formed turn of a known session beyond its last turn is unknown too
    beyond = ids["turn"].rsplit("_", 1)[0] + "_99"
    server.err("search_sessions", {"query": "narwhal", "within_id": beyond}, "not_found")


def _malformed_within(server: McpServer, ids: dict[str, str]) -> None:
    for bad in ("not-a-valid-id", "session:", "turn:nope", "event", ids["session"] + "x"):
        server.err("search_sessions", {"query": "narwhal", "within_id": bad}, "invalid_id")


def _empty_event_types(server: McpServer, ids: dict[str, str]) -> None:
    server.err("search_sessions", {"query": "narwhal", "event_types": []}, "invalid_request")


def _unsupported_event_type(server: McpServer, ids: dict[str, str]) -> None:
    env = server.err(
        "search_sessions",
        {"query": "migration", "event_types": ["user_input", "debug_trace"]},
        "unsupported_event_type",
        "unsupported event type: debug_trace",
    )
    assert env["error"]["details"]["supported"] == CANONICAL_TYPES
    assert env["error"]["details"]["field"] == "event_types"
    # `unknown` is openable but never searchable
    server.err(
        "search_sessions",
        {"query": "migration", "event_types": ["unknown"]},
        "unsupported_event_type",
        "unsupported event type: unknown",
    )


def _n_hits_below_one(server: McpServer, ids: dict[str, str]) -> None:
    for n in (0, -1):
        server.err("search_sessions", {"query": "pelican", "n_hits": n}, "invalid_request")


def _n_hits_above_fifty(server: McpServer, ids: dict[str, str]) -> None:
    for n in (51, 1000):
        server.err("search_sessions", {"query": "pelican", "n_hits": n}, "invalid_request")


def _n_hits_non_integer(server: McpServer, ids: dict[str, str]) -> None:
    for n in ("3", 2.5, True, [3], {"n": 3}):
        server.err("search_sessions", {"query": "pelican", "n_hits": n}, "invalid_request")


SEARCH_ROWS = {
    "query_only": _query_only,
    "query+n_hits": _query_n_hits,
    "query+event_types": _query_event_types,
    "query+within_id=session": _within_session,
    "query+within_id=turn": _within_turn,
    "query+within_id=session+event_types": _within_session_event_types,
    "query+within_id=turn+event_types": _within_turn_event_types,
    "query+within_id=event": _within_event,
    "blank_query": _blank_query,
    "unknown_within_id": _unknown_within,
    "malformed_within_id": _malformed_within,
    "empty_event_types": _empty_event_types,
    "unsupported_event_types_value": _unsupported_event_type,
    "n_hits<1": _n_hits_below_one,
    "n_hits>50": _n_hits_above_fifty,
    "non_integer_n_hits": _n_hits_non_integer,
}


def test_search_matrix_has_sixteen_rows() -> None:
    assert len(SEARCH_ROWS) == 16


@pytest.mark.parametrize("row", list(SEARCH_ROWS))
def test_search_sessions_matrix(row: str, server: McpServer, ids: dict[str, str]) -> None:
    SEARCH_ROWS[row](server, ids)


# --------------------------------------------------------------------------------------------
# list_sessions — 11 rows
# --------------------------------------------------------------------------------------------

RANGE = {"start_datetime": DAY_START, "end_datetime": DAY_END}


def _updated(env: dict[str, Any]) -> list[tuple[str, str]]:
    return [(item["session"]["updated_at"], item["id"]) for item in env["data"]["sessions"]]


def _range_only(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("list_sessions", dict(RANGE))
    assert env["request"] == {**RANGE, "limit": 20, "cursor": None, "mode": None, "sort": "desc"}
    data = env["data"]
    assert data["result_count"] == len(data["sessions"]) == 5
    assert data["limit"] == 20 and data["truncated"] is False and data["next_cursor"] is None
    keys = _updated(env)
    assert keys == sorted(keys, reverse=True)


def _range_limit(server: McpServer, ids: dict[str, str]) -> None:
    for limit in (1, 2, 4, 5, 50):
        env = server.ok("list_sessions", {**RANGE, "limit": limit})
        data = env["data"]
        assert env["request"]["limit"] == limit and data["limit"] == limit
        assert data["result_count"] == len(data["sessions"]) == min(limit, 5)
        assert data["truncated"] is (limit < 5)
        assert (data["next_cursor"] is not None) is (limit < 5)


def _range_cursor(server: McpServer, ids: dict[str, str]) -> None:
    full = _updated(server.ok("list_sessions", dict(RANGE)))
    first = server.ok("list_sessions", {**RANGE, "limit": 2})
    second = server.ok("list_sessions", {**RANGE, "limit": 2, "cursor": first["data"]["next_cursor"]})
    assert second["request"]["cursor"] == first["data"]["next_cursor"]
    assert _updated(first) == full[:2] and _updated(second) == full[2:4]
    again = server.ok("list_sessions", {**RANGE, "limit": 2, "cursor": first["data"]["next_cursor"]})
    assert _updated(again) == _updated(second), "the same cursor gives the same page"


def _range_mode(server: McpServer, ids: dict[str, str]) -> None:
    expected = {"chat": 3, "tool_calling": 1, "web_search": 1, "mcp_internal": 0}
    for mode, count in expected.items():
        env = server.ok("list_sessions", {**RANGE, "mode": mode})
        assert env["request"]["mode"] == mode
        assert env["data"]["result_count"] == count, mode
        assert all(item["session"]["mode"] == mode for item in env["data"]["sessions"])


def _range_sort_asc(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("list_sessions", {**RANGE, "sort": "asc"})
    assert env["request"]["sort"] == "asc"
    keys = _updated(env)
    assert keys == sorted(keys) and len(keys) == 5
    assert keys[0][1] == ids["S1"]  # the oldest session first


def _missing_datetime(server: McpServer, ids: dict[str, str]) -> None:
    server.err("list_sessions", {"end_datetime": DAY_END}, "invalid_request")
    server.err("list_sessions", {"start_datetime": DAY_START}, "invalid_request")
    server.err("list_sessions", {}, "invalid_request")
    server.err("list_sessions", {"start_datetime": None, "end_datetime": DAY_END}, "invalid_request")


def _no_timezone(server: McpServer, ids: dict[str, str]) -> None:
    server.err("list_sessions", {"start_datetime": "2026-03-10T00:00:00", "end_datetime": DAY_END}, "invalid_request")
    server.err(
        "list_sessions", {"start_datetime": DAY_START, "end_datetime": "2026-03-11T00:00:00.000"}, "invalid_request"
    )
    server.err("list_sessions", {"start_datetime": "2026-03-10T00:00", "end_datetime": DAY_END}, "invalid_request")
    # a plain date is not a time without a zone: it is that day's midnight UTC (docs/contract.md), echoed so
    dates = server.ok("list_sessions", {"start_datetime": "2026-03-10", "end_datetime": "2026-03-11"})
    assert (dates["request"]["start_datetime"], dates["request"]["end_datetime"]) == (DAY_START, DAY_END)
    assert dates["data"]["result_count"] == 5


def _end_not_after_start(server: McpServer, ids: dict[str, str]) -> None:
    server.err("list_sessions", {"start_datetime": DAY_START, "end_datetime": DAY_START}, "invalid_request")
    server.err("list_sessions", {"start_datetime": DAY_END, "end_datetime": DAY_START}, "invalid_request")
    # the same instant written with two offsets is still an empty range
    server.err(
        "list_sessions",
        {"start_datetime": "2026-03-10T09:00:00Z", "end_datetime": "2026-03-10T05:00:00-04:00"},
        "invalid_request",
    )


def _unknown_field(server: McpServer, ids: dict[str, str]) -> None:
    server.err("list_sessions", {**RANGE, "query": "pelican"}, "invalid_request")
    server.err("list_sessions", {**RANGE, "page": 2}, "invalid_request")


def _invalid_mode_or_sort(server: McpServer, ids: dict[str, str]) -> None:
    server.err("list_sessions", {**RANGE, "mode": "browsing"}, "invalid_request")
    server.err("list_sessions", {**RANGE, "mode": "CHAT"}, "invalid_request")
    server.err("list_sessions", {**RANGE, "sort": "newest"}, "invalid_request")
    server.err("list_sessions", {**RANGE, "sort": "DESC"}, "invalid_request")


def _cursor_changed(server: McpServer, ids: dict[str, str]) -> None:
    first = server.ok("list_sessions", {**RANGE, "limit": 2})
    cursor = first["data"]["next_cursor"]
    assert cursor
    server.err("list_sessions", {**RANGE, "limit": 2, "cursor": cursor, "sort": "asc"}, "invalid_request")
    server.err("list_sessions", {**RANGE, "limit": 2, "cursor": cursor, "mode": "chat"}, "invalid_request")
    server.err(
        "list_sessions",
        {"start_datetime": "2026-03-10T01:00:00Z", "end_datetime": DAY_END, "limit": 2, "cursor": cursor},
        "invalid_request",
    )
    server.err(
        "list_sessions",
        {"start_datetime": DAY_START, "end_datetime": "2026-03-12T00:00:00Z", "limit": 2, "cursor": cursor},
        "invalid_request",
    )
    # a cursor Moraine never issued is a bad cursor
    server.err("list_sessions", {**RANGE, "cursor": "not-a-cursor"}, "invalid_request")


LIST_ROWS = {
    "range": _range_only,
    "range+limit": _range_limit,
    "range+cursor": _range_cursor,
    "range+mode": _range_mode,
    "range+sort=asc": _range_sort_asc,
    "missing_datetime": _missing_datetime,
    "datetime_without_timezone": _no_timezone,
    "end<=start": _end_not_after_start,
    "unknown_field": _unknown_field,
    "invalid_mode_or_sort": _invalid_mode_or_sort,
    "cursor_with_changed_filter_or_sort": _cursor_changed,
}


def test_list_matrix_has_eleven_rows() -> None:
    assert len(LIST_ROWS) == 11


@pytest.mark.parametrize("row", list(LIST_ROWS))
def test_list_sessions_matrix(row: str, server: McpServer, ids: dict[str, str]) -> None:
    LIST_ROWS[row](server, ids)


# --------------------------------------------------------------------------------------------
# open — 7 rows
# --------------------------------------------------------------------------------------------


def _open_session(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("open", {"id": ids["session"]})
    assert env["request"] == {"id": ids["session"]}
    data = env["data"]
    assert data["kind"] == "session" and data["session"]["id"] == ids["session"]
    assert data["session"]["turn_count"] == len(data["turns"]) == 2
    assert [t["ordinal"] for t in data["turns"]] == [1, 2]
    assert set(data["traversal"]) >= {"previous_session_id", "next_session_id"}
    assert env["performance"]["sla_target_ms"] == 500


def _open_turn(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("open", {"id": ids["turn"]})
    data = env["data"]
    assert data["kind"] == "turn" and data["turn"]["id"] == ids["turn"]
    assert data["turn"]["session_id"] == ids["session"]
    assert data["events"] and [e["ordinal"] for e in data["events"]] == list(range(1, len(data["events"]) + 1))
    assert set(data["traversal"]) >= {
        "session_id",
        "previous_turn_id",
        "next_turn_id",
        "first_event_id",
        "last_event_id",
    }
    assert env["performance"]["sla_target_ms"] == 300


def _open_event(server: McpServer, ids: dict[str, str]) -> None:
    env = server.ok("open", {"id": ids["event"]})
    data = env["data"]
    assert data["kind"] == "event" and data["event"]["id"] == ids["event"]
    assert data["content"]["truncated"] is False and isinstance(data["content"]["text"], str)
    assert set(data["traversal"]) >= {
        "session_id",
        "turn_id",
        "previous_event_id",
        "next_event_id",
        "previous_turn_id",
        "next_turn_id",
    }
    assert env["performance"]["sla_target_ms"] == 200


def _open_missing_id(server: McpServer, ids: dict[str, str]) -> None:
    server.err("open", {}, "invalid_request")
    server.err("open", {"id": None}, "invalid_request")


def _open_blank_id(server: McpServer, ids: dict[str, str]) -> None:
    for blank in ("", "   "):
        server.err("open", {"id": blank}, "invalid_request")


def _open_malformed_id(server: McpServer, ids: dict[str, str]) -> None:
    for bad in ("not-a-valid-id", "event:", "session:ses_TOO-SHORT", "turn:" + ids["turn"], ids["event"] + "0"):
        env = server.err("open", {"id": bad}, "invalid_id", "id is not a valid Moraine MCP ID")
        assert env["error"]["details"] == {"field": "id"}
        assert env["request"] == {"id": bad}


def _open_unknown_id(server: McpServer, ids: dict[str, str]) -> None:
    env = server.err("open", {"id": UNKNOWN_EVENT}, "not_found", "event not found")
    assert env["error"]["details"]["id"] == UNKNOWN_EVENT
    env = server.err("open", {"id": UNKNOWN_SESSION}, "not_found", "session not found")
    assert env["error"]["details"]["id"] == UNKNOWN_SESSION
    env = server.err("open", {"id": UNKNOWN_TURN}, "not_found", "turn not found")
    assert env["error"]["details"]["id"] == UNKNOWN_TURN
    beyond = ids["turn"].rsplit("_", 1)[0] + "_99"
    env = server.err("open", {"id": beyond}, "not_found", "turn not found")
    assert env["error"]["details"]["id"] == beyond


OPEN_ROWS = {
    "id=session": _open_session,
    "id=turn": _open_turn,
    "id=event": _open_event,
    "missing_id": _open_missing_id,
    "blank_id": _open_blank_id,
    "malformed_id": _open_malformed_id,
    "well_formed_unknown_id": _open_unknown_id,
}


def test_open_matrix_has_seven_rows() -> None:
    assert len(OPEN_ROWS) == 7


@pytest.mark.parametrize("row", list(OPEN_ROWS))
def test_open_matrix(row: str, server: McpServer, ids: dict[str, str]) -> None:
    OPEN_ROWS[row](server, ids)
