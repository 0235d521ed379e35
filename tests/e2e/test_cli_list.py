"""`moraine list`: the samples' window in text and JSON, cursor paging, and a datetime without offset."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from cli_harness import SINCE, UNTIL, Indexed, oracle_sessions

SCHEMA = "moraine.mcp.list_sessions.v1"
LINE = re.compile(r"^(\d+)\. (\S+) \[(\S+), (\S+), (\d+) turns\] .*\((session:\S+)\)$")


def _oracle_identities() -> Counter[tuple[str, str, str]]:
    return Counter((s["harness"], s["started_at"], s["updated_at"]) for s in oracle_sessions())


def test_list_text(indexed: Indexed) -> None:
    result = indexed.ws.run("list", "--since", SINCE, "--until", UNTIL)
    assert result.returncode == 0, result
    lines = result.stdout.splitlines()
    n = len(oracle_sessions())
    assert lines[0] == f"{n} session(s)."
    rows = [LINE.match(line) for line in lines[1:]]
    assert len(rows) == n and all(rows), result.stdout
    assert [int(r[1]) for r in rows if r] == list(range(1, n + 1))
    assert len({r[6] for r in rows if r}) == n, "each session once"
    updated = [r[2] for r in rows if r]
    assert updated == sorted(updated, reverse=True), "default sort: updated_at desc"
    assert Counter((r[3], r[2]) for r in rows if r) == Counter((h, u) for h, _, u in _oracle_identities())


def test_list_json_paging_gives_every_session_once(indexed: Indexed) -> None:
    seen: list[dict[str, Any]] = []
    cursor: str | None = None
    pages = 0
    while True:
        argv = ["list", "--since", SINCE, "--until", UNTIL, "--limit", "2", "--json"]
        if cursor:
            argv += ["--cursor", cursor]
        result = indexed.ws.run(*argv)
        assert result.returncode == 0, result
        env = result.json()
        assert env["schema_version"] == SCHEMA, env
        assert env["tool"] == "list_sessions"
        assert env["request"]["cursor"] == cursor
        data = env["data"]
        assert data["limit"] == 2
        assert 1 <= len(data["sessions"]) <= 2
        assert data["result_count"] == len(data["sessions"])
        seen += [s["session"] for s in data["sessions"]]
        pages += 1
        cursor = data["next_cursor"]
        assert data["truncated"] is (cursor is not None)
        if cursor is None:
            break
        assert pages < 20, "paging does not terminate"
    n = len(oracle_sessions())
    assert pages == (n + 1) // 2
    ids = [s["id"] for s in seen]
    assert len(ids) == n and len(set(ids)) == n, f"every session exactly once: {Counter(ids).most_common(3)}"
    assert Counter((s["source"], s["started_at"], s["updated_at"]) for s in seen) == _oracle_identities()
    keys = [(s["updated_at"], s["id"]) for s in seen]
    assert [k[0] for k in keys] == sorted((k[0] for k in keys), reverse=True)


def test_list_datetime_without_timezone(indexed: Indexed) -> None:
    as_json = indexed.ws.run("list", "--since", "2026-03-01T00:00:00", "--until", UNTIL, "--json")
    assert as_json.returncode == 1, as_json
    env = as_json.json()
    assert env["schema_version"] == "moraine.mcp.error.v1"
    assert env["error"]["code"] == "invalid_request"
    assert env["error"]["details"].get("field") == "start_datetime"
    assert "timezone" in env["error"]["message"] or "offset" in env["error"]["message"]
