"""search_session_history (a history tool) through a real MCP client over `moraine mcp`:
the six cases its specification lists, translated to Moraine's model (a session's transcript is its events'
text, line by line), plus the pathological pattern, CJK text, a match deep in a 300 KB tool
output with its context, and searched_sessions for one and for all sessions."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_harness import Claude, Corpus, McpServer, write_jsonl

TEXTS = {
    "t1": "ERROR: Connection refused\nERROR: Timeout",
    "t3": "Line 1\nLine 2\nERROR\nLine 4\nLine 5",
    "t4": "ERROR: 404\nERROR: 500\nINFO: 200",
    "t5": "\n".join(f"ERROR {i}" for i in range(50)),
    "t6": "nothing to see here",
    "cjk": "データベースの移行に失敗しました\n接続がタイムアウトしました",
    "long": "a" * 1_000_000 + "b",
}
BIG = "".join(f"row {i:06d} ok\n" for i in range(25_000)).replace("row 012345 ok", "row 012345 FATAL disk full")


def _session(root: Path, n: int, name: str, text: str) -> None:
    sid = f"7c666c01-d38e-4658-8650-0000000d{n:04d}"
    log = Claude(sid, f"/w/{name}")
    log.user(f"2026-03-2{n % 9}T10:00:00.000Z", f"please check the {name} output")
    log.assistant(f"2026-03-2{n % 9}T10:00:01.000Z", [{"type": "tool_use", "id": f"tu_{n}", "name": "Bash",
                                                       "input": {"command": f"cat {name}.log"}}], "tool_use", f"m{n}")
    log.tool_result(f"2026-03-2{n % 9}T10:00:02.000Z", f"tu_{n}", text, False)
    log.assistant(f"2026-03-2{n % 9}T10:00:03.000Z", [{"type": "text", "text": f"done with {name}"}], "end_turn",
                  f"m{n}b")
    write_jsonl(root / "claude/projects" / f"-w-{name}" / f"{sid}.jsonl", log.records)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[McpServer, dict[str, str]]]:
    root = tmp_path_factory.mktemp("history")
    corpus = Corpus(root, root / "codex", root / "claude", root / "moraine-home")
    corpus.moraine_home.mkdir()
    (root / "codex" / "sessions").mkdir(parents=True)
    for n, (name, text) in enumerate([*TEXTS.items(), ("big", BIG)]):
        _session(root, n, name, text)
    server = McpServer(corpus)
    sessions = {}
    for item in server.ok("list_sessions", {"start_datetime": "2026-03-01T00:00:00Z",
                                            "end_datetime": "2026-04-01T00:00:00Z", "limit": 50})["data"]["sessions"]:
        sessions[item["session"]["cwd"].rsplit("/", 1)[-1]] = item["id"]
    try:
        yield server, sessions
    finally:
        server.close()


def _call(server: McpServer, args: dict[str, Any]) -> dict[str, Any]:
    result = server.raw("search_session_history", args)
    assert result.is_error is False and result.content[0].text
    return result.structured_content


def test_1_search_single_session(history: tuple[McpServer, dict[str, str]]) -> None:
    server, ids = history
    data = _call(server, {"session_id": ids["t1"], "query": "ERROR", "context_lines": 0})
    assert data["total_matches"] == 2 and len(data["matches"]) == 2
    assert [m["matched_text"] for m in data["matches"]] == ["ERROR: Connection refused", "ERROR: Timeout"]
    first = data["matches"][0]
    assert first["session_id"] == ids["t1"] and first["context_before"] == first["context_after"] == []
    # line numbers count the transcript: prompt (1), tool call (2: name + command), then the output
    assert [m["line_number"] for m in data["matches"]] == [4, 5]
    opened = server.ok("open", {"id": first["event_id"]})["data"]
    assert "ERROR: Connection refused" in opened["content"]["text"]
    assert first["timestamp"] == opened["event"]["timestamp"]
    assert data["searched_sessions"] == [ids["t1"]] and data["searched_sessions_total"] == 1


def test_2_search_all_sessions(history: tuple[McpServer, dict[str, str]]) -> None:
    server, ids = history
    data = _call(server, {"session_id": None, "query": "connection refused"})
    assert data["total_matches"] == 0  # case matters, as in grep
    data = _call(server, {"session_id": None, "query": "(?i)connection refused"})
    assert data["total_matches"] == 1 and len(data["searched_sessions"]) > 0
    assert data["searched_sessions_total"] == len(ids)  # no literal (case-insensitive): every session read
    data = _call(server, {"query": "Connection refused"})
    assert data["total_matches"] == 1 and data["searched_sessions_total"] == len(ids)  # every transcript read


def test_3_context_lines(history: tuple[McpServer, dict[str, str]]) -> None:
    server, ids = history
    match = _call(server, {"session_id": ids["t3"], "query": "^ERROR$", "context_lines": 2})["matches"][0]
    assert match["context_before"] == ["Line 1", "Line 2"] and match["context_after"] == ["Line 4", "Line 5"]
    wide = _call(server, {"session_id": ids["t3"], "query": "^ERROR$", "context_lines": 10})["matches"][0]
    assert wide["context_before"][0] == "please check the t3 output"  # context crosses event boundaries
    assert wide["context_after"][-1] == "done with t3"


def test_4_regex(history: tuple[McpServer, dict[str, str]]) -> None:
    server, ids = history
    assert _call(server, {"session_id": ids["t4"], "query": r"ERROR: [45]\d{2}"})["total_matches"] == 2


def test_5_max_results(history: tuple[McpServer, dict[str, str]]) -> None:
    server, ids = history
    data = _call(server, {"session_id": ids["t5"], "query": "ERROR", "max_results": 10})
    assert len(data["matches"]) == 10 and data["total_matches"] == 50


def test_6_no_matches(history: tuple[McpServer, dict[str, str]]) -> None:
    server, ids = history
    data = _call(server, {"session_id": ids["t6"], "query": "NONEXISTENT_PATTERN"})
    assert data["total_matches"] == 0 and data["matches"] == []


def test_errors_exactly_as_the_seed_shows(history: tuple[McpServer, dict[str, str]]) -> None:
    server, _ = history
    missing = _call(server, {"session_id": "session:ses_" + "a" * 26, "query": "x"})
    assert missing == {"error": f"Session session:ses_{'a' * 26} not found", "code": "SESSION_NOT_FOUND"}
    assert _call(server, {"session_id": "not-an-id", "query": "x"})["code"] == "SESSION_NOT_FOUND"
    bad = _call(server, {"query": "(unclosed"})
    assert bad["code"] == "INVALID_REGEX" and bad["error"].startswith("Invalid regex pattern")
    assert _call(server, {"query": r"(\w)\1"})["code"] == "INVALID_REGEX"  # backreferences: not RE2
    for args in ({"query": "x", "context_lines": 11}, {"query": "x", "max_results": 0}, {"query": ""},
                 {"query": "x", "max_results": "5"}, {"query": "x", "bogus": 1}):
        assert _call(server, args)["code"] == "INVALID_REQUEST", args


# RE2 matches in linear time: a call takes milliseconds. A backtracking engine on `(a+)+$` over the
# long session's run of a's takes exponential time (longer than any test timeout), so the bound only
# has to separate the two: 10 s, hundreds of times a call on a loaded machine.
PATHOLOGICAL_BOUND_S = 10.0


def test_pathological_pattern_returns_fast(history: tuple[McpServer, dict[str, str]]) -> None:
    server, ids = history
    started = time.monotonic()
    data = _call(server, {"query": "(a+)+$"})
    assert time.monotonic() - started < PATHOLOGICAL_BOUND_S
    assert data["total_matches"] == 0 or "code" in data  # matches or a clear error, never a stall
    data = _call(server, {"session_id": ids["long"], "query": "(a+)+b$"})
    assert data["total_matches"] == 1 and data["matches"][0]["matched_text"].endswith("…")


def test_cjk_text(history: tuple[McpServer, dict[str, str]]) -> None:
    server, ids = history
    data = _call(server, {"query": "タイムアウト"})
    assert data["total_matches"] == 1 and data["matches"][0]["session_id"] == ids["cjk"]
    assert data["matches"][0]["context_before"][-1] == "データベースの移行に失敗しました"


def test_a_match_deep_in_a_300_kb_tool_output(history: tuple[McpServer, dict[str, str]]) -> None:
    server, ids = history
    assert len(BIG) > 300_000
    data = _call(server, {"query": r"FATAL \w+ full", "context_lines": 2})
    match = data["matches"][0]
    assert match["session_id"] == ids["big"] and match["matched_text"] == "row 012345 FATAL disk full"
    assert match["context_before"] == ["row 012343 ok", "row 012344 ok"]
    assert match["context_after"] == ["row 012346 ok", "row 012347 ok"]
    assert match["line_number"] == 3 + 12345 + 1
