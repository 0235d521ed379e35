"""get_learned_patterns, track_input_event and cleanup_old_sessions (history tools) through a
real MCP client: the cases their specification lists, on Moraine's model, the write tools listed only with
`[mcp] allow_write_tools = true`, and forgotten sessions that stay forgotten across a restart and
`moraine reindex`."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest
from contract_harness import MORAINE, Claude, Corpus, McpServer, write_jsonl

NOW = datetime.now(UTC)
DAY = timedelta(days=1)


def _iso(when: datetime, seconds: int = 0) -> str:
    return (when + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _conversation(root: Path, n: int, when: datetime, turns: list[tuple[str, str]]) -> Path:
    """A Claude session: each (agent's final response, the person's next prompt) pair is a turn."""
    sid = f"7c666c01-d38e-4658-8650-0000000e{n:04d}"
    log = Claude(sid, f"/w/p{n}")
    log.user(_iso(when), f"start task tasknumber{n}x")
    for i, (question, reply) in enumerate(turns):
        log.assistant(_iso(when, 2 * i + 1), [{"type": "text", "text": f"Working on it.\n{question}"}], "end_turn",
                      f"m{n}_{i}")
        log.user(_iso(when, 2 * i + 2), reply)
    log.assistant(_iso(when, 99), [{"type": "text", "text": "All done."}], "end_turn", f"m{n}_end")
    path = root / "claude/projects" / f"-w-p{n}" / f"{sid}.jsonl"
    write_jsonl(path, log.records)
    return path


def _corpus(root: Path, *, allow_write: bool, delete_logs: bool) -> tuple[Corpus, dict[str, Path]]:
    corpus = Corpus(root, root / "codex", root / "claude", root / "moraine-home")
    corpus.moraine_home.mkdir()
    (root / "codex" / "sessions").mkdir(parents=True)
    (corpus.moraine_home / "config.toml").write_text(
        f"[mcp]\nallow_write_tools = {str(allow_write).lower()}\n\n"
        f"[retention]\ndelete_logs = {str(delete_logs).lower()}\n")
    logs = {
        "recent": _conversation(root, 1, NOW - DAY, [("Shall I restart the server?", "yes"),
                                                      ("Run the 3 migrations now? (yes/no)", "no")]),
        "week": _conversation(root, 2, NOW - 7 * DAY + timedelta(minutes=5), [("Shall I restart the server?", "Yes")]),
        "old": _conversation(root, 3, NOW - 10 * DAY, [("Shall I restart the server?", "not yet"),
                                                        ("Run the 12 migrations now? (yes/no)", "no")]),
        "older": _conversation(root, 4, NOW - 40 * DAY, [("Delete /tmp/build/cache?", "yes")]),
    }
    return corpus, logs


@pytest.fixture(scope="module")
def writable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[McpServer, dict[str, Path]]]:
    corpus, logs = _corpus(tmp_path_factory.mktemp("write"), allow_write=True, delete_logs=True)
    server = McpServer(corpus)
    try:
        yield server, logs
    finally:
        server.close()


def test_write_tools_are_listed_only_when_allowed(writable: tuple[McpServer, dict[str, Path]],
                                                   tmp_path: Path) -> None:
    server, _ = writable
    names = {tool.name: tool for tool in server.list_tools().tools}
    assert {"track_input_event", "cleanup_old_sessions"} <= set(names)
    assert names["cleanup_old_sessions"].annotations.destructive_hint is True
    assert names["track_input_event"].annotations.read_only_hint is False
    corpus, _ = _corpus(tmp_path, allow_write=False, delete_logs=False)
    closed = McpServer(corpus)
    try:
        assert not {"track_input_event", "cleanup_old_sessions"} & {t.name for t in closed.list_tools().tools}
        refused = closed.raw("cleanup_old_sessions", {"dry_run": True})
        assert refused.is_error is True and "unknown tool" in refused.content[0].text
    finally:
        closed.close()


def test_learned_patterns_from_the_history(writable: tuple[McpServer, dict[str, Path]]) -> None:
    server, _ = writable
    data = server.call("get_learned_patterns", {})
    assert data["total_patterns"] >= 2 and "patterns" in data  # patterns are learned
    # a pair seen once (the 40-day-old "Delete /tmp/build/cache?" → "yes") is left out unless asked for
    assert data["below_min_occurrences"] >= 1 and not any("Delete" in p["prompt_text"] for p in data["patterns"])
    every = server.call("get_learned_patterns", {"min_occurrences": 1})
    assert any("Delete" in p["prompt_text"] for p in every["patterns"]) and every["below_min_occurrences"] == 0
    restart = next(p for p in data["patterns"] if "restart" in p["prompt_text"])
    assert restart["total_occurrences"] == 3
    assert restart["most_common_response"]["input_text"].lower() == "yes"
    assert restart["most_common_response"]["count"] == 2  # "yes" and "Yes" are one reply
    migrations = next(p for p in data["patterns"] if "migrations" in p["prompt_text"])
    assert migrations["total_occurrences"] == 2  # "3 migrations" and "12 migrations": numbers normalized
    filtered = server.call("get_learned_patterns", {"prompt_filter": "restart"})["patterns"]  # filtered
    assert filtered and all("restart" in p["prompt_text"] for p in filtered)
    ordered = server.call("get_learned_patterns", {"sort_by": "occurrences"})["patterns"]  # sorted
    assert all(a["total_occurrences"] >= b["total_occurrences"] for a, b in pairwise(ordered))
    assert all(p["total_occurrences"] >= 2 for p in server.call("get_learned_patterns",
                                                                 {"min_occurrences": 2})["patterns"])  # threshold
    last = server.call("get_learned_patterns", {"sort_by": "last_seen"})["patterns"]
    assert [p["last_seen"] for p in last] == sorted((p["last_seen"] for p in last), reverse=True)
    assert server.call("get_learned_patterns", {"sort_by": "nope"})["code"] == "INVALID_REQUEST"


def test_seed_test_5_tracked_events(writable: tuple[McpServer, dict[str, Path]]) -> None:
    server, _ = writable
    assert server.call("track_input_event", {"session_id": "abc123-def456-...", "prompt_text": "Continue?",
                                             "input_text": "no", "success": True})["code"] == "SESSION_NOT_FOUND"
    listed = server.ok("list_sessions", {"start_datetime": "2000-01-01", "end_datetime": "2100-01-01"})
    session_id = listed["data"]["sessions"][0]["id"]
    for _ in range(10):
        done = server.call("track_input_event", {"session_id": session_id, "prompt_text": "Continue? (yes/no)",
                                                 "input_text": "no", "success": True, "input_source": "user_typed",
                                                 "response_time_ms": 100})
        assert done["tracked"] is True
    pattern = server.call("get_learned_patterns", {"prompt_filter": "Continue"})["patterns"][0]
    assert pattern["total_occurrences"] == 10
    assert pattern["most_common_response"]["input_text"] == "no"
    assert pattern["most_common_response"]["success_rate"] == 1.0
    assert server.call("track_input_event", {"session_id": "x", "prompt_text": "p", "input_text": "i",
                                             "success": "yes"})["code"] == "INVALID_REQUEST"


def test_cleanup_dry_run_then_for_real(writable: tuple[McpServer, dict[str, Path]]) -> None:
    server, logs = writable
    sessions = {item["session"]["cwd"]: item["id"] for item in server.ok("list_sessions", {
        "start_datetime": _iso(NOW - 60 * DAY), "end_datetime": _iso(NOW + DAY), "limit": 50})["data"]["sessions"]}
    dry = server.call("cleanup_old_sessions", {"retention_days": 7, "dry_run": True})  # a dry run
    assert dry["dry_run"] is True and dry["total_deleted"] == 2
    assert set(dry["deleted_sessions"]) == {sessions["/w/p3"], sessions["/w/p4"]}
    assert sessions["/w/p2"] not in dry["deleted_sessions"]  # 7 days old (minus minutes): kept
    assert all(path.exists() for path in logs.values())
    assert server.ok("open", {"id": sessions["/w/p3"]})
    done = server.call("cleanup_old_sessions", {"retention_days": 7, "dry_run": False})  # the run
    assert done["total_deleted"] == 2 and done["bytes_freed"] >= 0 and done["dry_run"] is False
    assert not logs["old"].exists() and not logs["older"].exists() and logs["week"].exists()
    server.err("open", {"id": sessions["/w/p3"]}, "not_found")
    assert server.call("cleanup_old_sessions", {"retention_days": 0})["code"] == "INVALID_REQUEST"


def test_forgotten_sessions_stay_forgotten(tmp_path: Path) -> None:
    """Without delete_logs the logs stay; the tombstones keep their sessions out across a restart,
    a reindex from those very logs, and a snapshot copy restored (then indexed again); tracked
    observations survive all three."""
    corpus, logs = _corpus(tmp_path, allow_write=True, delete_logs=False)
    server = McpServer(corpus)
    try:
        listed = server.ok("list_sessions", {"start_datetime": "2000-01-01", "end_datetime": "2100-01-01"})
        kept = next(s["id"] for s in listed["data"]["sessions"] if s["session"]["cwd"] == "/w/p2")
        server.call("track_input_event", {"session_id": kept, "prompt_text": "Deploy now?", "input_text": "later",
                                          "success": False})
        gone = server.call("cleanup_old_sessions", {"retention_days": 7})["deleted_sessions"]
        assert len(gone) == 2 and logs["old"].exists()
    finally:
        server.close()
    env = {"MORAINE_HOME": str(corpus.moraine_home), "CODEX_HOME": str(corpus.codex_home),
           "CLAUDE_CONFIG_DIR": str(corpus.claude_home), "PATH": "/usr/bin:/bin"}
    copy = tmp_path / "snapshot-copy"
    for step in ("restart", "reindex", "restore"):
        commands = {"restart": [], "reindex": [["reindex"]],
                    "restore": [["snapshot", "--out", str(copy)], ["restore", str(copy)], ["index"]]}[step]
        for argv in commands:
            done = subprocess.run([str(MORAINE), *argv], env=env, capture_output=True, text=True, check=False)
            assert done.returncode == 0, (argv, done.stderr)
        again = McpServer(corpus)
        try:
            for sid in gone:
                again.err("open", {"id": sid}, "not_found")
            assert not again.ok("search_sessions", {"query": "tasknumber3x"})["data"]["results"]
            kept = again.call("get_learned_patterns", {"prompt_filter": "Deploy"})["patterns"]
            assert kept and kept[0]["most_common_response"] == {"input_text": "later", "count": 1, "success_rate": 0.0}
        finally:
            again.close()
