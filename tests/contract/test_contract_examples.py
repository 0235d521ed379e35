"""The spec's worked examples, reproduced structurally against our own corpus: same request
canonicalization, same data shape, same codes, messages and SLA targets."""

from __future__ import annotations

from typing import Any

import pytest
from contract_harness import (
    CANONICAL_TYPES,
    DAY_END,
    DAY_START,
    DEFAULT_TYPES,
    S1_FINAL1,
    S1_OUTPUT1,
    S1_PROMPT1,
    S1_PROMPT3,
    UNKNOWN_EVENT,
    McpServer,
)

HIT_KEYS = {"rank", "score", "id", "event", "turn", "session", "snippet", "open"}
HIT_EVENT_KEYS = {"id", "type", "timestamp", "ordinal", "terminal"}
HIT_TURN_KEYS = {"id", "ordinal", "completed", "event_count"}
SESSION_TIMES_KEYS = {"id", "title", "source", "started_at", "updated_at", "completed"}
SESSION_FULL_KEYS = SESSION_TIMES_KEYS | {"turn_count", "event_count"}
SESSION_BRIEF_KEYS = {"id", "title", "source"}
TURN_SUMMARY_KEYS = {
    "id",
    "ordinal",
    "completed",
    "terminal_event_id",
    "event_count",
    "started_at",
    "updated_at",
    "user_input",
    "final_response",
    "tools_called",
    "event_types",
    "open",
}
TEXT_REF_KEYS = {"event_id", "text", "truncated"}
OPEN_TURN_KEYS = {
    "id",
    "session_id",
    "ordinal",
    "completed",
    "terminal_event_id",
    "event_count",
    "started_at",
    "updated_at",
}
EVENT_ROW_KEYS = {"id", "ordinal", "type", "timestamp", "terminal", "tool_name", "model", "summary", "truncated"}
TURN_TRAVERSAL_KEYS = {"session_id", "previous_turn_id", "next_turn_id", "first_event_id", "last_event_id"}
OPEN_EVENT_KEYS = {
    "id",
    "session_id",
    "turn_id",
    "ordinal",
    "type",
    "timestamp",
    "terminal",
    "model",
    "originating_model",
    "tool_name",
}
EVENT_TRAVERSAL_KEYS = {
    "session_id",
    "turn_id",
    "previous_event_id",
    "next_event_id",
    "previous_turn_id",
    "next_turn_id",
}


def check_hit_shape(hit: dict[str, Any]) -> None:
    assert set(hit) >= HIT_KEYS
    assert set(hit["event"]) >= HIT_EVENT_KEYS
    assert set(hit["turn"]) >= HIT_TURN_KEYS
    assert set(hit["session"]) >= SESSION_TIMES_KEYS
    assert set(hit["snippet"]) >= {"text", "truncated"}
    assert set(hit["open"]) >= {"event_id", "turn_id", "session_id"}


def test_example_default_global_search(server: McpServer, sids: dict[str, str]) -> None:
    env = server.ok("search_sessions", {"query": "ClickHouse schema migration failure"})
    assert env["schema_version"] == "moraine.mcp.search_sessions.v1" and env["tool"] == "search_sessions"
    assert env["request"] == {
        "query": "ClickHouse schema migration failure",
        "within_id": None,
        "event_types": ["user_input", "assistant_response", "tool_response"],
        "n_hits": 10,
    }
    data = env["data"]
    assert set(data) >= {"result_count", "limit", "truncated", "results"}
    assert (data["result_count"], data["limit"], data["truncated"]) == (2, 10, False)
    assert env["warnings"] == []
    assert env["performance"]["sla_target_ms"] == 750
    hits = data["results"]
    for hit in hits:
        check_hit_shape(hit)
    assert [h["rank"] for h in hits] == [1, 2]
    by_type = {h["event"]["type"]: h for h in hits}
    assert set(by_type) == {"user_input", "assistant_response"}
    # both hits are in the same completed turn of the ClickHouse (Codex) session
    assert {h["open"]["turn_id"] for h in hits} == {hits[0]["turn"]["id"]}
    assert {h["open"]["session_id"] for h in hits} == {sids["S1"]}
    assert all(h["session"]["source"] == "codex" and h["turn"]["completed"] is True for h in hits)
    assert by_type["assistant_response"]["event"]["terminal"] is True
    assert by_type["user_input"]["event"]["terminal"] is False
    assert by_type["user_input"]["event"]["ordinal"] < by_type["assistant_response"]["event"]["ordinal"]
    assert by_type["user_input"]["snippet"]["text"] == S1_PROMPT1
    assert by_type["assistant_response"]["snippet"]["text"] == S1_FINAL1
    assert hits[0]["session"]["title"] and "ClickHouse" in hits[0]["session"]["title"]


def test_example_search_within_a_turn(server: McpServer, sids: dict[str, str]) -> None:
    turn_id = server.ok("open", {"id": sids["S1"]})["data"]["turns"][0]["id"]
    request = {"query": "cargo test failure", "within_id": turn_id, "event_types": ["tool_response"], "n_hits": 3}
    env = server.ok("search_sessions", request)
    assert env["request"] == request
    data = env["data"]
    assert (data["result_count"], data["limit"], data["truncated"]) == (1, 3, False)
    hit = data["results"][0]
    check_hit_shape(hit)
    assert hit["rank"] == 1 and hit["event"]["type"] == "tool_response" and hit["event"]["terminal"] is False
    assert hit["turn"]["id"] == turn_id and hit["turn"]["ordinal"] == 1 and hit["turn"]["completed"] is True
    assert hit["open"] == {"event_id": hit["id"], "turn_id": turn_id, "session_id": sids["S1"]}
    assert "cargo test" in hit["snippet"]["text"]
    assert env["warnings"] == []
    assert env["performance"]["sla_target_ms"] == 300


def test_example_no_hits(server: McpServer) -> None:
    env = server.ok("search_sessions", {"query": "nonexistent exact phrase for this index", "n_hits": 5})
    assert env["request"] == {
        "query": "nonexistent exact phrase for this index",
        "within_id": None,
        "event_types": DEFAULT_TYPES,
        "n_hits": 5,
    }
    assert env["data"] == {"result_count": 0, "limit": 5, "truncated": False, "results": []}
    assert env["warnings"] == []
    assert env["performance"]["sla_target_ms"] == 750


def _without_timing(env: dict[str, Any]) -> dict[str, Any]:
    perf = env["performance"]
    assert isinstance(perf["elapsed_ms"], int) and isinstance(perf["met_sla"], bool)
    return {**env, "performance": {"sla_target_ms": perf["sla_target_ms"]}}


@pytest.mark.parametrize(
    "tool,request_,expected",
    [
        (
            "search_sessions",
            {"query": "   "},
            {
                "schema_version": "moraine.mcp.error.v1",
                "tool": "search_sessions",
                "request": {"query": "   "},
                "error": {
                    "code": "invalid_request",
                    "message": "query must be a non-empty string",
                    "details": {"field": "query"},
                },
                "warnings": [],
                "performance": {"sla_target_ms": 750},
            },
        ),
        (
            "search_sessions",
            {"query": "migration", "event_types": ["user_input", "debug_trace"]},
            {
                "schema_version": "moraine.mcp.error.v1",
                "tool": "search_sessions",
                "request": {"query": "migration", "event_types": ["user_input", "debug_trace"]},
                "error": {
                    "code": "unsupported_event_type",
                    "message": "unsupported event type: debug_trace",
                    "details": {"field": "event_types", "supported": CANONICAL_TYPES},
                },
                "warnings": [],
                "performance": {"sla_target_ms": 750},
            },
        ),
        (
            "open",
            {"id": "not-a-valid-id"},
            {
                "schema_version": "moraine.mcp.error.v1",
                "tool": "open",
                "request": {"id": "not-a-valid-id"},
                "error": {
                    "code": "invalid_id",
                    "message": "id is not a valid Moraine MCP ID",
                    "details": {"field": "id"},
                },
                "warnings": [],
                "performance": {"sla_target_ms": 200},
            },
        ),
        # The spec's illustrative missing ID uses its own ID alphabet; ours is a well-formed unknown ID.
        (
            "open",
            {"id": UNKNOWN_EVENT},
            {
                "schema_version": "moraine.mcp.error.v1",
                "tool": "open",
                "request": {"id": UNKNOWN_EVENT},
                "error": {"code": "not_found", "message": "event not found", "details": {"id": UNKNOWN_EVENT}},
                "warnings": [],
                "performance": {"sla_target_ms": 200},
            },
        ),
    ],
    ids=["blank_query", "unsupported_event_type", "open_malformed_id", "open_missing_object"],
)
def test_example_errors(server: McpServer, tool: str, request_: dict[str, Any], expected: dict[str, Any]) -> None:
    assert _without_timing(server.call(tool, request_)) == expected


def test_example_list_sessions_shape(server: McpServer, sids: dict[str, str]) -> None:
    env = server.ok(
        "list_sessions",
        {
            "start_datetime": "2026-03-10T05:00:00-04:00",
            "end_datetime": "2026-03-10T08:00:00-04:00",
            "limit": 20,
            "cursor": None,
            "mode": None,
            "sort": "desc",
        },
    )
    assert env["schema_version"] == "moraine.mcp.list_sessions.v1"
    data = env["data"]
    assert set(data) >= {"result_count", "limit", "truncated", "sessions", "next_cursor"}
    assert (data["result_count"], data["limit"], data["truncated"], data["next_cursor"]) == (4, 20, False, None)
    for rank, item in enumerate(data["sessions"], start=1):
        assert set(item) >= {"rank", "id", "session", "open"} and item["rank"] == rank
        assert set(item["session"]) >= SESSION_FULL_KEYS | {"mode", "session_slug", "session_summary"}
        assert item["open"] == {"session_id": item["id"]}
    assert sids["S4"] not in [item["id"] for item in data["sessions"]]  # S4 starts at 08:00-04:00 (exclusive end)
    assert env["performance"]["sla_target_ms"] == 300


def test_example_open_session(server: McpServer, sids: dict[str, str]) -> None:
    env = server.ok("open", {"id": sids["S1"]})
    assert env["request"] == {"id": sids["S1"]}
    data = env["data"]
    assert data["kind"] == "session"
    assert set(data["session"]) >= SESSION_FULL_KEYS
    assert set(data["traversal"]) >= {"previous_session_id", "next_session_id"}
    assert data["session"]["turn_count"] == len(data["turns"]) == 3
    assert data["session"]["event_count"] == sum(t["event_count"] for t in data["turns"])
    for turn in data["turns"]:
        assert set(turn) >= TURN_SUMMARY_KEYS
        assert set(turn["user_input"]) >= TEXT_REF_KEYS
        assert set(turn["open"]) >= {"turn_id", "terminal_event_id"} and turn["open"]["turn_id"] == turn["id"]
        if turn["final_response"] is not None:
            assert set(turn["final_response"]) >= TEXT_REF_KEYS
    assert env["performance"]["sla_target_ms"] == 500


def test_example_open_complete_and_incomplete_turn(server: McpServer, sids: dict[str, str]) -> None:
    turns = server.ok("open", {"id": sids["S1"]})["data"]["turns"]
    complete = server.ok("open", {"id": turns[0]["id"]})
    incomplete = server.ok("open", {"id": turns[2]["id"]})
    for env in (complete, incomplete):
        data = env["data"]
        assert data["kind"] == "turn"
        assert set(data["turn"]) >= OPEN_TURN_KEYS
        assert set(data["session"]) >= SESSION_BRIEF_KEYS and data["session"]["source"] == "codex"
        assert set(data["summary"]) >= {"user_input", "final_response", "tools_called", "event_types"}
        assert set(data["traversal"]) >= TURN_TRAVERSAL_KEYS
        for row in data["events"]:
            assert set(row) >= EVENT_ROW_KEYS
        assert env["performance"]["sla_target_ms"] == 300
    c, i = complete["data"], incomplete["data"]
    assert c["turn"]["completed"] is True and c["traversal"]["previous_turn_id"] is None
    assert c["traversal"]["next_turn_id"] == turns[1]["id"]
    assert i["turn"]["completed"] is False and i["turn"]["terminal_event_id"] is None
    assert i["summary"]["final_response"] is None
    assert i["summary"]["user_input"]["text"] == S1_PROMPT3 and i["summary"]["user_input"]["truncated"] is False
    assert i["summary"]["tools_called"] == ["exec_command"]
    assert i["summary"]["event_types"] == ["user_input", "tool_call"]
    assert i["traversal"]["previous_turn_id"] == turns[1]["id"] and i["traversal"]["next_turn_id"] is None
    assert i["events"][1]["tool_name"] == "exec_command" and i["events"][1]["summary"] == "bin/monitor status"


def test_example_open_events(server: McpServer, sids: dict[str, str]) -> None:
    turn_id = server.ok("open", {"id": sids["S1"]})["data"]["turns"][0]["id"]
    rows = server.ok("open", {"id": turn_id})["data"]["events"]
    by_type = {}
    for row in rows:
        by_type.setdefault(row["type"], row)
    opened = {
        t: server.ok("open", {"id": by_type[t]["id"]})
        for t in ("user_input", "tool_call", "tool_response", "assistant_response")
    }
    for type_, env in opened.items():
        data = env["data"]
        assert data["kind"] == "event"
        assert set(data["event"]) >= OPEN_EVENT_KEYS and data["event"]["type"] == type_
        assert data["event"]["turn_id"] == turn_id and data["event"]["session_id"] == sids["S1"]
        assert set(data["content"]) >= {"format", "text", "truncated"} and data["content"]["truncated"] is False
        assert set(data["session"]) >= SESSION_BRIEF_KEYS
        assert set(data["turn"]) >= {"id", "ordinal", "completed"}
        assert data["turn"] == {**data["turn"], "id": turn_id, "ordinal": 1, "completed": True}
        assert set(data["traversal"]) >= EVENT_TRAVERSAL_KEYS
        assert data["traversal"]["previous_turn_id"] is None
        assert env["performance"]["sla_target_ms"] == 200
    assert opened["user_input"]["data"]["content"] == {
        **opened["user_input"]["data"]["content"],
        "format": "text",
        "text": S1_PROMPT1,
        "truncated": False,
    }
    call = opened["tool_call"]["data"]
    assert call["content"]["format"] == "tool_call" and set(call["content"]) >= {"tool_name", "arguments"}
    assert call["event"]["tool_name"] == "exec_command"
    response = opened["tool_response"]["data"]
    assert response["content"]["format"] == "tool_response"
    assert set(response["content"]) >= {"tool_name", "exit_code", "text"}
    assert (response["content"]["tool_name"], response["content"]["exit_code"]) == ("exec_command", 101)
    assert response["content"]["text"] == S1_OUTPUT1
    assert response["event"]["originating_model"] == "gpt-5-codex"
    assert response["event"]["harness_version"] == "0.46.0"  # the rollout's session_meta cli_version
    answer = opened["assistant_response"]["data"]
    assert answer["event"]["terminal"] is True and answer["event"]["model"] == "gpt-5-codex"
    assert answer["content"]["text"] == S1_FINAL1
    # the first user input has no previous event only if it is the first event of the turn
    assert opened["user_input"]["data"]["traversal"]["next_event_id"] is not None


def test_list_window_examples_use_offsets(server: McpServer) -> None:
    """The spec's list request uses an offset (-04:00) window; Z and offsets name the same instants."""
    with_offset = server.ok(
        "list_sessions", {"start_datetime": "2026-03-09T20:00:00-04:00", "end_datetime": "2026-03-10T20:00:00-04:00"}
    )
    utc = server.ok("list_sessions", {"start_datetime": DAY_START, "end_datetime": DAY_END})
    assert [i["id"] for i in with_offset["data"]["sessions"]] == [i["id"] for i in utc["data"]["sessions"]]


def test_a_reply_echoes_no_credential_the_caller_searched_for(server: McpServer) -> None:
    """A host keeps tool results in its own logs: searching for a token one pasted must not write
    it back there through the request echoed in the envelope or the text."""
    token = "ghp_" + "Xq9vL2mZr7Kp4Wn8Tc6Jb1Hd5Fg3Sa0Ye2Uo"
    result = server.raw("search_sessions", {"query": f"rotate {token} today"})
    envelope = result.structured_content
    assert envelope["request"]["query"] == "rotate [REDACTED:github-token] today"
    shown = "".join(getattr(block, "text", "") for block in result.content)
    assert token[4:] not in shown and token[4:] not in str(envelope)
