"""Every id leads somewhere, and replies sized to what they carry — through the SDK's
ClientSession over `moraine mcp` (and the real CLI where it is a face of the same tools).

The corpus: the contract corpus (S1–S5), its Claude root moved under the server's $HOME (so a
`~/…` log path names a real file), plus
  * a Codex and a Claude session with the same native id (an ambiguous reference),
  * a Codex session in ~/proj whose prompt carries the VS Code extension's IDE context,
  * a Claude session whose first prompt is "." (a title that says nothing),
  * a Codex tool output of 120,000 characters (three content pages),
  * 300 small sessions, one of them holding the only line with `needleword`.
Replies are measured for every tool here and on the data_samples state: the text is the
readable rendering, structuredContent the data, and no page of content is in both.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_harness import (
    MORAINE,
    S1_OUTPUT1,
    Claude,
    Corpus,
    McpServer,
    build_corpus,
    cx_assistant,
    cx_call,
    cx_header,
    cx_output,
    cx_user,
    write_jsonl,
)

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples"
DUP = "0195a1b2-0000-7000-8000-0000000dd001"  # the native id of two sessions, one per harness
BIG = "".join(f"big line {i:06d} of the quetzal output, padded to look like a real log line\n" for i in range(1_500))
MANY = 300
WIDE = {"start_datetime": "2026-03-01", "end_datetime": "2026-05-01"}  # dates: midnight UTC
PAGE_MIN = 400  # a JSON string this long is a page of content, never to be found in the text as well
PREVIEW = 200  # the most of an event's content the text shows beside structuredContent


def _extra_sessions(root: Path, corpus: Corpus, home: Path) -> dict[str, Path]:
    files: dict[str, Path] = {}
    day = corpus.codex_home / "sessions/2026/04/02"
    # the same native id in both harnesses
    files["dup-codex"] = day / f"rollout-2026-04-02T08-00-00-{DUP}.jsonl"
    write_jsonl(files["dup-codex"], [*cx_header("2026-04-02T08:00:00.000Z", DUP, "/w/dup"),
                                     *cx_user("2026-04-02T08:00:01.000Z", "duplicatedword from codex"),
                                     *cx_assistant("2026-04-02T08:00:02.000Z", "duplicatedword answered")])
    dup = Claude(DUP, "/w/dup")
    dup.user("2026-04-02T09:00:00.000Z", "duplicatedword from claude")
    dup.assistant("2026-04-02T09:00:01.000Z", [{"type": "text", "text": "duplicatedword again"}], "end_turn", "m_dup")
    files["dup-claude"] = corpus.claude_home / "projects/-w-dup" / f"{DUP}.jsonl"
    write_jsonl(files["dup-claude"], dup.records)
    # the IDE context of the VS Code extension before the request, in ~/proj
    ide = "0195a1b2-0000-7000-8000-0000000dd002"
    files["ide"] = day / f"rollout-2026-04-02T10-00-00-{ide}.jsonl"
    write_jsonl(files["ide"], [
        *cx_header("2026-04-02T10:00:00.000Z", ide, str(home / "proj")),
        *cx_user("2026-04-02T10:00:01.000Z", "# Context from my IDE setup:\n\n## Active file: app.py\n\n"
                 "## My request for Codex:\nMake the gizmowidget render faster\n"),
        *cx_assistant("2026-04-02T10:00:02.000Z", "The gizmowidget now renders in one pass."),
        # a 120,000-character tool output: three pages of content
        cx_call("2026-04-02T10:00:03.000Z", "call_big", "exec_command", {"cmd": "cat quetzal.log"}),
        cx_output("2026-04-02T10:00:04.000Z", "call_big", BIG),
    ])
    # a first prompt of one dot
    dot = Claude("7c666c01-d38e-4658-8650-0000000dd003", "/w/dot")
    dot.user("2026-04-02T11:00:00.000Z", ".")
    dot.assistant("2026-04-02T11:00:01.000Z", [{"type": "text", "text": "Yes?"}], "end_turn", "m_dot1")
    dot.user("2026-04-02T11:00:02.000Z", "Explain the sprocket cache eviction")
    dot.assistant("2026-04-02T11:00:03.000Z", [{"type": "text", "text": "It evicts sprockets."}], "end_turn", "m_dot2")
    files["dot"] = corpus.claude_home / "projects/-w-dot" / "7c666c01-d38e-4658-8650-0000000dd003.jsonl"
    write_jsonl(files["dot"], dot.records)
    # many small sessions, one line of needleword among them
    for n in range(MANY):
        sid = f"0195a1b2-0000-7000-8000-0000001{n:05d}"
        ts = f"2026-04-{3 + n // 100:02d}T{(n % 100) // 5:02d}:{(n % 5) * 10:02d}:00.000Z"
        text = "manyword filler line" + (" with needleword in it" if n == 137 else "")
        write_jsonl(corpus.codex_home / f"sessions/2026/04/{3 + n // 100:02d}" / f"rollout-{n:05d}-{sid}.jsonl",
                    [*cx_header(ts, sid, f"/w/many{n % 7}"), *cx_user(ts, text),
                     *cx_assistant(ts, f"manyword reply {n}")])
    return files


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[McpServer, dict[str, Path], Path]]:
    root = tmp_path_factory.mktemp("ids-sizes")
    corpus = build_corpus(root)
    home = root / "home"  # the server's $HOME (contract_harness)
    home.mkdir(exist_ok=True)
    moved = home / ".claude"
    shutil.move(str(corpus.claude_home), str(moved))
    corpus.files = {k: moved / v.relative_to(corpus.claude_home) if v.is_relative_to(corpus.claude_home) else v
                    for k, v in corpus.files.items()}
    corpus.claude_home = moved
    files = {**corpus.files, **_extra_sessions(root, corpus, home)}
    server = McpServer(corpus)
    try:
        yield server, files, home
    finally:
        server.close()


def _session_of(server: McpServer, words: str) -> str:
    hits = server.ok("search_sessions", {"query": words})["data"]["results"]
    assert hits, words
    return str(hits[0]["open"]["session_id"])


# -- A1: a Moraine ID, a native session id or a log path, on every face ----------------------------


def test_open_takes_native_ids_and_log_paths(world: tuple[McpServer, dict[str, Path], Path]) -> None:
    server, files, home = world
    s1 = _session_of(server, "ClickHouse schema migration")
    s2 = _session_of(server, "narwhal protocol release")
    native_s1 = "0195a1b2-0000-7000-8000-00000000a001"
    for ref in (native_s1, native_s1.upper(), str(files["S1"]), f"  {native_s1} "):
        env = server.ok("open", {"id": ref})
        assert env["data"]["kind"] == "session" and env["data"]["session"]["id"] == s1, ref
        assert env["request"]["id"] == ref and env["request"]["resolved_id"] == s1
    tilde = "~/" + str(files["S2"].relative_to(home))  # a log path under the server's home
    assert server.ok("open", {"id": tilde})["data"]["session"]["id"] == s2
    assert server.ok("open", {"id": str(files["S2"])})["data"]["session"]["native_id"] == \
        "7c666c01-d38e-4658-8650-0000000000b2"
    # a harness's id that names nothing indexed is not_found, said as such (not a malformed Moraine ID)
    for unknown in ("0195a1b2-0000-7000-8000-00000000dead", "agent-a1b2c3d4"):
        env = server.err("open", {"id": unknown}, "not_found")
        assert "native id" in env["error"]["message"] and env["error"]["details"]["field"] == "id", env
    # what is neither stays as the contract says
    server.err("open", {"id": "not-a-valid-id"}, "invalid_id")
    missing = home / "not-indexed.jsonl"
    missing.write_text("{}\n")
    server.err("open", {"id": str(missing)}, "not_found")
    # a Moraine ID is never looked up as anything else
    server.err("open", {"id": "session:" + native_s1}, "invalid_id")


def test_an_ambiguous_native_id_lists_its_candidates(world: tuple[McpServer, dict[str, Path], Path]) -> None:
    server, files, _ = world
    hits = server.ok("search_sessions", {"query": "duplicatedword", "n_hits": 10})["data"]["results"]
    both = {h["open"]["session_id"] for h in hits}
    assert len(both) == 2 and {h["session"]["native_id"] for h in hits} == {DUP}
    env = server.err("open", {"id": DUP}, "invalid_request")
    assert set(env["error"]["details"]["candidates"]) == both and env["error"]["details"]["field"] == "id"
    assert all(sid in env["error"]["message"] for sid in both)
    for sid in env["error"]["details"]["candidates"]:  # each candidate leads somewhere
        assert server.ok("open", {"id": sid})["data"]["session"]["native_id"] == DUP
    # its log path is not ambiguous
    by_path = server.ok("open", {"id": str(files["dup-claude"])})["data"]["session"]
    assert by_path["source"] == "claude-code" and by_path["id"] in both
    # the same rule for search_sessions' within_id and search_session_history's session_id
    env = server.err("search_sessions", {"query": "duplicatedword", "within_id": DUP}, "invalid_request")
    assert set(env["error"]["details"]["candidates"]) == both
    within = server.ok("search_sessions", {"query": "duplicatedword", "within_id": str(files["dup-codex"])})
    assert {h["session"]["source"] for h in within["data"]["results"]} == {"codex"}
    history = server.call("search_session_history", {"query": "duplicatedword", "session_id": DUP})
    assert history["code"] == "INVALID_REQUEST" and set(history["candidates"]) == both


def test_history_and_within_take_native_ids(world: tuple[McpServer, dict[str, Path], Path]) -> None:
    server, files, _ = world
    s2 = _session_of(server, "narwhal protocol release")
    native = "7c666c01-d38e-4658-8650-0000000000b2"
    for ref in (s2, native, str(files["S2"])):
        data = server.call("search_session_history", {"query": "narwhal", "session_id": ref, "context_lines": 0})
        assert data["searched_sessions"] == [s2] and data["total_matches"] >= 3, ref
        hits = server.ok("search_sessions", {"query": "narwhal", "within_id": ref})["data"]["results"]
        assert hits and {h["open"]["session_id"] for h in hits} == {s2}, ref
    assert server.call("search_session_history", {"query": "x", "session_id": "no-such"})["code"] == \
        "SESSION_NOT_FOUND"


def test_history_context_lines_are_carried_once(world: tuple[McpServer, dict[str, Path], Path]) -> None:
    """A history reply's context lines are in the structured content; the text shows each match's
    line and where it is, and quotes the context only when asked (context_in_text, as the CLI
    does for a person)."""
    server, _, _ = world
    args = {"query": "narwhal", "context_lines": 3}
    result = server.raw("search_session_history", args)
    data = result.structured_content
    matched = {m["matched_text"] for m in data["matches"]}  # a context line may match too: shown as such
    context = {line for m in data["matches"] for line in m["context_before"] + m["context_after"]
               if len(line) >= 12 and not any(line in shown for shown in matched)}
    assert context, "the matches have context lines"
    text = result.content[0].text
    assert all(m["matched_text"] in text for m in data["matches"])
    assert not [line for line in context if line in text], "context lines repeated in the text"
    quoted = server.raw("search_session_history", {**args, "context_in_text": True}).content[0].text
    assert all(line in quoted for line in context)


def test_the_cli_resolves_as_mcp_does(world: tuple[McpServer, dict[str, Path], Path], tmp_path: Path) -> None:
    server, files, home = world
    corpus = server.corpus
    env = {"MORAINE_HOME": str(tmp_path / "cli-state"), "CODEX_HOME": str(corpus.codex_home),
           "CLAUDE_CONFIG_DIR": str(corpus.claude_home), "HOME": str(home), "PATH": "/usr/bin:/bin",
           **{k: str(tmp_path / "none") for k in ("PI_CODING_AGENT_DIR", "QWEN_HOME", "KIMI_SHARE_DIR", "CURSOR_HOME",
                                                  "COPILOT_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME")}}

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(MORAINE), *argv], env=env, capture_output=True, text=True, timeout=300,
                              check=False, cwd=str(files["dup-claude"].parent))

    ambiguous = cli("open", DUP, "--json")
    assert ambiguous.returncode == 2, ambiguous.stderr  # a bad argument (cli_query.USAGE_CODES)
    error = json.loads(ambiguous.stdout)["error"]
    assert error["code"] == "invalid_request" and len(error["details"]["candidates"]) == 2
    relative = cli("open", files["dup-claude"].name, "--json")  # relative to the caller's directory
    assert relative.returncode == 0, relative.stdout
    assert json.loads(relative.stdout)["data"]["session"]["source"] == "claude-code"
    history = cli("history", "duplicatedword", "--session", DUP, "--json")
    assert history.returncode == 2 and json.loads(history.stdout)["code"] == "INVALID_REQUEST"
    # a person reading `moraine open` gets the page in the text; --json is the MCP reply as it is
    hit = server.ok("search_sessions", {"query": "quetzal", "event_types": ["tool_response"]})["data"]["results"][0]
    page = cli("open", hit["id"])
    assert page.returncode == 0 and BIG[:5_000] in page.stdout and "offset=" in page.stdout
    raw = json.loads(cli("open", hit["id"], "--json").stdout)
    assert "content_in_text" not in raw["request"]


# -- A2: traversal that skips blank events ---------------------------------------------------------


def test_traversal_names_the_nearest_events_with_text(world: tuple[McpServer, dict[str, Path], Path]) -> None:
    server, _, _ = world
    hit = server.ok("search_sessions", {"query": "ordinal_column_added", "event_types": ["tool_response"]})
    output = hit["data"]["results"][0]
    data = server.ok("open", {"id": output["id"]})["data"]
    assert data["content"]["text"] == S1_OUTPUT1
    tr = data["traversal"]
    blank = server.ok("open", {"id": tr["next_event_id"]})["data"]  # Codex's token_count: a blank system event
    assert blank["event"]["type"] == "system" and not blank["content"]["text"].strip()
    following = server.ok("open", {"id": tr["next_nonempty_event_id"]})["data"]
    assert following["event"]["type"] == "assistant_response" and following["content"]["text"].strip()
    assert following["traversal"]["previous_nonempty_event_id"] == output["id"]
    assert tr["previous_nonempty_event_id"] == tr["previous_event_id"]  # the call before it has text
    # across turns: the turn's last event with text leads to the next turn's prompt, past blank runtime records
    last = server.ok("open", {"id": following["traversal"]["next_nonempty_event_id"]})["data"]
    assert last["event"]["type"] == "user_input" and last["event"]["turn_id"] != following["event"]["turn_id"]
    assert following["traversal"]["next_event_id"] is None or \
        not server.ok("open", {"id": following["traversal"]["next_event_id"]})["data"]["content"]["text"].strip()
    text = server.raw("open", {"id": output["id"]}).content[0].text
    assert f'next {tr["next_nonempty_event_id"]}' in text


# -- A3 / A4: ~ in cwd, dates in times -----------------------------------------------------------


def test_cwd_takes_a_home_relative_path(world: tuple[McpServer, dict[str, Path], Path]) -> None:
    server, _, home = world
    env = server.ok("search_sessions", {"query": "gizmowidget", "cwd": "~/proj"})
    assert env["request"]["cwd"] == str(home / "proj")
    assert env["data"]["results"] and all(h["session"]["cwd"] == str(home / "proj") for h in env["data"]["results"])
    listed = server.ok("list_sessions", {**WIDE, "cwd": "~/proj/"})["data"]["sessions"]
    assert [s["session"]["cwd"] for s in listed] == [str(home / "proj")]
    assert not server.ok("search_sessions", {"query": "gizmowidget", "cwd": "~/elsewhere"})["data"]["results"]
    server.err("search_sessions", {"query": "gizmowidget", "cwd": "proj"}, "invalid_request")


def test_dates_are_midnight_utc(world: tuple[McpServer, dict[str, Path], Path]) -> None:
    server, _, _ = world
    env = server.ok("list_sessions", {"start_datetime": "2026-04-02", "end_datetime": "2026-04-03", "limit": 50})
    assert env["request"]["start_datetime"] == "2026-04-02T00:00:00Z"
    assert {s["session"]["cwd"] for s in env["data"]["sessions"]} >= {"/w/dup", "/w/dot"}
    assert all(s["session"]["updated_at"] >= "2026-04-02" and s["session"]["started_at"] < "2026-04-03"
               for s in env["data"]["sessions"])
    hits = server.ok("search_sessions", {"query": "manyword", "since": "2026-04-04", "until": "2026-04-05",
                                         "n_hits": 50})["data"]["results"]
    assert hits and all(h["event"]["timestamp"].startswith("2026-04-04") for h in hits)
    history = server.call("search_session_history", {"query": "needleword", "since": "2026-04-04",
                                                     "until": "2026-04-05"})
    assert history["total_matches"] == 1
    assert server.call("search_session_history", {"query": "needleword", "until": "2026-04-04"})["total_matches"] == 0
    server.err("list_sessions", {"start_datetime": "2026-04-31", "end_datetime": "2026-05-01"}, "invalid_request")


# -- B2: each hit's text says when, which harness, which project, and a real title ----------------


def test_texts_say_when_where_and_what(world: tuple[McpServer, dict[str, Path], Path]) -> None:
    server, _, _ = world
    result = server.raw("search_sessions", {"query": "gizmowidget"})
    hit = result.structured_content["data"]["results"][0]
    assert hit["session"]["title"] == "Make the gizmowidget render faster"  # not "# Context from my IDE setup:"
    first = result.content[0].text.splitlines()[1]
    for part in (hit["event"]["timestamp"][:10], hit["event"]["timestamp"][11:16], "codex", "proj",
                 "Make the gizmowidget render faster"):
        assert part in first, (part, first)
    dot = server.ok("search_sessions", {"query": "sprocket"})["data"]["results"][0]["session"]
    assert dot["title"] == "Explain the sprocket cache eviction"  # the first prompt was "."
    listed = server.raw("list_sessions", {"start_datetime": "2026-04-02", "end_datetime": "2026-04-03",
                                          "limit": 50})
    text = listed.content[0].text
    assert "[claude-code, chat, 2 turns] dot · main — Explain the sprocket cache eviction" in text
    assert "proj — Make the gizmowidget render faster" in text and "# Context from my IDE" not in text
    history = server.raw("search_session_history", {"query": "gizmowidget", "context_lines": 0})
    assert "codex · proj — Make the gizmowidget render faster" in history.content[0].text


# -- B1: replies sized to what they carry -----------------------------------------------------------


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _measure(server: McpServer, tool: str, args: dict[str, Any], table: list[str]) -> tuple[str, dict[str, Any]]:
    """The reply's text and structured content, checked: no page of content in both, and the JSON
    (less the content page it alone carries) near the text's size. ~2x where hits and rows carry
    text; up to 3.5x where they carry little (v1's fixed shape names every field and repeats each
    hit's IDs three times), or a JSON of at most 3,000 characters."""
    result = server.raw(tool, args)
    text = "".join(block.text for block in result.content)
    structured = result.structured_content
    size = len(json.dumps(structured, separators=(",", ":"), ensure_ascii=False))
    data = structured.get("data")
    page = data["content"]["text"] if isinstance(data, dict) and data.get("kind") == "event" else ""
    size -= len(json.dumps(page, ensure_ascii=False)) - 2  # the page is carried once, in the JSON: not counted
    table.append(f"{tool:24s} {json.dumps(args)[:56]:56s} text {len(text):6d}  json {size:6d} (+ page "
                 f"{len(page):6d})  x{size / max(1, len(text)):.2f}")
    for value in _strings(structured):
        if len(value) >= PAGE_MIN:
            assert value not in text, f"{tool}: a {len(value)}-character string is in the text and the JSON"
    assert size <= 3.5 * len(text) or size <= 3_000, table[-1]
    return text, structured


def _tour(server: McpServer, table: list[str], query: str, regex: str) -> None:
    """Every read tool once, with the IDs the answers lead to."""
    _, found = _measure(server, "search_sessions", {"query": query, "n_hits": 10}, table)
    hit = found["data"]["results"][0]
    for key in ("session_id", "turn_id", "event_id"):
        _measure(server, "open", {"id": hit["open"][key]}, table)
    _measure(server, "list_sessions", {"start_datetime": "2026-01-01", "end_datetime": "2027-01-01", "limit": 50},
             table)
    _measure(server, "search_session_history", {"query": regex}, table)
    _measure(server, "get_learned_patterns", {}, table)
    _measure(server, "index_status", {}, table)
    _measure(server, "open", {"id": "not-a-valid-id"}, table)


def test_reply_sizes_on_a_large_state(world: tuple[McpServer, dict[str, Path], Path],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    server, _, _ = world
    table: list[str] = []
    _tour(server, table, "manyword filler", "needleword")
    # the 120,000-character event: its page once, in structuredContent
    hit = server.ok("search_sessions", {"query": "quetzal", "event_types": ["tool_response"]})["data"]["results"][0]
    text, env = _measure(server, "open", {"id": hit["id"]}, table)
    content = env["data"]["content"]
    assert content["total_chars"] == len(BIG) and len(content["text"]) >= 30_000 and content["truncated"]
    assert BIG[:PREVIEW + 50] not in text and len(text) < 2_000
    assert f"offset={content['next_offset']}" in text and "content_in_text" in text
    asked = server.raw("open", {"id": hit["id"], "content_in_text": True})
    assert content["text"] in asked.content[0].text  # asked for: the page in the text too
    server.err("open", {"id": hit["id"], "content_in_text": "yes"}, "invalid_request")
    # one match over 300+ sessions: the sessions searched are a count, unless asked for
    text, data = _measure(server, "search_session_history", {"query": "needleword"}, table)
    assert data["total_matches"] == 1 and data["searched_sessions_total"] > MANY
    assert data["searched_sessions"] == [data["matches"][0]["session_id"]] and len(text) > 200
    every = server.call("search_session_history", {"query": "needleword", "include_searched_ids": True})
    assert len(every["searched_sessions"]) == every["searched_sessions_total"] == data["searched_sessions_total"]
    _measure(server, "search_sessions", {"query": "manyword", "n_hits": 50}, table)
    _measure(server, "list_sessions", {**WIDE, "limit": 50}, table)
    with capsys.disabled():
        print("\nreply sizes, large state:\n" + "\n".join(table))


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    root = tmp_path_factory.mktemp("samples-sizes")
    corpus = Corpus(root, root / "codex", root / "claude", root / "moraine-home")
    shutil.copytree(SAMPLES / "codex", corpus.codex_home)
    shutil.copytree(SAMPLES / "claude", corpus.claude_home)
    corpus.moraine_home.mkdir()
    server = McpServer(corpus)
    try:
        yield server
    finally:
        server.close()


def test_reply_sizes_on_the_data_samples(samples: McpServer, capsys: pytest.CaptureFixture[str]) -> None:
    table: list[str] = []
    _tour(samples, table, "migration", "DuplicateColumn")
    with capsys.disabled():
        print("\nreply sizes, data_samples:\n" + "\n".join(table))
