"""The traversal contract over a corpus mixing every harness Moraine reads: the contract corpus
(Codex, Claude Code) plus the samples of Pi, Qwen Code, Kimi CLI, Cursor, Copilot CLI, Gemini
CLI (JSONL chats and legacy documents) and OpenCode (SQLite store and JSON tree), served by one
`moraine mcp`. Every ID any tool returns opens, to closure, and the graph is
consistent (the consistency checks are the contract traversal's own, run on this graph)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from contract_harness import McpServer, build_corpus, walk_ids
from test_contract_traversal import (  # the same checks, collected again for this graph
    Graph,
    test_events_are_consistent,  # noqa: F401
    test_ids_are_typed,  # noqa: F401
    test_sessions_are_consistent,  # noqa: F401
    test_turns_are_consistent,  # noqa: F401
)

from moraine.harnesses import NAMES

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples"
# sample folder → the variable naming its root (each harness's own)
HARNESSES = {"pi": "PI_CODING_AGENT_DIR", "qwen": "QWEN_HOME", "kimi": "KIMI_SHARE_DIR", "cursor": "CURSOR_HOME",
             "copilot": "COPILOT_HOME", "gemini": "GEMINI_CLI_HOME"}
SOURCES = set(NAMES)
WIDE = {"start_datetime": "1970-01-02T00:00:00Z", "end_datetime": "2100-01-01T00:00:00Z"}  # Cursor lines: file times


@pytest.fixture(scope="module")
def mixed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    corpus = build_corpus(tmp_path_factory.mktemp("mixed"))
    for folder, variable in HARNESSES.items():
        shutil.copytree(SAMPLES / folder, corpus.root / folder)
        corpus.harness_env[variable] = str(corpus.root / folder)
    shutil.copytree(SAMPLES / "opencode", corpus.root / "xdg" / "opencode")  # OpenCode's data folder
    corpus.harness_env["XDG_DATA_HOME"] = str(corpus.root / "xdg")
    server = McpServer(corpus)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def graph(mixed_server: McpServer) -> Graph:
    g = Graph(mixed_server)
    for query in ("pelican", "heron", "kestrel", "osprey", "plover", "gull", "albatross", "retry", "vite"):
        g.seeds |= walk_ids(mixed_server.ok("search_sessions", {"query": query, "n_hits": 50})["data"])
    cursor = None
    while True:
        data = mixed_server.ok("list_sessions", {**WIDE, "limit": 10, "cursor": cursor})["data"]
        g.seeds |= walk_ids(data)
        cursor = data["next_cursor"]
        if cursor is None:
            break
    g.close_over(g.seeds)
    return g


def test_every_harness_is_walked_to_closure(graph: Graph) -> None:
    assert not graph.failures, json.dumps(graph.failures, indent=1)[:2000]
    sessions = graph.of_kind("session:")
    assert {s["session"]["source"] for s in sessions.values()} == SOURCES
    assert len(graph.of_kind("turn:")) == sum(s["session"]["turn_count"] for s in sessions.values())
    assert len(graph.of_kind("event:")) == sum(s["session"]["event_count"] for s in sessions.values())
    children = [s for s in sessions.values() if s["session"]["parent_session_id"]]
    assert {s["session"]["source"] for s in children} == {"kimi-cli", "cursor", "gemini-cli", "opencode"}  # subagents
    for child in children:  # every child names a parent that lists it
        parent = graph.opened[child["session"]["parent_session_id"]]
        assert child["session"]["id"] in json.dumps(parent)


def test_index_status_lists_every_source(mixed_server: McpServer) -> None:
    rows = mixed_server.ok("index_status", {})["data"]["sources"]
    assert {row["harness"] for row in rows} == SOURCES
    for row in rows:
        assert row["root_exists"] and row["files"] >= 1 and row["sessions"] >= 1 and row["events"] >= 1, row
