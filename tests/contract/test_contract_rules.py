"""The spec's rules: envelopes, canonical requests, SLA targets, ranking, n_hits, scope, event-type
filters, snippets, full event content, tool metadata, list_sessions semantics, completion status."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from contract_harness import (
    CANONICAL_TYPES,
    DAY_END,
    DAY_START,
    DEFAULT_TYPES,
    S1_CALL1_ARGS,
    S1_FINAL1,
    S1_OUTPUT1,
    S1_PROMPT1,
    S1_PROMPT3,
    S2_FINAL1,
    S2_LINT_OUTPUT,
    S3_FINAL,
    S3_MARKER,
    S3_PROMPT,
    S3_TAIL_WORD,
    S4_TURNS,
    S4_TWIN,
    TS_RE,
    McpServer,
    walk_timestamps,
)

SNIPPET_MAX = 320
SUMMARY_MAX = 300
RANGE = {"start_datetime": DAY_START, "end_datetime": DAY_END}


def session_data(server: McpServer, sid: str) -> dict[str, Any]:
    return server.ok("open", {"id": sid})["data"]


def turn_data(server: McpServer, tid: str) -> dict[str, Any]:
    return server.ok("open", {"id": tid})["data"]


def event_data(server: McpServer, eid: str) -> dict[str, Any]:
    return server.ok("open", {"id": eid})["data"]


def results(env: dict[str, Any]) -> list[dict[str, Any]]:
    return env["data"]["results"]


def search(server: McpServer, **args: Any) -> dict[str, Any]:
    return server.ok("search_sessions", args)


def find_event(server: McpServer, tid: str, type_: str, text: str | None = None) -> dict[str, Any]:
    """The first event row of a type in a turn (optionally whose full text equals `text`)."""
    for row in turn_data(server, tid)["events"]:
        if row["type"] == type_ and (text is None or event_data(server, row["id"])["content"]["text"] == text):
            return row
    raise AssertionError(f"no {type_} event in {tid}")


# --------------------------------------------------------------------------------------------
# Envelopes and canonical requests
# --------------------------------------------------------------------------------------------

ENVELOPE_KEYS = {"schema_version", "tool", "request", "data", "warnings", "performance"}
ERROR_KEYS = {"schema_version", "tool", "request", "error", "warnings", "performance"}


def test_success_envelopes_of_all_tools(server: McpServer, sids: dict[str, str]) -> None:
    for tool, args in (
        ("search_sessions", {"query": "pelican"}),
        ("list_sessions", dict(RANGE)),
        ("open", {"id": sids["S1"]}),
    ):
        env = server.ok(tool, args)
        assert set(env) >= ENVELOPE_KEYS and "error" not in env
        assert env["schema_version"] == f"moraine.mcp.{tool}.v1" and env["tool"] == tool
        assert env["warnings"] == [] or all(isinstance(w, str) for w in env["warnings"])


@pytest.mark.parametrize(
    "tool,args,code",
    [
        ("search_sessions", {"query": "   "}, "invalid_request"),
        (
            "search_sessions",
            {"query": "migration", "event_types": ["user_input", "debug_trace"]},
            "unsupported_event_type",
        ),
        ("search_sessions", {"query": "pelican", "within_id": "bogus"}, "invalid_id"),
        ("open", {"id": "not-a-valid-id"}, "invalid_id"),
        ("open", {"id": "event:evt_" + "b" * 26}, "not_found"),
        ("list_sessions", {"start_datetime": DAY_END, "end_datetime": DAY_START}, "invalid_request"),
    ],
)
def test_error_envelope_shape(server: McpServer, tool: str, args: dict[str, Any], code: str) -> None:
    result = server.raw(tool, args)
    assert result.is_error is False, "contract errors are in-band tool results, not isError"
    env = result.structured_content
    assert set(env) >= ERROR_KEYS and "data" not in env
    assert env["schema_version"] == "moraine.mcp.error.v1" and env["tool"] == tool
    assert env["request"] == args
    assert env["error"]["code"] == code
    assert isinstance(env["error"]["message"], str) and env["error"]["message"]
    assert isinstance(env["error"]["details"], dict)
    assert env["warnings"] == []
    assert set(env["performance"]) >= {"elapsed_ms", "sla_target_ms", "met_sla"}


def test_a_time_that_is_not_one_is_named_as_such(server: McpServer) -> None:
    """"not a date" is not a time missing its offset: the message says what a time looks like."""
    env = server.err("list_sessions", {"start_datetime": "not a date", "end_datetime": DAY_END}, "invalid_request")
    assert "is not a date" in env["error"]["message"] and env["error"]["details"]["field"] == "start_datetime"
    env = server.err("list_sessions", {"start_datetime": "2026-03-01T09:00:00", "end_datetime": DAY_END},
                     "invalid_request")
    assert "explicit timezone offset" in env["error"]["message"]
    # a space between the date and the time, as people write it, is a time (it was told it lacked its Z)
    spaced = server.ok("list_sessions", {"start_datetime": "2026-03-01 00:00:00Z", "end_datetime": DAY_END})
    assert spaced["request"]["start_datetime"] == "2026-03-01 00:00:00Z"
    env = server.err("list_sessions", {"start_datetime": "2026-03-01X09:00:00Z", "end_datetime": DAY_END},
                     "invalid_request")
    assert "separate the date and the time" in env["error"]["message"]


def test_an_error_quoting_a_huge_argument_stays_an_error_of_bounded_size(server: McpServer) -> None:
    """An unknown event type of 100,000 characters: the message quotes it cut, and the long error
    text is not re-rendered as a page of hits (a KeyError over the socket before)."""
    huge = "x" * 100_000
    env = server.err("search_sessions", {"query": "pelican", "event_types": [huge]}, "unsupported_event_type")
    assert len(env["error"]["message"]) <= 300 and env["error"]["message"].endswith("…")
    result = server.raw("search_sessions", {"query": "pelican", "event_types": [huge]})
    assert result.content[0].text.startswith("search_sessions error [unsupported_event_type]")
    for tool, args in (("search_sessions", {"query": huge}), ("open", {"id": huge}),
                       ("search_session_history", {"query": "x", "session_id": huge}),
                       ("search_session_history", {"query": "x", "session_id": "~/" + huge}),
                       ("search_sessions", {"query": "pelican", "event_types": ["x"] * 5000})):
        reply = server.raw(tool, args)  # the request is echoed cut: the error stays small
        assert len(json.dumps(reply.structured_content)) < 3000, (tool, len(json.dumps(reply.structured_content)))
        assert "error" in reply.structured_content and len(reply.content[0].text) < 1000


def test_search_request_is_canonicalized(server: McpServer) -> None:
    env = search(server, query="  \t pelican pouch \n ", within_id=None, event_types=None, n_hits=None)
    assert env["request"] == {"query": "pelican pouch", "within_id": None, "event_types": DEFAULT_TYPES, "n_hits": 10}
    env = search(server, query="pelican", event_types=["tool_response", "user_input", "tool_response", "reasoning"])
    assert env["request"]["event_types"] == ["user_input", "reasoning", "tool_response"]
    env = search(server, query="pelican", event_types=[*list(reversed(CANONICAL_TYPES)), "user_input"])
    assert env["request"]["event_types"] == CANONICAL_TYPES


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"query": None},
        {"query": 123},
        {"query": ["pelican"]},
        {"query": {"text": "pelican"}},
    ],
    ids=["missing", "null", "number", "list", "object"],
)
def test_query_must_be_a_string(server: McpServer, args: dict[str, Any]) -> None:
    env = server.err("search_sessions", args, "invalid_request", "query must be a non-empty string")
    assert env["error"]["details"]["field"] == "query"


@pytest.mark.parametrize("value", ["user_input", {"user_input": True}, 3])
def test_event_types_must_be_an_array(server: McpServer, value: Any) -> None:
    server.err("search_sessions", {"query": "pelican", "event_types": value}, "invalid_request")


@pytest.mark.parametrize("limit", [0, -1, 51, "5", 2.5, True])
def test_list_limit_bounds(server: McpServer, limit: Any) -> None:
    server.err("list_sessions", {**RANGE, "limit": limit}, "invalid_request")


def test_unknown_events_open_but_are_never_searched(server: McpServer, sids: dict[str, str]) -> None:
    turn_id = session_data(server, sids["S5"])["turns"][0]["id"]
    rows = [r for r in turn_data(server, turn_id)["events"] if r["type"] == "unknown"]
    assert len(rows) == 1
    data = event_data(server, rows[0]["id"])
    assert data["event"]["type"] == "unknown" and data["content"]["truncated"] is False
    assert search(server, query="tapir")["data"]["results"] == []
    server.err("search_sessions", {"query": "tapir", "event_types": ["unknown"]}, "unsupported_event_type")


def test_query_length_limit(server: McpServer) -> None:
    longest = ("pelican pouch " * 400)[:4096]
    assert len(longest) == 4096
    env = search(server, query=longest)
    assert env["data"]["result_count"] > 0
    server.err("search_sessions", {"query": longest + "x"}, "invalid_request")


def test_list_request_is_canonicalized(server: McpServer) -> None:
    env = server.ok("list_sessions", {**RANGE, "limit": None, "cursor": None, "mode": None, "sort": None})
    assert env["request"] == {**RANGE, "limit": 20, "cursor": None, "mode": None, "sort": "desc"}


@pytest.mark.parametrize(
    "kind,expected",
    [
        ("search_global", 750),
        ("search_turn", 300),
        ("search_session", 500),
        ("open_event", 200),
        ("open_turn", 300),
        ("open_session", 500),
        ("list_typical", 300),
    ],
)
def test_sla_targets(server: McpServer, sids: dict[str, str], kind: str, expected: int) -> None:
    turn_id = session_data(server, sids["S2"])["turns"][0]["id"]
    event_id = turn_data(server, turn_id)["events"][0]["id"]
    calls = {
        "search_global": ("search_sessions", {"query": "narwhal"}),
        "search_turn": ("search_sessions", {"query": "narwhal", "within_id": turn_id}),
        "search_session": ("search_sessions", {"query": "narwhal", "within_id": sids["S2"]}),
        "open_event": ("open", {"id": event_id}),
        "open_turn": ("open", {"id": turn_id}),
        "open_session": ("open", {"id": sids["S2"]}),
        "list_typical": ("list_sessions", dict(RANGE)),
    }
    tool, args = calls[kind]
    perf = server.ok(tool, args)["performance"]
    assert perf["sla_target_ms"] == expected
    assert perf["met_sla"] == (perf["elapsed_ms"] <= expected)


@pytest.mark.parametrize(
    "args",
    [
        {**RANGE, "limit": 1},
        {**RANGE, "limit": 2, "sort": "asc"},
        {**RANGE, "limit": 1, "mode": "chat"},
    ],
    ids=["limit1", "limit2-asc", "limit1-mode-chat"],
)
def test_list_sla_is_typical_for_a_small_window_with_more_pages(server: McpServer, args: dict[str, Any]) -> None:
    """A one-day window with five matching sessions is a "typical window, <= 5k matching sessions":
    the advertised target is 300 ms whether or not the caller pages through it with a small limit."""
    env = server.ok("list_sessions", args)
    assert env["data"]["truncated"] is True
    assert env["performance"]["sla_target_ms"] == 300


def test_every_timestamp_is_rfc3339_utc(server: McpServer, sids: dict[str, str]) -> None:
    envelopes = [
        search(server, query="pelican narwhal albatross wombat", n_hits=50),
        server.ok("list_sessions", dict(RANGE)),
    ]
    for sid in sids.values():
        s = session_data(server, sid)
        envelopes.append({"data": s})
        for t in s["turns"]:
            td = turn_data(server, t["id"])
            envelopes.append({"data": td})
            envelopes.append({"data": event_data(server, td["events"][0]["id"])})
    stamps = [v for env in envelopes for _, v in walk_timestamps(env["data"])]
    assert stamps
    bad = [v for v in stamps if not (isinstance(v, str) and TS_RE.match(v))]
    assert not bad, bad[:5]


# --------------------------------------------------------------------------------------------
# Ranking, scores, n_hits
# --------------------------------------------------------------------------------------------


def _check_ranked(env: dict[str, Any]) -> None:
    hits = results(env)
    assert env["data"]["result_count"] == len(hits) <= env["data"]["limit"]
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    for h in hits:
        assert isinstance(h["score"], int | float) and not isinstance(h["score"], bool)
        assert 0.0 <= h["score"] <= 1.0
        assert h["id"] == h["event"]["id"] == h["open"]["event_id"]
        assert h["turn"]["id"] == h["open"]["turn_id"] and h["session"]["id"] == h["open"]["session_id"]
        assert h["event"]["ordinal"] >= 1 and h["turn"]["ordinal"] >= 1
        assert h["event"]["ordinal"] <= h["turn"]["event_count"]
    for a, b in itertools.pairwise(hits):
        assert a["score"] >= b["score"], (a["score"], b["score"])
        if a["score"] == b["score"]:
            assert a["event"]["timestamp"] >= b["event"]["timestamp"]
            if a["event"]["timestamp"] == b["event"]["timestamp"]:
                assert a["id"] < b["id"]


@pytest.mark.parametrize(
    "query,types",
    [
        ("pelican", None),
        ("pelican pouch fish", None),
        ("narwhal lint errors", None),
        ("albatross", None),
        ("cormorant", None),
        ("narwhal", CANONICAL_TYPES),
        ("ClickHouse schema migration failure", CANONICAL_TYPES),
    ],
)
def test_ranking_order_and_scores(server: McpServer, query: str, types: list[str] | None) -> None:
    env = search(server, query=query, event_types=types, n_hits=50)
    assert results(env), query
    _check_ranked(env)


def test_equal_scores_and_timestamps_break_ties_by_event_id(server: McpServer) -> None:
    env = search(server, query="cormorant", n_hits=50)
    hits = results(env)
    assert len(hits) == 2
    assert hits[0]["score"] == hits[1]["score"]
    assert hits[0]["event"]["timestamp"] == hits[1]["event"]["timestamp"]
    assert hits[0]["id"] < hits[1]["id"]
    for h in hits:
        assert event_data(server, h["id"])["content"]["text"] == S4_TWIN


def test_ranking_is_stable(server: McpServer) -> None:
    first = results(search(server, query="pelican", n_hits=50))
    second = results(search(server, query="pelican", n_hits=50))
    assert first == second


def test_full_matches_outrank_partial_matches(server: McpServer) -> None:
    hits = results(search(server, query="narwhal lint errors", n_hits=50))
    both = {
        h["id"]
        for h in hits
        if h["snippet"]["text"].lower().count("lint") and "narwhal" in h["snippet"]["text"].lower()
    }
    assert both
    assert hits[0]["id"] in both


@pytest.mark.parametrize(
    "n_hits,count,truncated",
    [
        (1, 1, True),
        (12, 12, True),
        (15, 15, True),
        (16, 16, False),
        (17, 16, False),
        (50, 16, False),
    ],
)
def test_n_hits_is_honoured_exactly(server: McpServer, n_hits: int, count: int, truncated: bool) -> None:
    env = search(server, query="pelican", n_hits=n_hits)
    data = env["data"]
    assert env["request"]["n_hits"] == data["limit"] == n_hits
    assert data["result_count"] == len(data["results"]) == count
    assert data["truncated"] is truncated
    assert data["result_count"] <= data["limit"]


def test_n_hits_pages_are_prefixes(server: McpServer) -> None:
    full = [h["id"] for h in results(search(server, query="pelican", n_hits=50))]
    top12 = [h["id"] for h in results(search(server, query="pelican", n_hits=12))]
    assert top12 == full[:12]


def test_empty_result_is_success(server: McpServer) -> None:
    env = search(server, query="zeppelinwhisk")
    assert env["data"] == {"result_count": 0, "limit": 10, "truncated": False, "results": []}


# --------------------------------------------------------------------------------------------
# Scope
# --------------------------------------------------------------------------------------------


def test_session_scope_never_leaves_the_session(server: McpServer, sids: dict[str, str]) -> None:
    env = search(server, query="pelican", within_id=sids["S4"], n_hits=50)
    assert env["data"]["result_count"] == 2 * S4_TURNS
    assert {h["session"]["id"] for h in results(env)} == {sids["S4"]}
    # a session-scoped search returns nothing from another session, even for a word found globally
    env = search(server, query="pelican narwhal albatross", within_id=sids["S2"], n_hits=50)
    assert results(env) and {h["session"]["id"] for h in results(env)} == {sids["S2"]}


def test_turn_scope_never_leaves_the_turn(server: McpServer, sids: dict[str, str]) -> None:
    turns = session_data(server, sids["S4"])["turns"]
    for turn in turns[:S4_TURNS]:
        env = search(server, query="pelican", within_id=turn["id"], n_hits=50)
        assert env["data"]["result_count"] == 2
        assert {h["turn"]["id"] for h in results(env)} == {turn["id"]}
        assert {h["session"]["id"] for h in results(env)} == {sids["S4"]}


def test_scoped_search_without_matches_is_empty_success(server: McpServer, sids: dict[str, str]) -> None:
    env = search(server, query="pelican", within_id=sids["S1"])
    assert env["data"]["results"] == [] and env["data"]["result_count"] == 0
    last_turn = session_data(server, sids["S4"])["turns"][-1]["id"]
    env = search(server, query="pelican", within_id=last_turn)
    assert env["data"]["results"] == [] and env["data"]["truncated"] is False


# --------------------------------------------------------------------------------------------
# Event-type filters
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "word,only_type",
    [
        ("xylophonic", "reasoning"),  # Codex reasoning summary
        ("marmalade", "reasoning"),  # Claude thinking block
        ("ocelotscript", "tool_call"),  # Codex function_call arguments
        ("approval_policy", "system"),  # Codex injected <environment_context>
        ("capybara", "compaction"),  # Codex compacted summary
    ],
)
def test_default_types_exclude_non_default_events(server: McpServer, word: str, only_type: str) -> None:
    env = search(server, query=word)
    assert env["data"]["results"] == [], f"{word} lives only in a {only_type} event"
    env = search(server, query=word, event_types=[only_type])
    assert env["data"]["result_count"] >= 1
    assert {h["event"]["type"] for h in results(env)} == {only_type}
    env = search(server, query=word, event_types=CANONICAL_TYPES)
    assert {h["event"]["type"] for h in results(env)} == {only_type}


@pytest.mark.parametrize(
    "types",
    [
        ["user_input"],
        ["assistant_response"],
        ["tool_response"],
        ["tool_call"],
        ["reasoning"],
        ["tool_call", "tool_response"],
    ],
)
def test_explicit_event_types_are_honoured_exactly(server: McpServer, types: list[str]) -> None:
    env = search(server, query="narwhal", event_types=types, n_hits=50)
    assert env["request"]["event_types"] == [t for t in CANONICAL_TYPES if t in types]
    assert results(env)
    assert {h["event"]["type"] for h in results(env)} == set(types)


# --------------------------------------------------------------------------------------------
# Snippets and full content
# --------------------------------------------------------------------------------------------


def _big_hit(server: McpServer, word: str) -> dict[str, Any]:
    hits = [h for h in results(search(server, query=word, n_hits=50)) if h["event"]["type"] == "assistant_response"]
    assert len(hits) == 1
    return hits[0]


def test_snippet_of_a_large_event_is_compact(server: McpServer) -> None:
    assert len(S3_FINAL) > 5000
    hit = _big_hit(server, "albatross")
    assert len(hit["snippet"]["text"]) <= SNIPPET_MAX
    assert hit["snippet"]["truncated"] is True
    assert "albatross" in hit["snippet"]["text"].lower()


def test_snippet_is_centred_on_the_match(server: McpServer) -> None:
    hit = _big_hit(server, S3_TAIL_WORD)
    assert S3_TAIL_WORD in hit["snippet"]["text"]
    assert len(hit["snippet"]["text"]) <= SNIPPET_MAX and hit["snippet"]["truncated"] is True


def test_every_snippet_is_compact(server: McpServer) -> None:
    env = search(
        server, query="albatross pelican narwhal lint ClickHouse quokka heron", n_hits=50, event_types=CANONICAL_TYPES
    )
    for h in results(env):
        assert len(h["snippet"]["text"]) <= SNIPPET_MAX
        assert isinstance(h["snippet"]["truncated"], bool)


def test_short_snippet_is_not_truncated(server: McpServer) -> None:
    hits = [h for h in results(search(server, query="heron")) if h["event"]["type"] == "user_input"]
    assert len(hits) == 1
    assert hits[0]["snippet"] == {"text": "Quick question about the heron nesting season.", "truncated": False}


def test_open_event_returns_the_full_payload(server: McpServer) -> None:
    hit = _big_hit(server, "albatross")
    data = event_data(server, hit["id"])
    assert data["content"]["text"] == S3_FINAL
    assert data["content"]["truncated"] is False
    assert data["content"]["format"] == "text"
    assert data["event"]["type"] == "assistant_response"


def test_turn_and_session_views_summarize_large_events(server: McpServer) -> None:
    hit = _big_hit(server, "albatross")
    turn = turn_data(server, hit["turn"]["id"])
    row = next(e for e in turn["events"] if e["id"] == hit["id"])
    assert len(row["summary"]) <= SUMMARY_MAX and row["truncated"] is True
    final = turn["summary"]["final_response"]
    assert final["event_id"] == hit["id"] and len(final["text"]) <= SUMMARY_MAX and final["truncated"] is True
    session = session_data(server, hit["session"]["id"])
    assert len(session["turns"][0]["final_response"]["text"]) <= SUMMARY_MAX
    assert session["turns"][0]["final_response"]["truncated"] is True
    assert session["turns"][0]["user_input"] == {
        "event_id": session["turns"][0]["user_input"]["event_id"],
        "text": S3_PROMPT,
        "truncated": False,
    }
    # the full payload is nowhere in the turn or session view
    assert S3_FINAL not in json.dumps(turn, ensure_ascii=False)
    assert S3_FINAL not in json.dumps(session, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Tool calls and tool responses
# --------------------------------------------------------------------------------------------


def test_codex_tool_call_and_response(server: McpServer, sids: dict[str, str]) -> None:
    turn1 = session_data(server, sids["S1"])["turns"][0]["id"]
    call = event_data(server, find_event(server, turn1, "tool_call")["id"])
    assert call["event"]["tool_name"] == "exec_command"
    assert call["content"]["format"] == "tool_call"
    assert call["content"]["tool_name"] == "exec_command"
    assert call["content"]["arguments"] == S1_CALL1_ARGS
    assert call["content"]["truncated"] is False
    out = event_data(server, find_event(server, turn1, "tool_response")["id"])
    assert out["event"]["tool_name"] == "exec_command"
    assert out["content"]["format"] == "tool_response"
    assert out["content"]["tool_name"] == "exec_command"
    assert out["content"]["exit_code"] == 101
    assert out["content"]["text"] == S1_OUTPUT1
    assert out["content"]["truncated"] is False


def test_codex_custom_tool_output_exit_code_from_metadata(server: McpServer, sids: dict[str, str]) -> None:
    turn2 = session_data(server, sids["S1"])["turns"][1]["id"]
    call = event_data(server, find_event(server, turn2, "tool_call")["id"])
    assert call["content"]["tool_name"] == "apply_patch"
    out = event_data(server, find_event(server, turn2, "tool_response")["id"])
    assert out["content"]["tool_name"] == "apply_patch"
    assert out["content"]["exit_code"] == 0


def test_claude_tool_call_and_response(server: McpServer, sids: dict[str, str]) -> None:
    turn1 = session_data(server, sids["S2"])["turns"][0]["id"]
    rows = turn_data(server, turn1)["events"]
    calls = [r for r in rows if r["type"] == "tool_call"]
    outs = [r for r in rows if r["type"] == "tool_response"]
    assert [r["tool_name"] for r in calls] == ["WebSearch", "Bash"]
    assert [r["tool_name"] for r in outs] == ["WebSearch", "Bash"]
    bash_call = event_data(server, calls[1]["id"])
    assert bash_call["content"]["arguments"] == {"command": "make lint", "description": "Run linter"}
    bash_out = event_data(server, outs[1]["id"])
    assert bash_out["content"]["tool_name"] == "Bash"
    assert bash_out["content"]["exit_code"] == 2
    assert bash_out["content"]["text"] == S2_LINT_OUTPUT


def test_turn_summaries_list_tools_and_types_first_seen(server: McpServer, sids: dict[str, str]) -> None:
    session = session_data(server, sids["S2"])
    first = session["turns"][0]
    assert first["tools_called"] == ["WebSearch", "Bash"]
    turn = turn_data(server, first["id"])
    seen: list[str] = []
    for row in turn["events"]:
        if row["type"] not in seen:
            seen.append(row["type"])
    assert turn["summary"]["event_types"] == seen == first["event_types"]
    assert turn["summary"]["tools_called"] == first["tools_called"]
    assert session["turns"][1]["tools_called"] == []
    for row in turn["events"]:
        if row["type"] not in ("tool_call", "tool_response"):
            assert row["tool_name"] is None


# --------------------------------------------------------------------------------------------
# list_sessions semantics
# --------------------------------------------------------------------------------------------


def _listed(server: McpServer, start: str, end: str, **extra: Any) -> list[str]:
    env = server.ok("list_sessions", {"start_datetime": start, "end_datetime": end, "limit": 50, **extra})
    return [item["id"] for item in env["data"]["sessions"]]


@pytest.mark.parametrize(
    "start,end,expected",
    [
        # updated_at == start is inside (inclusive start); started_at == end is outside (exclusive end)
        ("2026-03-10T09:20:00Z", "2026-03-10T10:00:00Z", ["S1"]),
        ("2026-03-10T09:20:00.001Z", "2026-03-10T10:00:00.001Z", ["S2"]),
        ("2026-03-10T05:20:00-04:00", "2026-03-10T06:00:00-04:00", ["S1"]),
        ("2026-03-10T18:20:00+09:00", "2026-03-10T19:00:00+09:00", ["S1"]),
        ("2026-03-10T09:10:00Z", "2026-03-10T09:11:00Z", ["S1"]),  # window inside a session
        ("2026-03-10T10:30:00Z", "2026-03-10T11:00:00Z", ["S2"]),
        ("2026-03-10T11:05:00Z", "2026-03-10T11:05:00.001Z", ["S3", "S5"]),
        ("2026-03-10T11:05:00.001Z", "2026-03-10T12:00:00Z", []),
        ("2026-03-10T12:44:59.999Z", "2026-03-10T12:45:00.001Z", ["S4"]),
        ("2026-03-09T00:00:00Z", "2026-03-10T00:00:00Z", []),
        ("2026-03-10T12:45:00.001Z", "2026-03-11T00:00:00Z", []),
    ],
)
def test_list_overlap_and_boundaries(
    server: McpServer, sids: dict[str, str], start: str, end: str, expected: list[str]
) -> None:
    assert sorted(_listed(server, start, end)) == sorted(sids[name] for name in expected)


def test_list_sort_orders(server: McpServer) -> None:
    asc = server.ok("list_sessions", {**RANGE, "sort": "asc"})["data"]["sessions"]
    desc = server.ok("list_sessions", {**RANGE, "sort": "desc"})["data"]["sessions"]
    asc_keys = [(i["session"]["updated_at"], i["id"]) for i in asc]
    assert asc_keys == sorted(asc_keys)
    assert [i["id"] for i in desc] == [i["id"] for i in reversed(asc)]
    assert [i["rank"] for i in asc] == [1, 2, 3, 4, 5]
    # two sessions share updated_at: the ID decides, deterministically
    tie = [k for k in asc_keys if k[0] == "2026-03-10T11:05:00.000Z"]
    assert len(tie) == 2 and tie[0][1] < tie[1][1]


@pytest.mark.parametrize(
    "limit,sort,mode",
    [
        (1, "desc", None),
        (2, "desc", None),
        (1, "asc", None),
        (2, "asc", None),
        (3, "asc", None),
        (1, "desc", "chat"),
        (2, "asc", "chat"),
    ],
)
def test_cursor_pagination_visits_every_session_once(
    server: McpServer, limit: int, sort: str, mode: str | None
) -> None:
    base = {**RANGE, "sort": sort, "mode": mode}
    unpaged = [i["id"] for i in server.ok("list_sessions", {**base, "limit": 50})["data"]["sessions"]]
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        env = server.ok("list_sessions", {**base, "limit": limit, "cursor": cursor})
        data = env["data"]
        pages += 1
        assert data["result_count"] == len(data["sessions"]) <= limit
        seen.extend(i["id"] for i in data["sessions"])
        cursor = data["next_cursor"]
        assert data["truncated"] is (cursor is not None)
        if cursor is None:
            break
        assert pages < 20, "pagination does not terminate"
    assert seen == unpaged
    assert len(seen) == len(set(seen))
    assert pages >= 2
    assert pages == -(-len(unpaged) // limit)


def test_list_items_carry_compact_metadata_only(server: McpServer, sids: dict[str, str], corpus: Any) -> None:
    env = server.ok("list_sessions", dict(RANGE))
    dumped = json.dumps(env, ensure_ascii=False)
    for text in (S3_FINAL[:200], S3_MARKER, S1_FINAL1, S2_FINAL1, S1_OUTPUT1[:40], S2_LINT_OUTPUT):
        assert text not in dumped

    forbidden = {"snippet", "content", "events", "turns", "text", "user_input", "final_response", "results"}

    def keys(node: Any) -> set[str]:
        if isinstance(node, dict):
            return set(node) | {k for v in node.values() for k in keys(v)}
        if isinstance(node, list):
            return {k for v in node for k in keys(v)}
        return set()

    assert not keys(env["data"]) & forbidden
    by_id = {v: k for k, v in sids.items()}
    for item in env["data"]["sessions"]:
        s = item["session"]
        assert item["id"] == s["id"] == item["open"]["session_id"]
        assert set(s) >= {
            "id",
            "title",
            "source",
            "started_at",
            "updated_at",
            "completed",
            "turn_count",
            "event_count",
            "mode",
        }
        started, updated, mode, turn_count = corpus.sessions[by_id[item["id"]]]
        assert (s["started_at"], s["updated_at"], s["mode"], s["turn_count"]) == (started, updated, mode, turn_count)
        assert s["source"] == ("codex" if by_id[item["id"]] in ("S1", "S3") else "claude-code")
        assert s["completed"] is (by_id[item["id"]] != "S1")


# --------------------------------------------------------------------------------------------
# Completion and terminal status
# --------------------------------------------------------------------------------------------


def test_completed_turn(server: McpServer, sids: dict[str, str]) -> None:
    session = session_data(server, sids["S1"])
    t1 = session["turns"][0]
    assert t1["completed"] is True
    assert t1["terminal_event_id"] is not None
    assert t1["open"]["terminal_event_id"] == t1["terminal_event_id"]
    assert t1["final_response"]["event_id"] == t1["terminal_event_id"]
    assert t1["final_response"]["text"] == S1_FINAL1
    assert t1["user_input"]["text"] == S1_PROMPT1
    turn = turn_data(server, t1["id"])
    assert turn["turn"]["completed"] is True and turn["turn"]["terminal_event_id"] == t1["terminal_event_id"]
    terminals = [e["id"] for e in turn["events"] if e["terminal"]]
    assert terminals == [t1["terminal_event_id"]]
    final = event_data(server, t1["terminal_event_id"])
    assert final["event"]["terminal"] is True and final["event"]["type"] == "assistant_response"
    assert final["content"]["text"] == S1_FINAL1
    assert final["turn"]["completed"] is True


def test_incomplete_turn_invents_nothing(server: McpServer, sids: dict[str, str]) -> None:
    session = session_data(server, sids["S1"])
    assert session["session"]["completed"] is False
    t3 = session["turns"][2]
    assert t3["ordinal"] == 3
    assert t3["completed"] is False
    assert t3["terminal_event_id"] is None and t3["open"]["terminal_event_id"] is None
    assert t3["final_response"] is None
    assert t3["user_input"]["text"] == S1_PROMPT3
    turn = turn_data(server, t3["id"])
    assert turn["turn"]["completed"] is False and turn["turn"]["terminal_event_id"] is None
    assert turn["summary"]["final_response"] is None
    assert [e["type"] for e in turn["events"]] == ["user_input", "tool_call"]
    assert not any(e["terminal"] for e in turn["events"])
    assert turn["traversal"]["next_turn_id"] is None
    hit = results(search(server, query="wombat"))
    assert len(hit) == 1
    assert hit[0]["turn"]["completed"] is False and hit[0]["event"]["terminal"] is False
    assert hit[0]["session"]["completed"] is False
    assert event_data(server, hit[0]["id"])["turn"]["completed"] is False


@pytest.mark.parametrize("name", ["S1", "S3"])
def test_codex_mirrored_messages_are_one_event(server: McpServer, sids: dict[str, str], name: str) -> None:
    """A Codex prompt or reply written as response_item + event_msg mirror (either order) is one event."""
    for turn in session_data(server, sids[name])["turns"]:
        rows = turn_data(server, turn["id"])["events"]
        texts = [(r["type"], r["summary"]) for r in rows if r["type"] in ("user_input", "assistant_response")]
        assert len(texts) == len(set(texts)), texts
        assert [r["type"] for r in rows].count("user_input") == 1


def test_completed_sessions(server: McpServer, sids: dict[str, str]) -> None:
    for name in ("S2", "S3", "S4", "S5"):
        session = session_data(server, sids[name])
        assert session["session"]["completed"] is True, name
        assert all(t["completed"] for t in session["turns"]), name
        for t in session["turns"]:
            assert t["terminal_event_id"] is not None
    s2 = session_data(server, sids["S2"])
    assert s2["turns"][0]["final_response"]["text"] == S2_FINAL1
    assert s2["turns"][0]["terminal_event_id"] == s2["turns"][0]["final_response"]["event_id"]


def test_search_hit_metadata_matches_open(server: McpServer) -> None:
    for h in results(search(server, query="narwhal pelican quokka wombat", n_hits=50)):
        ev = event_data(server, h["id"])
        assert ev["event"]["ordinal"] == h["event"]["ordinal"]
        assert ev["event"]["type"] == h["event"]["type"]
        assert ev["event"]["timestamp"] == h["event"]["timestamp"]
        assert ev["event"]["terminal"] == h["event"]["terminal"]
        turn = turn_data(server, h["turn"]["id"])["turn"]
        assert (turn["ordinal"], turn["completed"], turn["event_count"]) == (
            h["turn"]["ordinal"],
            h["turn"]["completed"],
            h["turn"]["event_count"],
        )
        session = session_data(server, h["session"]["id"])["session"]
        for key in ("id", "title", "source", "started_at", "updated_at", "completed"):
            assert session[key] == h["session"][key], key
