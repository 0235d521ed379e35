"""`moraine list`: the samples' window in text and JSON, cursor paging, dates and local times, the 7-day default."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from cli_harness import SINCE, UNTIL, Indexed, Workspace, oracle_sessions

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
    rows = [LINE.match(line) for line in lines[1:] if not line.startswith(" ")]  # a row's details are indented
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


def test_list_takes_dates_and_local_times(indexed: Indexed) -> None:
    """For people: a date is local midnight, a time without offset is local time;
    the MCP tool itself still refuses a datetime without offset (the contract suite)."""
    by_date = indexed.ws.run("list", "--since", "2026-02-27", "--until", "2026-04-03", "--limit", "50", "--json")
    assert by_date.returncode == 0, by_date
    env = by_date.json()
    assert env["request"]["start_datetime"].startswith("2026-02-27T00:00:00")
    assert env["data"]["result_count"] == len(oracle_sessions())
    naive = indexed.ws.run("list", "--since", "2026-02-27T00:00:00", "--until", "2026-04-03T00:00:00", "--json")
    assert naive.returncode == 0 and naive.json()["data"]["result_count"] == min(20, len(oracle_sessions()))


def test_list_alone_shows_the_last_seven_days(fresh: Workspace) -> None:
    now = datetime.now(UTC)
    day = fresh.codex / "sessions" / now.strftime("%Y/%m/%d")
    day.mkdir(parents=True)
    sid = "019d9999-0000-7000-8000-000000000001"
    ts = now.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    old = (now - timedelta(days=9)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    lines = [{"timestamp": ts, "type": "session_meta", "payload": {"id": sid, "cwd": "/w"}},
             {"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": "recent work"}}]
    (day / f"rollout-{now:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    sid2 = "019d9999-0000-7000-8000-000000000002"
    lines = [{"timestamp": old, "type": "session_meta", "payload": {"id": sid2, "cwd": "/w"}},
             {"timestamp": old, "type": "event_msg", "payload": {"type": "user_message", "message": "older work"}}]
    (day / f"rollout-{now:%Y-%m-%dT%H-%M-%S}-{sid2}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    result = fresh.run("list")
    assert result.returncode == 0, result
    assert result.stdout.startswith("1 session(s)."), result.stdout
    assert "recent work" in result.stdout and "older work" not in result.stdout


def test_list_pages_with_the_default_window(fresh: Workspace) -> None:
    """`moraine list` alone, paged by the printed cursor a while later: every recent session once.
    The default window used to end at "now", which moved, so the cursor no longer matched."""
    now = datetime.now(UTC)
    day = fresh.codex / "sessions" / now.strftime("%Y/%m/%d")
    day.mkdir(parents=True)
    for i in range(5):
        sid = f"019d9999-0000-7000-8000-00000000010{i}"
        ts = (now - timedelta(minutes=10 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        lines = [{"timestamp": ts, "type": "session_meta", "payload": {"id": sid, "cwd": "/w"}},
                 {"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": f"work {i}"}}]
        (day / f"rollout-{now:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl").write_text(
            "\n".join(json.dumps(x) for x in lines) + "\n")
    seen: list[str] = []
    argv = ["list", "--limit", "2"]
    for _ in range(5):
        result = fresh.run(*argv)
        assert result.returncode == 0, result
        seen += [m.group(6) for m in map(LINE.match, result.stdout.splitlines()) if m]
        hint = next((line for line in result.stdout.splitlines() if line.startswith("next page:")), None)
        if hint is None:
            break
        assert "next_cursor" not in result.stdout  # the flag a person types, not the MCP field
        argv = ["list", "--limit", "2", "--cursor", hint.split("--cursor ", 1)[1]]
    assert len(seen) == 5 and len(set(seen)) == 5, seen


# The real CLI in a subprocess whose clock reads MORAINE_TEST_NOW (only `datetime.now` of the list's
# default window is set; everything else is the product as installed).
_AT_CLOCK = """
import os, sys
from datetime import datetime
import moraine.cli_query as q
class Clock(datetime):
    @classmethod
    def now(cls, tz=None):
        fixed = datetime.fromisoformat(os.environ["MORAINE_TEST_NOW"])
        return fixed if tz is None else fixed.astimezone(tz)
q.datetime = Clock
from moraine.cli import main
sys.argv = ["moraine", *sys.argv[1:]]
main()
"""


def test_list_pages_across_local_midnight(fresh: Workspace) -> None:
    """A page printed at 23:59 and the next asked for at 00:01: the default window's start moved by
    a day in between, and the cursor, bound to the window it was printed with, still pages."""
    import subprocess
    import sys

    day = fresh.codex / "sessions" / "2026" / "03" / "10"
    day.mkdir(parents=True)
    for i in range(4):
        sid = f"019d9999-0000-7000-8000-00000000020{i}"
        ts = f"2026-03-10T1{i}:00:00.000Z"
        lines = [{"timestamp": ts, "type": "session_meta", "payload": {"id": sid, "cwd": "/w"}},
                 {"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": f"work {i}"}}]
        (day / f"rollout-2026-03-10T1{i}-00-00-{sid}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert fresh.run("index").returncode == 0

    def at(now: str, *argv: str) -> str:
        env = fresh.env(TZ="UTC", MORAINE_TEST_NOW=now)
        proc = subprocess.run([sys.executable, "-c", _AT_CLOCK, *argv], env=env, capture_output=True, text=True,
                              timeout=120, check=False)
        assert proc.returncode == 0, proc
        return proc.stdout

    first = at("2026-03-11T23:59:00+00:00", "list", "--limit", "2")
    hint = next(line for line in first.splitlines() if line.startswith("next page:"))
    second = at("2026-03-12T00:01:00+00:00", "list", "--limit", "2", "--cursor", hint.split("--cursor ", 1)[1])
    seen = [m.group(6) for out in (first, second) for m in map(LINE.match, out.splitlines()) if m]
    assert len(seen) == 4 and len(set(seen)) == 4, (first, second)
