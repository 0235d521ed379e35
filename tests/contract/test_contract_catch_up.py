"""Catch-up: lines appended to the logs while `moraine mcp` runs are searchable on the next call,
and IDs returned before the append stay valid. Each test here changes the corpus, so this module
has its own corpus and server (module-scoped), and the tests run in file order."""

from __future__ import annotations

import json
from typing import Any

import pytest
from contract_harness import (
    DAY_END,
    DAY_START,
    Claude,
    Corpus,
    McpServer,
    cx_assistant,
    cx_complete,
    cx_header,
    cx_output,
    cx_user,
    write_jsonl,
)


@pytest.fixture(scope="module")
def corpus(own_corpus: Corpus) -> Corpus:
    return own_corpus


@pytest.fixture(scope="module")
def server(own_server: McpServer) -> McpServer:
    return own_server


@pytest.fixture(scope="module")
def sids(own_sids: dict[str, str]) -> dict[str, str]:
    return own_sids


def hits(server: McpServer, query: str, **extra: Any) -> list[dict[str, Any]]:
    return server.ok("search_sessions", {"query": query, "n_hits": 50, **extra})["data"]["results"]


def test_appended_claude_turn_is_found(server: McpServer, corpus: Corpus, sids: dict[str, str]) -> None:
    before = server.ok("open", {"id": sids["S2"]})["data"]
    first_event = server.ok("open", {"id": before["turns"][0]["id"]})["data"]["events"][0]["id"]
    first_event_before = server.ok("open", {"id": first_event})["data"]
    assert hits(server, "kookaburra") == []

    sid2 = "7c666c01-d38e-4658-8650-0000000000b2"
    tail = Claude(sid2, "/repo/beta")
    tail.n = 100
    tail.user("2026-03-10T14:00:00.000Z", "Tell me why the kookaburra laughs at dawn.")
    tail.assistant(
        "2026-03-10T14:00:05.000Z",
        [{"type": "text", "text": "The kookaburra laugh is a territorial call."}],
        "end_turn",
        "msg_k1",
    )
    write_jsonl(corpus.files["S2"], tail.records, mode="a")

    found = hits(server, "kookaburra")
    assert {h["event"]["type"] for h in found} == {"user_input", "assistant_response"}
    assert {h["session"]["id"] for h in found} == {sids["S2"]}
    assert {h["turn"]["ordinal"] for h in found} == {3}
    assert all(h["turn"]["completed"] for h in found)

    after = server.ok("open", {"id": sids["S2"]})["data"]
    assert after["session"]["turn_count"] == 3
    assert after["session"]["updated_at"] == "2026-03-10T14:00:05.000Z"
    assert [t["id"] for t in after["turns"][:2]] == [t["id"] for t in before["turns"]]
    # IDs handed out before the append still open to the same event
    assert server.ok("open", {"id": first_event})["data"] == first_event_before
    listed = server.ok("list_sessions", {"start_datetime": "2026-03-10T13:59:00Z", "end_datetime": DAY_END})
    assert [i["id"] for i in listed["data"]["sessions"]] == [sids["S2"]]


def test_incomplete_codex_turn_completes_and_new_turn_is_found(
    server: McpServer, corpus: Corpus, sids: dict[str, str]
) -> None:
    session = server.ok("open", {"id": sids["S1"]})["data"]
    assert session["session"]["completed"] is False and session["turns"][2]["completed"] is False
    assert hits(server, "dingo") == []

    write_jsonl(
        corpus.files["S1"],
        [
            cx_output("2026-03-10T15:00:01.000Z", "call_a3", "Exit code: 0\nOutput:\nmonitor: running\n"),
            *cx_assistant("2026-03-10T15:00:02.000Z", "The wombat monitor is running."),
            cx_complete("2026-03-10T15:00:02.500Z", "The wombat monitor is running."),
            *cx_user("2026-03-10T15:10:00.000Z", "Does the dingo exporter need a restart too?"),
        ],
        mode="a",
    )

    found = hits(server, "dingo")
    assert len(found) == 1 and found[0]["event"]["type"] == "user_input"
    assert found[0]["session"]["id"] == sids["S1"] and found[0]["turn"]["ordinal"] == 4
    assert found[0]["turn"]["completed"] is False and found[0]["session"]["completed"] is False

    session = server.ok("open", {"id": sids["S1"]})["data"]
    assert session["session"]["turn_count"] == 4
    t3 = session["turns"][2]
    assert t3["completed"] is True and t3["final_response"]["text"] == "The wombat monitor is running."
    assert t3["terminal_event_id"] == t3["final_response"]["event_id"]
    out = [h for h in hits(server, "monitor running", event_types=["tool_response"]) if h["turn"]["id"] == t3["id"]]
    assert len(out) == 1
    content = server.ok("open", {"id": out[0]["id"]})["data"]["content"]
    assert content["tool_name"] == "exec_command" and content["exit_code"] == 0


def test_new_log_file_is_found(server: McpServer, corpus: Corpus) -> None:
    assert hits(server, "bilby") == []
    sid = "0195a1b2-0000-7000-8000-00000000f006"
    path = corpus.codex_home / "sessions/2026/03/10" / f"rollout-2026-03-10T16-00-00-{sid}.jsonl"
    write_jsonl(
        path,
        [
            *cx_header("2026-03-10T16:00:00.000Z", sid, "/repo/zeta"),
            *cx_user("2026-03-10T16:00:01.000Z", "Plan a bilby habitat survey."),
            *cx_assistant("2026-03-10T16:00:09.000Z", "The bilby survey plan covers three burrow sites."),
            cx_complete("2026-03-10T16:00:09.500Z", "The bilby survey plan covers three burrow sites."),
        ],
    )
    found = hits(server, "bilby")
    assert len(found) == 2 and {h["session"]["source"] for h in found} == {"codex"}
    new_sid = found[0]["session"]["id"]
    listed = server.ok("list_sessions", {"start_datetime": DAY_START, "end_datetime": DAY_END, "limit": 50})
    assert new_sid in [i["id"] for i in listed["data"]["sessions"]]
    assert listed["data"]["result_count"] == 6
    assert server.ok("open", {"id": new_sid})["data"]["session"]["completed"] is True


def test_partial_line_waits_for_its_newline(server: McpServer, corpus: Corpus, sids: dict[str, str]) -> None:
    tail = Claude("7c666c01-d38e-4658-8650-0000000000e5", "/repo/epsilon")
    tail.n = 200
    tail.user("2026-03-10T17:00:00.000Z", "Where does the numbat sleep?")
    line = json.dumps(tail.records[0], separators=(",", ":"))
    half = len(line) // 2
    with corpus.files["S5"].open("a", encoding="utf-8") as handle:
        handle.write(line[:half])
    env = server.ok("search_sessions", {"query": "numbat"})
    assert env["data"]["results"] == []
    with corpus.files["S5"].open("a", encoding="utf-8") as handle:
        handle.write(line[half:] + "\n")
    found = hits(server, "numbat")
    assert len(found) == 1 and found[0]["session"]["id"] == sids["S5"]
    assert found[0]["turn"]["ordinal"] == 2 and found[0]["turn"]["completed"] is False
