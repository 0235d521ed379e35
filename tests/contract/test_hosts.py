"""Moraine in real agent hosts, through the SDK's ClientSession over `moraine mcp`:
replies within the bound, paging that concatenates to the logged text, hits that lead back to
the harness, and the scope filters checked against a brute-force filter over every session.

The corpus: 16 sessions (Codex and Claude Code) in four project directories over four days,
each with a prompt and a reply holding the word `fjordword`; a 300 KB tool output; a Claude
session of 1,000 turns; a session whose only prompt is a slash command.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_harness import (
    MORAINE,
    Claude,
    Corpus,
    McpServer,
    cx_assistant,
    cx_call,
    cx_header,
    cx_output,
    cx_user,
    write_jsonl,
)

from moraine.harnesses import NAMES

BOUND = 100_000
CWDS = ["/w/a", "/w/a/sub", "/w/ab", "/w/b"]
DAYS = ["2026-03-11", "2026-03-12", "2026-03-13", "2026-03-14"]
BIG_OUTPUT = "".join(f"line {i:06d} of the big output with fjordbig text\n" for i in range(6_000))  # ~300 KB
WIDE = {"start_datetime": "2026-03-01T00:00:00Z", "end_datetime": "2026-04-01T00:00:00Z"}


def _codex_session(root: Path, n: int, day: str, cwd: str) -> None:
    sid = f"0195a1b2-0000-7000-8000-0000000b{n:04d}"
    ts = f"{day}T0{n % 10}:00:00.000Z"
    records = [*cx_header(ts, sid, cwd), *cx_user(f"{day}T0{n % 10}:00:01.000Z", f"fjordword fjordask {n}"),
               *cx_assistant(f"{day}T0{n % 10}:00:02.000Z", f"fjordword fjordreply {n}")]
    if n == 0:
        records += [cx_call(f"{day}T00:00:03.000Z", "call_big", "exec_command", {"cmd": ["cat", "big.log"]}),
                    cx_output(f"{day}T00:00:04.000Z", "call_big", BIG_OUTPUT)]
    write_jsonl(root / "codex/sessions/2026/03" / f"rollout-{day}T0{n % 10}-00-00-{sid}.jsonl", records)


def _claude_session(root: Path, n: int, day: str, cwd: str) -> None:
    sid = f"7c666c01-d38e-4658-8650-00000000c{n:03d}"
    log = Claude(sid, cwd)
    log.user(f"{day}T1{n % 10}:00:01.000Z", f"fjordword fjordask {n}")
    log.assistant(f"{day}T1{n % 10}:00:02.000Z", [{"type": "text", "text": f"fjordword fjordreply {n}"}], "end_turn",
                  f"msg_{n}")
    write_jsonl(root / "claude/projects" / ("-" + cwd.strip("/").replace("/", "-")) / f"{sid}.jsonl", log.records)


def _long_and_command_sessions(root: Path) -> None:
    long = Claude("7c666c01-d38e-4658-8650-000000001000", "/w/long")
    for i in range(1000):
        ts = f"2026-03-15T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        long.user(ts, f"turn {i} question about the longfjord")
        long.assistant(ts, [{"type": "text", "text": f"turn {i} answer"}], "end_turn", f"msg_long_{i}")
    write_jsonl(root / "claude/projects/-w-long" / "7c666c01-d38e-4658-8650-000000001000.jsonl", long.records)
    cmd = Claude("7c666c01-d38e-4658-8650-000000002000", "/w/cmd")
    cmd.user("2026-03-16T10:00:00.000Z", "<command-message>exit</command-message>\n<command-name>/exit</command-name>"
             "\n<command-args></command-args>")
    write_jsonl(root / "claude/projects/-w-cmd" / "7c666c01-d38e-4658-8650-000000002000.jsonl", cmd.records)


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    root = tmp_path_factory.mktemp("hosts")
    corpus = Corpus(root, root / "codex", root / "claude", root / "moraine-home")
    corpus.moraine_home.mkdir()
    for n, (day, cwd) in enumerate(itertools.product(DAYS, CWDS)):
        (_codex_session if n % 2 == 0 else _claude_session)(root, n, day, cwd)
    _long_and_command_sessions(root)
    server = McpServer(corpus)
    try:
        yield server
    finally:
        server.close()


def _reply_chars(result: Any) -> int:
    text = "".join(block.text for block in result.content)
    return len(text) + len(json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False))


def _all_sessions(server: McpServer, **filters: Any) -> list[dict[str, Any]]:
    found, cursor = [], None
    while True:
        data = server.ok("list_sessions", {**WIDE, "limit": 50, "cursor": cursor, **filters})["data"]
        found += [item["session"] for item in data["sessions"]]
        cursor = data["next_cursor"]
        if cursor is None:
            return found


def _hits(server: McpServer, query: str, **args: Any) -> list[dict[str, Any]]:
    result = server.raw("search_sessions", {"query": query, "n_hits": 50, **args})
    assert _reply_chars(result) <= BOUND
    envelope = result.structured_content
    assert "error" not in envelope, envelope
    assert envelope["data"]["truncated"] is False
    return envelope["data"]["results"]


def test_big_event_pages_concatenate_to_the_logged_text(hosts: McpServer) -> None:
    hit = _hits(hosts, "fjordbig", event_types=["tool_response"])[0]
    pages, offset = [], 0
    while True:
        result = hosts.raw("open", {"id": hit["id"], "offset": offset})
        assert _reply_chars(result) <= BOUND
        content = result.structured_content["data"]["content"]
        assert content["offset"] == offset and content["total_chars"] == len(BIG_OUTPUT)
        pages.append(content["text"])
        if not content["truncated"]:
            assert content["next_offset"] is None
            break
        assert f"offset={content['next_offset']}" in result.content[0].text  # says how to get the rest
        offset = content["next_offset"]
    assert len(pages) >= 4
    assert "".join(pages) == BIG_OUTPUT
    small = hosts.ok("open", {"id": hit["id"], "offset": 10, "max_chars": 25})["data"]["content"]
    assert small["text"] == BIG_OUTPUT[10:35] and small["next_offset"] == 35
    hosts.err("open", {"id": hit["id"], "offset": -1}, "invalid_request")
    hosts.err("open", {"id": hit["open"]["session_id"], "offset": 5}, "invalid_request")


def test_a_thousand_turn_session_pages_its_turns(hosts: McpServer) -> None:
    session = _all_sessions(hosts, cwd="/w/long")[0]
    assert session["turn_count"] == 1000
    ordinals, cursor, pages = [], None, 0
    while True:
        result = hosts.raw("open", {"id": session["id"], "cursor": cursor})
        assert _reply_chars(result) <= BOUND
        data = result.structured_content["data"]
        ordinals += [t["ordinal"] for t in data["turns"]]
        pages += 1
        cursor = data["next_cursor"]
        if cursor is None:
            break
    assert ordinals == list(range(1, 1001)) and pages > 1
    hosts.err("open", {"id": session["id"], "cursor": "bm90LWEtY3Vyc29y"}, "invalid_request")


def test_search_at_fifty_hits_fits_the_bound(hosts: McpServer) -> None:
    result = hosts.raw("search_sessions", {"query": "longfjord question turn", "n_hits": 50})
    assert len(result.structured_content["data"]["results"]) == 50
    assert _reply_chars(result) <= BOUND


def test_sessions_lead_back_to_their_harness(hosts: McpServer) -> None:
    sessions = _all_sessions(hosts)
    codex = next(s for s in sessions if s["source"] == "codex")
    claude = next(s for s in sessions if s["source"] == "claude-code" and s["cwd"] == "/w/b")
    assert codex["native_id"].startswith("0195a1b2-")
    assert codex["resume_command"] == f"codex resume {codex['native_id']}"
    assert claude["resume_command"] == f"cd /w/b && claude --resume {claude['native_id']}"
    opened = hosts.ok("open", {"id": claude["id"]})["data"]
    assert opened["session"]["native_id"] == claude["native_id"]
    assert len(opened["log_paths"]) == 1 and opened["log_paths"][0].endswith(f"{claude['native_id']}.jsonl")
    hit = _hits(hosts, "fjordword", cwd="/w/b", source=["claude-code"])[0]
    assert hit["session"]["resume_command"] == claude["resume_command"] or hit["session"]["cwd"] == "/w/b"
    command_only = _all_sessions(hosts, cwd="/w/cmd")[0]
    assert command_only["title"] == "/exit"


def _in_cwd(cwd: str | None, scope: str) -> bool:
    return cwd is not None and (cwd == scope or cwd.startswith(scope + "/"))


def test_filters_equal_a_brute_force_filter(hosts: McpServer) -> None:
    sessions = {s["id"]: s for s in _all_sessions(hosts)}
    everything = _hits(hosts, "fjordword")
    assert len(everything) == 32
    sources = [["codex"], ["claude-code"], ["codex", "claude-code"], None]
    cwds = ["/w/a", "/w/ab", "/w/b", "/w", None]
    windows = [(None, None), ("2026-03-12T00:00:00Z", None), (None, "2026-03-13T00:00:00Z"),
               ("2026-03-12T05:00:00Z", "2026-03-13T12:00:00+00:00")]
    checked = 0
    for source, cwd, (since, until) in itertools.product(sources, cwds, windows):
        args = {k: v for k, v in {"source": source, "cwd": cwd, "since": since, "until": until}.items() if v}
        got = {h["id"] for h in _hits(hosts, "fjordword", **args)}
        want = {h["id"] for h in everything
                if (source is None or sessions[h["open"]["session_id"]]["source"] in source)
                and (cwd is None or _in_cwd(sessions[h["open"]["session_id"]]["cwd"], cwd))
                and (since is None or h["event"]["timestamp"] >= since.replace("+00:00", "Z")[:19])
                and (until is None or h["event"]["timestamp"] < until.replace("+00:00", "Z")[:19])}
        assert got == want, args
        listed = {s["id"] for s in _all_sessions(hosts, **{k: v for k, v in args.items() if k in ("source", "cwd")})}
        want_listed = {sid for sid, s in sessions.items()
                       if (source is None or s["source"] in source) and (cwd is None or _in_cwd(s["cwd"], cwd))}
        assert listed == want_listed, args
        checked += 1
    assert checked == 80
    hosts.err("search_sessions", {"query": "fjordword", "source": ["gemini"]}, "invalid_request")
    bad = hosts.call("list_sessions", {**WIDE, "source": ["nope"]})
    assert bad["error"]["details"]["allowed"] == list(NAMES)
    hosts.err("search_sessions", {"query": "fjordword", "cwd": "relative/dir"}, "invalid_request")
    hosts.err("search_sessions", {"query": "fjordword", "cwd": "~zqnosuchuser/x"}, "invalid_request",
              "cwd names the home of 'zqnosuchuser', who is no user on this machine")
    hosts.err("search_sessions", {"query": "fjordword", "since": "2026-03-12T00:00:00"}, "invalid_request")
    by_date = hosts.ok("search_sessions", {"query": "fjordword", "since": "2026-03-12", "until": "2026-03-13"})
    assert by_date["request"]["since"] == "2026-03-12T00:00:00Z"  # a date: its midnight UTC
    assert by_date["data"]["results"] and all(h["event"]["timestamp"].startswith("2026-03-12")
                                              for h in by_date["data"]["results"])
    hosts.err("search_sessions", {"query": "fjordword", "since": "2026-03-13T00:00:00Z",
                                  "until": "2026-03-12T00:00:00Z"}, "invalid_request")
    page = hosts.ok("list_sessions", {**WIDE, "limit": 2, "cwd": "/w/a"})["data"]
    hosts.err("list_sessions", {**WIDE, "limit": 2, "cwd": "/w/b", "cursor": page["next_cursor"]}, "invalid_request")


def test_min_should_match_and_min_score(hosts: McpServer) -> None:
    both = _hits(hosts, "fjordword fjordask", min_should_match=2)
    assert len(both) == 16 and all("fjordask" in h["snippet"]["text"] for h in both)
    assert len(_hits(hosts, "fjordword fjordask")) == 32
    assert len(_hits(hosts, "fjordword fjordask", min_should_match=9)) == 16  # clamped to the two terms
    scores = [h["score"] for h in _hits(hosts, "fjordword fjordask")]
    cut = sorted(scores)[len(scores) // 2]
    kept = _hits(hosts, "fjordword fjordask", min_score=cut)
    assert kept and all(h["score"] >= cut for h in kept) and len(kept) == sum(s >= cut for s in scores)
    hosts.err("search_sessions", {"query": "x1", "min_score": 2}, "invalid_request")
    hosts.err("search_sessions", {"query": "x1", "min_should_match": 0}, "invalid_request")


def test_index_status_equals_moraine_status(hosts: McpServer) -> None:
    result = hosts.raw("index_status", {})
    data = result.structured_content["data"]
    assert data["sessions"] == 18 and data["events"] > 2000
    by_name = {s["name"]: s for s in data["sources"]}
    assert by_name["codex"]["sessions"] == 8 and by_name["claude-code"]["sessions"] == 10
    assert by_name["codex"]["files"] == 8 and by_name["claude-code"]["last_ingest_at"]
    assert sum(s["events"] for s in data["sources"]) == data["events"]
    assert data["daemon"] is not None and data["daemon"]["uptime_s"] >= 0
    assert data["pending_bytes"] == 0 and data["quarantined_lines"] == 0
    env = {**os.environ, "MORAINE_HOME": str(hosts.corpus.moraine_home), "CODEX_HOME": str(hosts.corpus.codex_home),
           "CLAUDE_CONFIG_DIR": str(hosts.corpus.claude_home)}
    cli = subprocess.run([str(MORAINE), "status", "--json"], env=env, capture_output=True, text=True, check=True)
    status = json.loads(cli.stdout)["index"]
    for key in ("sessions", "events", "searchable_documents", "sources", "pending_bytes", "quarantined_lines",
                "unreadable_files", "snapshot", "last_ingest_at"):
        assert status[key] == data[key], key
    assert status["daemon"]["pid"] == data["daemon"]["pid"]
    assert f'{data["events"]} events in 18 sessions' in result.content[0].text
